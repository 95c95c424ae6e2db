// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// ROS names <-> DDS names (DESIGN.md section 3), as every ROS 2 DDS RMW spells them:
//   topic   /chatter                     <-> rt/chatter
//   service /add_two_ints                <-> rq/add_two_intsRequest, rr/add_two_intsReply
//   type    std_msgs/msg/String          <-> std_msgs::msg::dds_::String_
//           example_interfaces/srv/AddTwoInts_Request <-> example_interfaces::srv::dds_::AddTwoInts_Request_
// With avoid_ros_namespace_conventions the name goes to DDS unchanged (no prefix, no suffix).
//
// Services (rmw-services) use request_topic / reply_topic and type_to_dds for their endpoints,
// and the service demanglers are what the graph queries use to list services.
#ifndef RMW_HDDS__DETAIL__NAMES_HPP_
#define RMW_HDDS__DETAIL__NAMES_HPP_

#include <string>

#include "rmw/ret_types.h"

namespace rmw_hdds
{
namespace names
{
std::string topic_to_dds(const std::string & ros_topic, bool avoid_ros_namespace_conventions);
std::string request_topic(const std::string & ros_service, bool avoid_ros_namespace_conventions);
std::string reply_topic(const std::string & ros_service, bool avoid_ros_namespace_conventions);

// "pkg/msg/Name" (MessageTypeSupport::type_name()) -> "pkg::msg::dds_::Name_".
std::string type_to_dds(const std::string & ros_type);

// The demanglers the graph queries use. Each returns "" for a name that is not of its kind, which
// the graph cache then leaves out.
// "rt/chatter" -> "/chatter"
std::string topic_from_dds(const std::string & dds_topic);
// "pkg::msg::dds_::Name_" -> "pkg/msg/Name"; a non-ROS type name is returned unchanged.
std::string type_from_dds(const std::string & dds_type);
// "rq/fooRequest" -> "/foo"
std::string service_from_request_topic(const std::string & dds_topic);
// "rr/fooReply" -> "/foo"
std::string service_from_reply_topic(const std::string & dds_topic);
// "pkg::srv::dds_::Name_Request_" or "..._Response_" -> "pkg/srv/Name"; anything else -> "".
std::string service_type_from_dds(const std::string & dds_type);
// For the queries' no_demangle = true.
std::string identity(const std::string & name);

// What rmw_create_publisher/subscription (and services) check a ROS name with: a fully qualified
// name per rmw_validate_full_topic_name, unless avoid_ros_namespace_conventions (then only
// non-empty). RMW_RET_INVALID_ARGUMENT with the validator's reason otherwise.
rmw_ret_t check_topic_name(const char * name, bool avoid_ros_namespace_conventions);
// rmw_validate_node_name / rmw_validate_namespace, with the reason in the error message.
rmw_ret_t check_node_name(const char * name);
rmw_ret_t check_namespace(const char * namespace_);
}  // namespace names
}  // namespace rmw_hdds

#endif  // RMW_HDDS__DETAIL__NAMES_HPP_
