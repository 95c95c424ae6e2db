# Sanitizers for rmw_hdds's own C and C++ code (the RMW layer, its gtests, the C ABI tests).
#
#   -DHDDS_SANITIZE=address,undefined      (any list gcc/clang take after -fsanitize=)
#
# Included before the targets are defined, it adds the flags to every target of the including
# directory and its subdirectories: our targets only. Upstream code is not rebuilt (the ROS
# libraries come prebuilt from /opt/ros), and neither is the Rust engine: cargo builds hdds_ffi
# normally. Rust's sanitizers need nightly and a rebuilt std (-Zbuild-std); an engine built
# without them still runs under the ASan runtime, which intercepts every malloc/free (the
# engine's included), so ASan still catches our C/C++ side misusing engine memory (use after
# hdds_*_destroy, overruns of buffers the engine fills) and LeakSanitizer still reports what is
# allocated on either side of the boundary and never freed. The engine's own memory safety is
# checked by Miri and ThreadSanitizer on the Rust side (docs/checks.md).
#
# UBSan stops at the first error (-fno-sanitize-recover): a report is a test failure.
include_guard(DIRECTORY)

set(HDDS_SANITIZE "" CACHE STRING
  "Build rmw_hdds's own C/C++ code with these sanitizers (e.g. address,undefined); empty = none")
if(HDDS_SANITIZE)
  string(REPLACE ";" "," _hdds_sanitize "${HDDS_SANITIZE}")
  message(STATUS "rmw_hdds: C/C++ code built with -fsanitize=${_hdds_sanitize}")
  add_compile_options(-fsanitize=${_hdds_sanitize} -fno-omit-frame-pointer -g)
  add_link_options(-fsanitize=${_hdds_sanitize})
  if(_hdds_sanitize MATCHES "undefined")
    add_compile_options(-fno-sanitize-recover=all)
  endif()
endif()
