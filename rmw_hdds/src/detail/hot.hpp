// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// RMW_HDDS_HOT marks the functions every sample runs through (publish, take, wait, trigger).
//
// Why: at the rates ROS 2 topics run (10 Hz to a few kHz) the CPU idles between two samples, and
// on these VMs an idle vCPU comes back with cold instruction caches and TLB: a sample then pays
// for every page and line of code it touches, more than for the instructions themselves. GCC
// puts a hot function in .text.hot, and GNU ld gathers .text.hot.* at the start of .text, next to
// the engine's own hot functions (`#[link_section = ".text.hot.hdds"]`, see docs/engine.md): the
// sample's path then spans a few pages instead of dozens.
#ifndef RMW_HDDS__DETAIL__HOT_HPP_
#define RMW_HDDS__DETAIL__HOT_HPP_

#define RMW_HDDS_HOT __attribute__((hot))

#endif  // RMW_HDDS__DETAIL__HOT_HPP_
