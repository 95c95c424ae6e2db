// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// A ROS service client: writes requests on rq/<name>Request, reads replies on rr/<name>Reply
// (detail/service_format.hpp for the two formats).
//
// Requests go in the format of the service readers the request writer has matched: one write
// when they all speak one format (the sample-identity form when none has matched yet); one
// directed write per matched reader when Cyclone DDS servers and others serve the name at once.
// Sample-identity requests name our reply reader and an unknown sequence number, as
// rmw_fastrtps_cpp's do; Cyclone-form requests carry our handle and the sequence id.
//
// Sequence ids are the client's own counter (1, 2, ...). A sample-identity reply names the
// request writer's sequence number of the sample it answers, which pending_ maps back to the id;
// a Cyclone reply carries the id itself. Replies naming another client are dropped by
// take_response (taken = false).
//
// Threads: send_request and take_response may run concurrently; mutex_ guards the counter,
// pending_ and the send buffer, take_mutex_ the take buffer.
#ifndef RMW_HDDS__DETAIL__CLIENT_HPP_
#define RMW_HDDS__DETAIL__CLIENT_HPP_

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "detail/hot.hpp"
#include "detail/service_endpoints.hpp"
#include "detail/service_format.hpp"
#include "detail/wait_set.hpp"
#include "rmw/types.h"

namespace rmw_hdds
{
class Node;

class Client : public Waitable
{
public:
  using Guid = service_format::Guid;

  // Requests sent in the sample-identity form whose reply has not come are remembered up to this
  // many; past it the oldest is forgotten and a late reply to it is dropped.
  static constexpr size_t kMaxPendingRequests = 1 << 16;

  // On failure sets the rmw error message and returns nullptr.
  static Client * create(
    Node & node, const rosidl_service_type_support_t * type_support, const char * service_name,
    const rmw_qos_profile_t & qos);

  // The reply reader, which a wait set waits on. A sample found there may be a reply for another
  // client of the service (take_response then reports taken = false).
  const HddsReader * reader() const {return endpoints_->reader();}
  // rmw_wait waits for data on the reply reader.
  RMW_HDDS_HOT HddsWaitEntry wait_entry() const override
  {
    HddsWaitEntry e{};
    e.kind = HDDS_WAIT_READER_DATA;
    e.handle = endpoints_->reader();
    return e;
  }
  const rmw_qos_profile_t & actual_qos() const {return endpoints_->actual_qos();}

  rmw_ret_t send_request(const void * ros_request, int64_t * sequence_id);
  rmw_ret_t take_response(rmw_service_info_t * info, void * ros_response, bool * taken);
  // A service is available when a request reader that knows our request writer (matched, and
  // for a remote reliable reader, has sent it an ACKNACK) and a reply writer that our reply reader
  // has matched belong to one service: the same serviceid= in their USER_DATA
  // (rmw_cyclonedds_cpp, rmw_hdds), else the same participant (rmw_fastrtps_cpp).
  bool server_is_available() const;
  rmw_ret_t set_on_new_response_callback(rmw_event_callback_t callback, const void * user_data)
  {
    return endpoints_->set_on_new_data_callback(callback, user_data);
  }

private:
  explicit Client(std::unique_ptr<ServiceEndpoints> endpoints);

  struct Target
  {
    Guid reader;
    service_format::Format format;
  };
  // The request readers our writer has matched, with their formats, into targets_.
  void collect_targets();
  // Caller holds mutex_.
  rmw_ret_t write_request(
    const void * ros_request, service_format::Format format, const Guid * directed_to,
    int64_t sequence_id);

  std::unique_ptr<ServiceEndpoints> endpoints_;
  uint64_t cyclone_handle_ = 0;

  std::mutex mutex_;
  int64_t next_sequence_id_ = 1;  // guarded by mutex_
  std::map<int64_t, int64_t> pending_;  // writer sequence number -> sequence id; guarded by mutex_
  std::vector<Target> targets_;  // guarded by mutex_
  std::vector<uint8_t> send_buffer_;  // guarded by mutex_

  std::mutex take_mutex_;
  std::vector<uint8_t> take_buffer_;  // guarded by take_mutex_
};
}  // namespace rmw_hdds

#endif  // RMW_HDDS__DETAIL__CLIENT_HPP_
