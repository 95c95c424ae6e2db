// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// What a service and a client share: a DDS writer and reader pair on the service's request and
// reply topics, created with the mapped QoS and the pairing USER_DATA rmw_cyclonedds_cpp looks
// for ("serviceid=" on both endpoints of a service, "clientid=" on both of a client), registered
// under their node in the graph; the new-data callback of the reader; and the look-ups in the
// context's discovered endpoints that both sides make.
//
//   service: reads rq/<name>Request, writes rr/<name>Reply
//   client:  writes rq/<name>Request, reads rr/<name>Reply
#ifndef RMW_HDDS__DETAIL__SERVICE_ENDPOINTS_HPP_
#define RMW_HDDS__DETAIL__SERVICE_ENDPOINTS_HPP_

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "detail/data_callback.hpp"
#include "detail/graph.hpp"
#include "detail/hdds_handle.hpp"
#include "detail/service_format.hpp"
#include "detail/type_support.hpp"
#include "rmw/event_callback_type.h"
#include "rmw/types.h"

namespace rmw_hdds
{
class Node;

class ServiceEndpoints
{
public:
  using Guid = service_format::Guid;

  // Checks the name and QoS, resolves the type support, creates and registers both endpoints.
  // On failure sets the rmw error message and returns nullptr.
  static std::unique_ptr<ServiceEndpoints> create(
    Node & node, bool is_service, const rosidl_service_type_support_t * type_support,
    const char * service_name, const rmw_qos_profile_t & qos);
  // Unregisters the endpoints from the graph, clears the callback, destroys the endpoints.
  ~ServiceEndpoints();
  ServiceEndpoints(const ServiceEndpoints &) = delete;
  ServiceEndpoints & operator=(const ServiceEndpoints &) = delete;

  Node & node() const {return node_;}
  const HddsWriter * writer() const {return writer_.get();}
  const HddsReader * reader() const {return reader_.get();}
  const Guid & writer_guid() const {return writer_guid_;}
  const Guid & reader_guid() const {return reader_guid_;}
  // The DDS topic this side writes to and the one it reads from.
  const std::string & written_topic() const {return written_topic_;}
  const std::string & read_topic() const {return read_topic_;}
  // What is written (service: response, client: request) and what is read.
  const MessageTypeSupport & written_type() const {return written_type_;}
  const MessageTypeSupport & read_type() const {return read_type_;}
  // The QoS both endpoints really have.
  const rmw_qos_profile_t & actual_qos() const {return actual_qos_;}

  // What the context's discovery knows (rmw-core's Graph), as services need it.
  // The vendor of an endpoint's participant: discovery's, else the one its GUID prefix names.
  service_format::VendorId vendor_of(const Guid & guid) const;
  // True while discovery knows the endpoint alive (ours and remote ones).
  bool is_known(const Guid & guid) const;
  std::optional<DiscoveredEndpoint> endpoint(const Guid & guid) const;
  // The value of "clientid=" (or "serviceid=", `key`) in the endpoint's USER_DATA; "" if none.
  static std::string pairing_id(const DiscoveredEndpoint & endpoint, const char * key);
  // The alive readers (or writers) of a DDS topic.
  std::vector<DiscoveredEndpoint> endpoints_on_topic(const std::string & topic, bool readers) const;

  // True if the writer delivers to this reader (local or remote).
  bool writer_matches(const Guid & reader) const;
  // True if the writer delivers to this reader and the reader knows the writer (a remote
  // reliable reader has sent an ACKNACK): what is written now will not be dropped as coming from
  // an unknown writer.
  bool writer_known_by(const Guid & reader) const;
  // True if the reader accepts samples of this writer and the writer has matched the reader too
  // (a remote reliable writer has sent it something): what the writer sends now reaches us.
  bool reader_known_by(const Guid & writer) const;

  // rmw_service_set_on_new_request_callback / rmw_client_set_on_new_response_callback: called
  // once per new sample, and at once with the count of those already waiting. Once this
  // returns, the previous callback is not running.
  rmw_ret_t set_on_new_data_callback(rmw_event_callback_t callback, const void * user_data);

private:
  explicit ServiceEndpoints(Node & node);

  Node & node_;
  bool is_service_ = false;
  WriterHandle writer_;
  ReaderHandle reader_;
  Guid writer_guid_{};
  Guid reader_guid_{};
  std::string written_topic_;
  std::string read_topic_;
  MessageTypeSupport written_type_;
  MessageTypeSupport read_type_;
  rmw_qos_profile_t actual_qos_{};
  bool writer_registered_ = false;
  bool reader_registered_ = false;

  DataCallback data_callback_;
};

}  // namespace rmw_hdds

#endif  // RMW_HDDS__DETAIL__SERVICE_ENDPOINTS_HPP_
