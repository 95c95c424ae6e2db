// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// detail/names and detail/qos_mapping, compiled into the test: the DDS names every ROS 2 DDS RMW
// uses, and Humble's QoS rules.
#include <gtest/gtest.h>

#include <string>

#include "detail/names.hpp"
#include "detail/qos_mapping.hpp"
#include "rmw/error_handling.h"
#include "rmw/qos_profiles.h"

namespace names = rmw_hdds::names;

TEST(Names, TopicsServicesAndTypesAreMangledAsEveryDdsRmwDoes)
{
  EXPECT_EQ("rt/chatter", names::topic_to_dds("/chatter", false));
  EXPECT_EQ("rt/ns/deep/chatter", names::topic_to_dds("/ns/deep/chatter", false));
  EXPECT_EQ("/chatter", names::topic_to_dds("/chatter", true));
  EXPECT_EQ("rq/add_two_intsRequest", names::request_topic("/add_two_ints", false));
  EXPECT_EQ("rr/add_two_intsReply", names::reply_topic("/add_two_ints", false));
  EXPECT_EQ("/add_two_ints", names::request_topic("/add_two_ints", true));
  EXPECT_EQ("std_msgs::msg::dds_::String_", names::type_to_dds("std_msgs/msg/String"));
  EXPECT_EQ(
    "example_interfaces::srv::dds_::AddTwoInts_Request_",
    names::type_to_dds("example_interfaces/srv/AddTwoInts_Request"));
  EXPECT_EQ(
    "rmw_dds_common::msg::dds_::ParticipantEntitiesInfo_",
    names::type_to_dds("rmw_dds_common/msg/ParticipantEntitiesInfo"));
}

TEST(Names, DemanglingInvertsManglingAndSkipsWhatIsNotRos)
{
  EXPECT_EQ("/chatter", names::topic_from_dds("rt/chatter"));
  EXPECT_EQ("", names::topic_from_dds("ros_discovery_info"));
  EXPECT_EQ("", names::topic_from_dds("rq/fooRequest"));
  EXPECT_EQ("", names::topic_from_dds("rtx/foo"));
  EXPECT_EQ("std_msgs/msg/String", names::type_from_dds("std_msgs::msg::dds_::String_"));
  EXPECT_EQ("KeyedData", names::type_from_dds("KeyedData"));  // a plain DDS type stays as it is
  EXPECT_EQ("/add_two_ints", names::service_from_request_topic("rq/add_two_intsRequest"));
  EXPECT_EQ("", names::service_from_request_topic("rr/add_two_intsReply"));
  EXPECT_EQ("", names::service_from_request_topic("rq/add_two_ints"));
  EXPECT_EQ("/add_two_ints", names::service_from_reply_topic("rr/add_two_intsReply"));
  EXPECT_EQ("", names::service_from_reply_topic("rt/chatter"));
  EXPECT_EQ(
    "example_interfaces/srv/AddTwoInts",
    names::service_type_from_dds("example_interfaces::srv::dds_::AddTwoInts_Request_"));
  EXPECT_EQ(
    "example_interfaces/srv/AddTwoInts",
    names::service_type_from_dds("example_interfaces::srv::dds_::AddTwoInts_Response_"));
  EXPECT_EQ("", names::service_type_from_dds("std_msgs::msg::dds_::String_"));
  EXPECT_EQ("", names::service_type_from_dds("pkg::srv::dds_::_Request_"));
  for (const char * type : {"std_msgs/msg/String", "a/b/c/D", "pkg/srv/X_Response"}) {
    EXPECT_EQ(type, names::type_from_dds(names::type_to_dds(type)));
  }
}

TEST(Names, ValidationNamesTheReason)
{
  EXPECT_EQ(RMW_RET_OK, names::check_topic_name("/chatter", false));
  EXPECT_EQ(RMW_RET_INVALID_ARGUMENT, names::check_topic_name("chatter", false));
  EXPECT_NE(std::string::npos, std::string(rmw_get_error_string().str).find("chatter"));
  rmw_reset_error();
  EXPECT_EQ(RMW_RET_INVALID_ARGUMENT, names::check_topic_name("/with space", false));
  rmw_reset_error();
  EXPECT_EQ(RMW_RET_INVALID_ARGUMENT, names::check_topic_name("", true));
  rmw_reset_error();
  // Without ROS conventions any non-empty DDS name goes.
  EXPECT_EQ(RMW_RET_OK, names::check_topic_name("plain_dds_topic", true));
  EXPECT_EQ(RMW_RET_OK, names::check_node_name("talker"));
  EXPECT_EQ(RMW_RET_INVALID_ARGUMENT, names::check_node_name("1talker"));
  rmw_reset_error();
  EXPECT_EQ(RMW_RET_INVALID_ARGUMENT, names::check_node_name("tal/ker"));
  rmw_reset_error();
  EXPECT_EQ(RMW_RET_OK, names::check_namespace("/ns/sub"));
  EXPECT_EQ(RMW_RET_INVALID_ARGUMENT, names::check_namespace("ns"));
  EXPECT_NE(std::string::npos, std::string(rmw_get_error_string().str).find("namespace"));
  rmw_reset_error();
}

TEST(QosMapping, DefaultProfileMapsOneToOne)
{
  HddsQos q;
  ASSERT_EQ(RMW_RET_OK, rmw_hdds::qos_to_hdds(rmw_qos_profile_default, &q));
  EXPECT_EQ(static_cast<uint32_t>(HDDS_RELIABILITY_RELIABLE), q.reliability);
  EXPECT_EQ(static_cast<uint32_t>(HDDS_DURABILITY_VOLATILE), q.durability);
  EXPECT_EQ(static_cast<uint32_t>(HDDS_HISTORY_KEEP_LAST), q.history);
  EXPECT_EQ(10u, q.depth);
  EXPECT_EQ(HDDS_DURATION_INFINITE, q.deadline_ns);
  EXPECT_EQ(HDDS_DURATION_INFINITE, q.lifespan_ns);
  EXPECT_EQ(HDDS_DURATION_INFINITE, q.liveliness_lease_duration_ns);
  EXPECT_EQ(static_cast<uint32_t>(HDDS_LIVELINESS_AUTOMATIC), q.liveliness);

  rmw_qos_profile_t back = rmw_hdds::qos_from_hdds(q, &rmw_qos_profile_default);
  EXPECT_EQ(RMW_QOS_POLICY_HISTORY_KEEP_LAST, back.history);
  EXPECT_EQ(10u, back.depth);
  EXPECT_EQ(RMW_QOS_POLICY_RELIABILITY_RELIABLE, back.reliability);
  EXPECT_EQ(RMW_QOS_POLICY_DURABILITY_VOLATILE, back.durability);
  EXPECT_EQ(RMW_QOS_POLICY_LIVELINESS_AUTOMATIC, back.liveliness);
  const rmw_time_t infinite = RMW_DURATION_INFINITE;
  EXPECT_TRUE(rmw_time_equal(infinite, back.deadline));
  EXPECT_TRUE(rmw_time_equal(infinite, back.lifespan));
}

TEST(QosMapping, SystemDefaultBecomesWhatTheEngineReallyUses)
{
  rmw_qos_profile_t actual;
  ASSERT_EQ(RMW_RET_OK, rmw_hdds::resolve_qos(rmw_qos_profile_system_default, &actual));
  EXPECT_EQ(RMW_QOS_POLICY_HISTORY_KEEP_LAST, actual.history);
  EXPECT_EQ(1u, actual.depth);
  EXPECT_EQ(RMW_QOS_POLICY_RELIABILITY_RELIABLE, actual.reliability);
  EXPECT_EQ(RMW_QOS_POLICY_DURABILITY_VOLATILE, actual.durability);
  EXPECT_EQ(RMW_QOS_POLICY_LIVELINESS_AUTOMATIC, actual.liveliness);
}

TEST(QosMapping, EveryPolicyAndDurationIsCarried)
{
  rmw_qos_profile_t p = rmw_qos_profile_sensor_data;  // best effort, keep last 5
  p.durability = RMW_QOS_POLICY_DURABILITY_TRANSIENT_LOCAL;
  p.deadline = {1, 500};
  p.lifespan = {0, 250000000};
  p.liveliness = RMW_QOS_POLICY_LIVELINESS_MANUAL_BY_TOPIC;
  p.liveliness_lease_duration = {3, 0};
  p.avoid_ros_namespace_conventions = true;
  HddsQos q;
  ASSERT_EQ(RMW_RET_OK, rmw_hdds::qos_to_hdds(p, &q));
  EXPECT_EQ(static_cast<uint32_t>(HDDS_RELIABILITY_BEST_EFFORT), q.reliability);
  EXPECT_EQ(static_cast<uint32_t>(HDDS_DURABILITY_TRANSIENT_LOCAL), q.durability);
  EXPECT_EQ(5u, q.depth);
  EXPECT_EQ(1000000500, q.deadline_ns);
  EXPECT_EQ(250000000, q.lifespan_ns);
  EXPECT_EQ(static_cast<uint32_t>(HDDS_LIVELINESS_MANUAL_BY_TOPIC), q.liveliness);
  EXPECT_EQ(3000000000, q.liveliness_lease_duration_ns);

  const rmw_qos_profile_t back = rmw_hdds::qos_from_hdds(q, &p);
  EXPECT_EQ(RMW_QOS_POLICY_RELIABILITY_BEST_EFFORT, back.reliability);
  EXPECT_EQ(RMW_QOS_POLICY_DURABILITY_TRANSIENT_LOCAL, back.durability);
  EXPECT_EQ(RMW_QOS_POLICY_LIVELINESS_MANUAL_BY_TOPIC, back.liveliness);
  EXPECT_EQ(1, back.deadline.sec);
  EXPECT_EQ(500u, back.deadline.nsec);
  EXPECT_EQ(3, back.liveliness_lease_duration.sec);
  EXPECT_TRUE(back.avoid_ros_namespace_conventions);

  p.history = RMW_QOS_POLICY_HISTORY_KEEP_ALL;
  ASSERT_EQ(RMW_RET_OK, rmw_hdds::qos_to_hdds(p, &q));
  EXPECT_EQ(static_cast<uint32_t>(HDDS_HISTORY_KEEP_ALL), q.history);
  EXPECT_EQ(RMW_QOS_POLICY_HISTORY_KEEP_ALL, rmw_hdds::qos_from_hdds(q, &p).history);
}

TEST(QosMapping, UnknownAndDeprecatedValuesAreRefusedWithAReason)
{
  HddsQos q;
  EXPECT_EQ(RMW_RET_INVALID_ARGUMENT, rmw_hdds::qos_to_hdds(rmw_qos_profile_unknown, &q));
  EXPECT_NE(std::string::npos, std::string(rmw_get_error_string().str).find("unknown"));
  rmw_reset_error();

  rmw_qos_profile_t p = rmw_qos_profile_default;
  p.liveliness = static_cast<rmw_qos_liveliness_policy_t>(2);  // MANUAL_BY_NODE (deprecated)
  EXPECT_EQ(RMW_RET_INVALID_ARGUMENT, rmw_hdds::qos_to_hdds(p, &q));
  EXPECT_NE(std::string::npos, std::string(rmw_get_error_string().str).find("MANUAL_BY_TOPIC"));
  rmw_reset_error();

  p = rmw_qos_profile_default;
  p.durability = RMW_QOS_POLICY_DURABILITY_UNKNOWN;
  EXPECT_EQ(RMW_RET_INVALID_ARGUMENT, rmw_hdds::qos_to_hdds(p, &q));
  rmw_reset_error();

  p = rmw_qos_profile_default;
  p.depth = static_cast<size_t>(1) << 40;
  EXPECT_EQ(RMW_RET_INVALID_ARGUMENT, rmw_hdds::qos_to_hdds(p, &q));
  rmw_reset_error();
}

TEST(QosMapping, DdsPolicyIdsBecomeRmwPolicyKinds)
{
  EXPECT_EQ(RMW_QOS_POLICY_DURABILITY, rmw_hdds::policy_kind_from_dds(2));
  EXPECT_EQ(RMW_QOS_POLICY_DEADLINE, rmw_hdds::policy_kind_from_dds(4));
  EXPECT_EQ(RMW_QOS_POLICY_LIVELINESS, rmw_hdds::policy_kind_from_dds(8));
  EXPECT_EQ(RMW_QOS_POLICY_RELIABILITY, rmw_hdds::policy_kind_from_dds(11));
  EXPECT_EQ(RMW_QOS_POLICY_HISTORY, rmw_hdds::policy_kind_from_dds(13));
  EXPECT_EQ(RMW_QOS_POLICY_LIFESPAN, rmw_hdds::policy_kind_from_dds(21));
  EXPECT_EQ(RMW_QOS_POLICY_INVALID, rmw_hdds::policy_kind_from_dds(6));
}
