// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// Graph queries through the rmw API, with nodes in two contexts: node names and enclaves, topic
// names and types, counts, endpoint info, per-node queries, and entities disappearing.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "rcutils/types/string_array.h"
#include "rmw/error_handling.h"
#include "rmw/get_node_info_and_types.h"
#include "rmw/get_topic_endpoint_info.h"
#include "rmw/get_topic_names_and_types.h"
#include "rmw/names_and_types.h"
#include "rmw/rmw.h"
#include "rmw/topic_endpoint_info_array.h"
#include "rmw_test_fixtures.hpp"
#include "test_msgs/msg/basic_types.h"
#include "test_msgs/msg/strings.h"

using rmw_test::take_error;
using rmw_test::wait_until;

namespace
{
using NameList = std::vector<std::string>;

NameList node_fqns(const rmw_node_t * node, NameList * enclaves = nullptr)
{
  rcutils_string_array_t names = rcutils_get_zero_initialized_string_array();
  rcutils_string_array_t namespaces = rcutils_get_zero_initialized_string_array();
  rcutils_string_array_t encl = rcutils_get_zero_initialized_string_array();
  NameList out;
  EXPECT_EQ(
    RMW_RET_OK, rmw_get_node_names_with_enclaves(node, &names, &namespaces, &encl)) << take_error();
  for (size_t i = 0; i < names.size; ++i) {
    std::string ns = namespaces.data[i];
    out.push_back(ns + (ns == "/" ? "" : "/") + names.data[i]);
    if (enclaves) {
      enclaves->push_back(encl.data[i]);
    }
  }
  EXPECT_EQ(RCUTILS_RET_OK, rcutils_string_array_fini(&names));
  EXPECT_EQ(RCUTILS_RET_OK, rcutils_string_array_fini(&namespaces));
  EXPECT_EQ(RCUTILS_RET_OK, rcutils_string_array_fini(&encl));
  return out;
}

// "name type1,type2" for each entry, in the order given.
NameList flatten(rmw_names_and_types_t * nat)
{
  NameList out;
  for (size_t i = 0; i < nat->names.size; ++i) {
    std::string e = nat->names.data[i];
    e += " ";
    for (size_t j = 0; j < nat->types[i].size; ++j) {
      e += (j ? "," : "") + std::string(nat->types[i].data[j]);
    }
    out.push_back(e);
  }
  EXPECT_EQ(RMW_RET_OK, rmw_names_and_types_fini(nat));
  return out;
}

NameList topics(const rmw_node_t * node, bool no_demangle)
{
  rcutils_allocator_t allocator = rcutils_get_default_allocator();
  rmw_names_and_types_t nat = rmw_get_zero_initialized_names_and_types();
  EXPECT_EQ(RMW_RET_OK, rmw_get_topic_names_and_types(node, &allocator, no_demangle, &nat))
    << take_error();
  return flatten(&nat);
}

bool contains(const NameList & list, const std::string & item)
{
  for (const auto & s : list) {
    if (s == item) {
      return true;
    }
  }
  return false;
}

size_t count_of(const rmw_node_t * node, const char * topic, bool publishers)
{
  size_t n = 0;
  EXPECT_EQ(
    RMW_RET_OK, publishers ? rmw_count_publishers(node, topic, &n) :
    rmw_count_subscribers(node, topic, &n)) << take_error();
  return n;
}
}  // namespace

TEST(Graph, NodesTopicsAndEndpointsOfTwoContexts)
{
  rmw_test::Context ctx_a("/"), ctx_b("/secure_enclave");
  ASSERT_TRUE(ctx_a.ok());
  ASSERT_TRUE(ctx_b.ok());
  rmw_test::Node observer(ctx_a, "observer", "/graph");
  rmw_test::Node talker(ctx_b, "talker", "/graph");

  // Both nodes, each with its context's enclave, seen from context A.
  ASSERT_TRUE(
    wait_until(
      [&]() {
        auto n = node_fqns(observer.get());
        return contains(n, "/graph/observer") && contains(n, "/graph/talker");
      })) << "nodes seen: " << ::testing::PrintToString(node_fqns(observer.get()));
  NameList enclaves;
  const NameList names = node_fqns(observer.get(), &enclaves);
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == "/graph/talker") {
      EXPECT_EQ("/secure_enclave", enclaves[i]);
    }
    if (names[i] == "/graph/observer") {
      EXPECT_EQ("/", enclaves[i]);
    }
  }

  // A publisher in B, a subscription in A, of different types on two topics.
  rmw_publisher_options_t po = rmw_get_default_publisher_options();
  rmw_subscription_options_t so = rmw_get_default_subscription_options();
  rmw_qos_profile_t transient = rmw_qos_profile_default;
  transient.durability = RMW_QOS_POLICY_DURABILITY_TRANSIENT_LOCAL;
  transient.depth = 3;
  rmw_publisher_t * pub = rmw_create_publisher(
    talker.get(), ROSIDL_GET_MSG_TYPE_SUPPORT(test_msgs, msg, Strings), "/graph/chatter",
    &transient, &po);
  ASSERT_NE(nullptr, pub) << take_error();
  rmw_subscription_t * sub = rmw_create_subscription(
    observer.get(), ROSIDL_GET_MSG_TYPE_SUPPORT(test_msgs, msg, BasicTypes), "/graph/numbers",
    &rmw_qos_profile_sensor_data, &so);
  ASSERT_NE(nullptr, sub) << take_error();

  // Local entities are there as soon as creation returns.
  EXPECT_EQ(1u, count_of(observer.get(), "/graph/numbers", false));
  ASSERT_TRUE(wait_until([&]() {return count_of(observer.get(), "/graph/chatter", true) == 1;}));
  EXPECT_EQ(0u, count_of(observer.get(), "/graph/chatter", false));

  const NameList t = topics(observer.get(), false);
  EXPECT_TRUE(contains(t, "/graph/chatter test_msgs/msg/Strings")) << ::testing::PrintToString(t);
  EXPECT_TRUE(contains(t, "/graph/numbers test_msgs/msg/BasicTypes"));
  for (const auto & e : t) {
    EXPECT_NE(0u, e.rfind("ros_discovery_info", 0)) << "a non-ROS topic is listed demangled";
  }
  const NameList raw = topics(observer.get(), true);
  EXPECT_TRUE(contains(raw, "rt/graph/chatter test_msgs::msg::dds_::Strings_"));
  EXPECT_TRUE(
    contains(raw, "ros_discovery_info rmw_dds_common::msg::dds_::ParticipantEntitiesInfo_"));

  // Per node: B's talker publishes chatter (learned through ros_discovery_info).
  rcutils_allocator_t allocator = rcutils_get_default_allocator();
  NameList by_node;
  ASSERT_TRUE(
    wait_until(
      [&]() {
        rmw_names_and_types_t nat = rmw_get_zero_initialized_names_and_types();
        const rmw_ret_t ret = rmw_get_publisher_names_and_types_by_node(
          observer.get(), &allocator, "talker", "/graph", false, &nat);
        if (ret != RMW_RET_OK) {
          rmw_reset_error();
          return false;
        }
        by_node = flatten(&nat);
        return contains(by_node, "/graph/chatter test_msgs/msg/Strings");
      })) << ::testing::PrintToString(by_node);
  rmw_names_and_types_t nat = rmw_get_zero_initialized_names_and_types();
  ASSERT_EQ(
    RMW_RET_OK, rmw_get_subscriber_names_and_types_by_node(
      observer.get(), &allocator, "observer", "/graph", false, &nat));
  EXPECT_EQ(NameList{"/graph/numbers test_msgs/msg/BasicTypes"}, flatten(&nat));
  EXPECT_EQ(
    RMW_RET_NODE_NAME_NON_EXISTENT, rmw_get_subscriber_names_and_types_by_node(
      observer.get(), &allocator, "nobody", "/graph", false, &nat));
  rmw_reset_error();
  EXPECT_EQ(
    RMW_RET_INVALID_ARGUMENT, rmw_get_subscriber_names_and_types_by_node(
      observer.get(), &allocator, "bad name", "/graph", false, &nat));
  rmw_reset_error();

  // Endpoint info: node, type, gid and QoS of the remote publisher.
  rmw_topic_endpoint_info_array_t info = rmw_get_zero_initialized_topic_endpoint_info_array();
  ASSERT_TRUE(
    wait_until(
      [&]() {
        EXPECT_EQ(
          RMW_RET_OK, rmw_get_publishers_info_by_topic(
            observer.get(), &allocator, "/graph/chatter", false, &info));
        if (info.size == 1 && std::strcmp(info.info_array[0].node_name, "talker") == 0) {
          return true;
        }
        EXPECT_EQ(RMW_RET_OK, rmw_topic_endpoint_info_array_fini(&info, &allocator));
        return false;
      }));
  const rmw_topic_endpoint_info_t & e = info.info_array[0];
  EXPECT_STREQ("/graph", e.node_namespace);
  EXPECT_STREQ("test_msgs/msg/Strings", e.topic_type);
  EXPECT_EQ(RMW_ENDPOINT_PUBLISHER, e.endpoint_type);
  rmw_gid_t gid;
  ASSERT_EQ(RMW_RET_OK, rmw_get_gid_for_publisher(pub, &gid));
  EXPECT_EQ(0, std::memcmp(gid.data, e.endpoint_gid, RMW_GID_STORAGE_SIZE));
  EXPECT_EQ(RMW_QOS_POLICY_DURABILITY_TRANSIENT_LOCAL, e.qos_profile.durability);
  EXPECT_EQ(RMW_QOS_POLICY_RELIABILITY_RELIABLE, e.qos_profile.reliability);
  EXPECT_EQ(RMW_RET_OK, rmw_topic_endpoint_info_array_fini(&info, &allocator));

  ASSERT_EQ(
    RMW_RET_OK, rmw_get_subscriptions_info_by_topic(
      observer.get(), &allocator, "/graph/numbers", false, &info));
  ASSERT_EQ(1u, info.size);
  EXPECT_STREQ("observer", info.info_array[0].node_name);
  EXPECT_EQ(RMW_QOS_POLICY_RELIABILITY_BEST_EFFORT, info.info_array[0].qos_profile.reliability);
  EXPECT_EQ(RMW_RET_OK, rmw_topic_endpoint_info_array_fini(&info, &allocator));

  // Destroyed entities leave the graph: locally at once, remotely once discovery says so.
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_subscription(observer.get(), sub));
  EXPECT_EQ(0u, count_of(observer.get(), "/graph/numbers", false));
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_publisher(talker.get(), pub));
  EXPECT_TRUE(wait_until([&]() {return count_of(observer.get(), "/graph/chatter", true) == 0;}));

  // Bad arguments.
  size_t n = 0;
  EXPECT_EQ(RMW_RET_INVALID_ARGUMENT, rmw_count_publishers(observer.get(), "no_slash", &n));
  rmw_reset_error();
  EXPECT_EQ(RMW_RET_INVALID_ARGUMENT, rmw_count_publishers(nullptr, "/x", &n));
  rmw_reset_error();
  rcutils_string_array_t dirty = rcutils_get_zero_initialized_string_array();
  dirty.size = 1;
  rcutils_string_array_t ns = rcutils_get_zero_initialized_string_array();
  EXPECT_EQ(RMW_RET_INVALID_ARGUMENT, rmw_get_node_names(observer.get(), &dirty, &ns));
  rmw_reset_error();
}

TEST(Graph, ANodeLeavingIsSeenByOthers)
{
  rmw_test::Context ctx_a, ctx_b;
  ASSERT_TRUE(ctx_a.ok());
  ASSERT_TRUE(ctx_b.ok());
  rmw_test::Node observer(ctx_a, "stays");
  rmw_node_t * leaving = rmw_create_node(ctx_b.get(), "leaves", "/");
  ASSERT_NE(nullptr, leaving);
  ASSERT_TRUE(wait_until([&]() {return contains(node_fqns(observer.get()), "/leaves");}));
  ASSERT_EQ(RMW_RET_OK, rmw_destroy_node(leaving));
  EXPECT_TRUE(wait_until([&]() {return !contains(node_fqns(observer.get()), "/leaves");}));
}

TEST(Graph, QosCompatibilityCheck)
{
  rmw_qos_compatibility_type_t c;
  char reason[256];
  rmw_qos_profile_t reliable = rmw_qos_profile_default;
  reliable.liveliness = RMW_QOS_POLICY_LIVELINESS_AUTOMATIC;  // SYSTEM_DEFAULT would only warn
  rmw_qos_profile_t be = reliable;
  be.reliability = RMW_QOS_POLICY_RELIABILITY_BEST_EFFORT;
  ASSERT_EQ(
    RMW_RET_OK, rmw_qos_profile_check_compatible(be, reliable, &c, reason, sizeof(reason)));
  EXPECT_EQ(RMW_QOS_COMPATIBILITY_ERROR, c);
  EXPECT_NE(nullptr, std::strstr(reason, "Best effort publisher"));
  ASSERT_EQ(RMW_RET_OK, rmw_qos_profile_check_compatible(reliable, be, &c, reason, sizeof(reason)));
  EXPECT_EQ(RMW_QOS_COMPATIBILITY_OK, c) << reason;
}
