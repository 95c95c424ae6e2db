// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// How ROS 2 DDS middlewares tell a reply which request it answers (DESIGN.md section 3,
// "Services"), as pure functions over bytes: no engine, no locks, no allocation except where a
// function returns a string.
//
// Two formats are in use on Humble and they do not understand each other:
// - rmw_fastrtps_cpp (and rmw_hdds between its own processes): the request carries, as inline QoS
//   RELATED_SAMPLE_IDENTITY, the GUID of the client's reply READER; the reply carries (that GUID,
//   the request's writer sequence number). The engine puts the identity on the wire and reads it
//   back (hdds_writer_write_ex, HddsSampleInfo); this file only decides what goes in it.
// - rmw_cyclonedds_cpp: 16 bytes in front of the CDR body, after the encapsulation header: a u64
//   that is Cyclone's opaque handle of the client's request writer (echoed by the server, then
//   used by every client to keep only its own replies) and the i64 request sequence number, both in
//   the payload's byte order. Endpoints pair up through USER_DATA "clientid=<id>;" (the client's
//   request writer and reply reader) and "serviceid=<id>;" (the service's two endpoints).
// rmw_hdds speaks both: a service answers each requester in its own format, a client writes in
// the format of the servers it has matched.
#ifndef RMW_HDDS__DETAIL__SERVICE_FORMAT_HPP_
#define RMW_HDDS__DETAIL__SERVICE_FORMAT_HPP_

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "rmw/types.h"

namespace rmw_hdds
{
namespace service_format
{
using Guid = std::array<uint8_t, 16>;
using VendorId = std::array<uint8_t, 2>;

enum class Format : uint8_t
{
  // RELATED_SAMPLE_IDENTITY in inline QoS (rmw_fastrtps_cpp; rmw_hdds to rmw_hdds).
  kSampleIdentity,
  // Cyclone's 16-byte request header in front of the CDR body (rmw_cyclonedds_cpp).
  kCycloneHeader,
};

constexpr VendorId kVendorCyclone = {0x01, 0x10};
constexpr VendorId kVendorFastDds = {0x01, 0x0f};

// The format the endpoints of a participant of this vendor speak: the Cyclone header for
// Eclipse Cyclone DDS, the sample identity for everyone else (Fast DDS, rmw_hdds, and the
// default that rmw_connextdds also reads).
Format format_of_vendor(const VendorId & vendor);

// The first two bytes of the GUID prefix, where RTPS asks implementations to put their vendor id
// (Cyclone and Fast DDS do: see the captures). Discovery's PID_VENDOR_ID is authoritative; this is
// for an endpoint that discovery has not reported.
VendorId vendor_of_guid(const Guid & guid);

// ---- Cyclone's request header ---------------------------------------------------------------

constexpr size_t kCycloneHeaderSize = 16;
// Encapsulation header (4 bytes) + request header.
constexpr size_t kCycloneHeaderEnd = 4 + kCycloneHeaderSize;

struct CycloneHeader
{
  // Cyclone's instance handle of the client's request writer; opaque, echoed by the server.
  uint64_t client_handle = 0;
  int64_t sequence_number = 0;
};

// Reads the header of a Cyclone-form payload [payload, payload + len): encapsulation, header,
// body. The header is read in the byte order the encapsulation names (CDR_BE 00 00, CDR_LE 00 01).
// Returns false, leaving `out` unchanged, if the payload is shorter than 20 bytes or is not CDR.
bool read_cyclone_header(const uint8_t * payload, size_t len, CycloneHeader * out);

// Turns a plain payload (encapsulation + body) at buf + 16 into a Cyclone-form payload at buf:
// moves the encapsulation to buf[0..4] and writes the header at buf[4..20] in the byte order the
// encapsulation names. The body does not move: its alignment counts from the end of the
// encapsulation header either way, and 16 is a multiple of every CDR alignment. Returns false
// (buffer untouched) if the encapsulation is not CDR.
bool add_cyclone_header(uint8_t * buf, const CycloneHeader & header);

// Copies a Cyclone-form payload without its request header (encapsulation + body) to `plain`,
// which must hold len - 16 bytes. Requires len >= 20 (read_cyclone_header succeeded).
void remove_cyclone_header(const uint8_t * payload, size_t len, uint8_t * plain);

// The value a client of ours puts in the Cyclone header and looks for in replies: a hash of its
// request writer's GUID (Cyclone uses a process-local 64-bit handle that nobody else interprets;
// any value unique among the clients of a service does). Never 0: Cyclone reads 0 as "no filter".
uint64_t cyclone_client_handle(const Guid & request_writer);

// ---- USER_DATA pairing ("clientid=" / "serviceid=") -------------------------------------------

// A client's or service's pairing id, as rmw_cyclonedds_cpp builds it: the participant's 12-byte
// GUID prefix and a per-participant counter in big-endian order.
Guid make_pairing_id(const Guid & participant_guid, uint32_t counter);

// The endpoint USER_DATA "clientid=<id>;" or "serviceid=<id>;", with <id> written exactly as
// rmw_cyclonedds_cpp writes it (hex bytes joined by '.', the first one padded to width 2 with a
// space, e.g. "clientid= 1.10.b6.42...0.0.0.7;"). Cyclone compares ids as strings.
std::string pairing_user_data(bool is_service, const Guid & id);

constexpr const char * kClientIdKey = "clientid";
constexpr const char * kServiceIdKey = "serviceid";

// The value of `key` in USER_DATA made of "key=value;" pairs (ROS's format, rmw's
// parse_key_value; a trailing NUL is accepted), or nothing if it is absent or the data is not in
// that format.
std::optional<std::string> user_data_value(
  const uint8_t * user_data, size_t len, const char * key);

// ---- Sample identity ----------------------------------------------------------------------------

// Fast DDS's SequenceNumber_t::unknown() ({high = -1, low = 0}) as one 64-bit value: what a
// request's related sample identity carries next to the reply reader's GUID.
constexpr int64_t kSequenceNumberUnknown = static_cast<int64_t>(0xFFFFFFFF00000000ull);

// True if the GUID's entity kind has RTPS's reader bit (0x04; entity kinds in RTPS 9.3.1.2):
// a request's identity naming a reader names the reply reader the server should wait for.
bool is_reader_guid(const Guid & guid);
bool is_unknown_guid(const Guid & guid);

// What a service knows of one request sample besides its payload.
struct RequestSample
{
  Guid writer_guid{};
  int64_t sequence_number = 0;  // the writer's sequence number of the sample
  bool has_related_identity = false;
  Guid related_guid{};
};

// The request id rclcpp gets for a request in the sample-identity form and hands back with the
// reply, as rmw_fastrtps_cpp builds it: the GUID the request's related identity names (the
// client's reply reader) when there is one, else the request writer's; the writer's sequence
// number. The reply then carries exactly this pair as its related sample identity.
rmw_request_id_t request_id_from_identity(const RequestSample & sample);

// The request id for a request in Cyclone's form: the request writer's GUID (which the service
// maps back to the client's handle) and the header's sequence number.
rmw_request_id_t request_id_from_cyclone(const Guid & request_writer, const CycloneHeader & header);

Guid guid_of(const rmw_request_id_t & id);

// True if a reply whose related identity names `related` answers the client with these
// endpoints: rmw_fastrtps_cpp's rule (its reply reader, or its request writer for requesters that
// named none).
bool reply_names_client(
  const Guid & related, const Guid & reply_reader, const Guid & request_writer);
}  // namespace service_format
}  // namespace rmw_hdds

#endif  // RMW_HDDS__DETAIL__SERVICE_FORMAT_HPP_
