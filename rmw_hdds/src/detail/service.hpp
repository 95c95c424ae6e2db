// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// A ROS service server: reads requests on rq/<name>Request, answers on rr/<name>Reply, each
// requester in its own format (detail/service_format.hpp):
// - a request carrying a related sample identity (rmw_fastrtps_cpp, rmw_hdds clients) is answered
//   with the identity (GUID it named, request's sequence number), directed to the reply reader it
//   named once our reply writer has matched that reader;
// - a request from a Cyclone DDS participant carries the 16-byte header; the answer echoes it and
//   goes to the reply reader whose USER_DATA clientid= equals the request writer's;
// - anything else is answered with the identity (request writer's GUID, sequence number).
// A reply whose reader has not matched within kReplyReaderWait is not sent (RMW_RET_TIMEOUT, as
// both rmw_cyclonedds_cpp and rmw_fastrtps_cpp do); a requester that left gets none (RMW_RET_OK).
//
// Threads: take_request and send_response may run concurrently (a multi-threaded executor); each
// has its own scratch buffer and mutex, and the requester tables have theirs. The engine's data
// listener runs the new-request callback (ServiceEndpoints).
#ifndef RMW_HDDS__DETAIL__SERVICE_HPP_
#define RMW_HDDS__DETAIL__SERVICE_HPP_

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "detail/hot.hpp"
#include "detail/service_endpoints.hpp"
#include "detail/service_format.hpp"
#include "detail/wait_set.hpp"
#include "rmw/types.h"

namespace rmw_hdds
{
class Node;

class Service : public Waitable
{
public:
  using Guid = service_format::Guid;

  // How long send_response waits for the requester's reply reader to match: Cyclone's 100 ms,
  // and Fast DDS's default max_blocking_time (100 ms) which it waits for the same reason.
  static constexpr std::chrono::milliseconds kReplyReaderWait{100};

  // On failure sets the rmw error message and returns nullptr.
  static Service * create(
    Node & node, const rosidl_service_type_support_t * type_support, const char * service_name,
    const rmw_qos_profile_t & qos);

  // The request reader, which a wait set waits on. A sample found there may turn out not to be
  // a request this service can read (take_request then reports taken = false).
  const HddsReader * reader() const {return endpoints_->reader();}
  // rmw_wait waits for data on the request reader.
  RMW_HDDS_HOT HddsWaitEntry wait_entry() const override
  {
    HddsWaitEntry e{};
    e.kind = HDDS_WAIT_READER_DATA;
    e.handle = endpoints_->reader();
    return e;
  }
  const rmw_qos_profile_t & actual_qos() const {return endpoints_->actual_qos();}

  rmw_ret_t take_request(rmw_service_info_t * info, void * ros_request, bool * taken);
  rmw_ret_t send_response(const rmw_request_id_t & id, const void * ros_response);
  rmw_ret_t set_on_new_request_callback(rmw_event_callback_t callback, const void * user_data)
  {
    return endpoints_->set_on_new_data_callback(callback, user_data);
  }

private:
  explicit Service(std::unique_ptr<ServiceEndpoints> endpoints);

  // A requester that writes Cyclone's header: the handle it put there, its pairing id.
  struct CycloneClient
  {
    uint64_t client_handle = 0;
    std::string client_id;
  };
  // Where and how a reply goes.
  struct ReplyRoute
  {
    service_format::Format format = service_format::Format::kSampleIdentity;
    uint64_t cyclone_client_handle = 0;
    bool directed = false;
    Guid reader{};
  };
  enum class Requester { kPresent, kGone, kNotMatched };

  void remember_cyclone_client(const Guid & writer, uint64_t handle);
  void remember_requester(const Guid & reply_reader, const Guid & request_writer);
  // Finds where the reply to `id` goes, waiting up to kReplyReaderWait for the reader to match.
  Requester route_reply(const rmw_request_id_t & id, ReplyRoute * route);
  Requester find_cyclone_reader(const Guid & writer, const CycloneClient & client, Guid * reader);

  std::unique_ptr<ServiceEndpoints> endpoints_;

  std::mutex requesters_mutex_;
  // Cyclone-form requesters by request writer GUID (the request ids name the writer).
  std::map<Guid, CycloneClient> cyclone_clients_;  // guarded by requesters_mutex_
  // Sample-identity requesters: reply reader -> request writer (to see the requester leave).
  std::map<Guid, Guid> requesters_;  // guarded by requesters_mutex_

  std::mutex take_mutex_;
  std::vector<uint8_t> take_buffer_;  // guarded by take_mutex_
  std::mutex send_mutex_;
  std::vector<uint8_t> send_buffer_;  // guarded by send_mutex_
};
}  // namespace rmw_hdds

#endif  // RMW_HDDS__DETAIL__SERVICE_HPP_
