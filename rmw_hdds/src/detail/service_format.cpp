// Copyright 2026 The rmw_hdds authors. Apache-2.0.
#include "detail/service_format.hpp"

#include <cstdio>
#include <cstring>
#include <map>
#include <vector>

#include "rmw/impl/cpp/key_value.hpp"

namespace rmw_hdds
{
namespace service_format
{
namespace
{
// CDR encapsulation identifiers (first two bytes of a payload, big-endian on the wire).
constexpr uint8_t kCdrBigEndian[2] = {0x00, 0x00};
constexpr uint8_t kCdrLittleEndian[2] = {0x00, 0x01};

// 1 = little-endian, 0 = big-endian, -1 = not plain CDR.
int cdr_byte_order(const uint8_t * encapsulation)
{
  if (std::memcmp(encapsulation, kCdrLittleEndian, 2) == 0) {
    return 1;
  }
  if (std::memcmp(encapsulation, kCdrBigEndian, 2) == 0) {
    return 0;
  }
  return -1;
}

uint64_t load_u64(const uint8_t * p, bool little_endian)
{
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) {
    const uint64_t byte = p[little_endian ? 7 - i : i];
    v = (v << 8) | byte;
  }
  return v;
}

void store_u64(uint8_t * p, uint64_t v, bool little_endian)
{
  for (int i = 0; i < 8; i++) {
    const auto byte = static_cast<uint8_t>(v >> (8 * i));
    p[little_endian ? i : 7 - i] = byte;
  }
}
}  // namespace

Format format_of_vendor(const VendorId & vendor)
{
  return vendor == kVendorCyclone ? Format::kCycloneHeader : Format::kSampleIdentity;
}

VendorId vendor_of_guid(const Guid & guid)
{
  return {guid[0], guid[1]};
}

bool read_cyclone_header(const uint8_t * payload, size_t len, CycloneHeader * out)
{
  if (payload == nullptr || len < kCycloneHeaderEnd) {
    return false;
  }
  const int order = cdr_byte_order(payload);
  if (order < 0) {
    return false;
  }
  out->client_handle = load_u64(payload + 4, order == 1);
  out->sequence_number = static_cast<int64_t>(load_u64(payload + 12, order == 1));
  return true;
}

bool add_cyclone_header(uint8_t * buf, const CycloneHeader & header)
{
  const int order = cdr_byte_order(buf + kCycloneHeaderSize);
  if (order < 0) {
    return false;
  }
  // buf[16..20] (the encapsulation) is read before buf[12..20] is overwritten.
  std::memmove(buf, buf + kCycloneHeaderSize, 4);
  store_u64(buf + 4, header.client_handle, order == 1);
  store_u64(buf + 12, static_cast<uint64_t>(header.sequence_number), order == 1);
  return true;
}

void remove_cyclone_header(const uint8_t * payload, size_t len, uint8_t * plain)
{
  std::memcpy(plain, payload, 4);
  std::memcpy(plain + 4, payload + kCycloneHeaderEnd, len - kCycloneHeaderEnd);
}

uint64_t cyclone_client_handle(const Guid & request_writer)
{
  // FNV-1a, 64 bits.
  uint64_t h = 0xcbf29ce484222325ull;
  for (uint8_t b : request_writer) {
    h ^= b;
    h *= 0x100000001b3ull;
  }
  return h == 0 ? 1 : h;
}

Guid make_pairing_id(const Guid & participant_guid, uint32_t counter)
{
  Guid id{};
  std::memcpy(id.data(), participant_guid.data(), 12);
  for (size_t i = 0; i < 4; i++) {
    id[12 + i] = static_cast<uint8_t>(counter >> (24 - 8 * i));
  }
  return id;
}

std::string pairing_user_data(bool is_service, const Guid & id)
{
  std::string s = is_service ? "serviceid=" : "clientid=";
  char part[4];
  // rmw_cyclonedds_cpp: std::hex, setw(2) on the first byte only, '.' between bytes.
  std::snprintf(part, sizeof(part), "%2x", id[0]);
  s += part;
  for (size_t i = 1; i < id.size(); i++) {
    std::snprintf(part, sizeof(part), ".%x", id[i]);
    s += part;
  }
  s += ';';
  return s;
}

std::optional<std::string> user_data_value(
  const uint8_t * user_data, size_t len, const char * key)
{
  if (user_data == nullptr || len == 0) {
    return std::nullopt;
  }
  const auto map =
    rmw::impl::cpp::parse_key_value(std::vector<uint8_t>(user_data, user_data + len));
  const auto it = map.find(key);
  if (it == map.end()) {
    return std::nullopt;
  }
  return std::string(it->second.begin(), it->second.end());
}

bool is_reader_guid(const Guid & guid)
{
  constexpr uint8_t kReaderBit = 0x04;
  return (guid[15] & kReaderBit) != 0;
}

bool is_unknown_guid(const Guid & guid)
{
  return guid == Guid{};
}

rmw_request_id_t request_id_from_identity(const RequestSample & sample)
{
  rmw_request_id_t id{};
  const Guid & named =
    sample.has_related_identity && !is_unknown_guid(sample.related_guid) ?
    sample.related_guid : sample.writer_guid;
  std::memcpy(id.writer_guid, named.data(), named.size());
  id.sequence_number = sample.sequence_number;
  return id;
}

rmw_request_id_t request_id_from_cyclone(const Guid & request_writer, const CycloneHeader & header)
{
  rmw_request_id_t id{};
  std::memcpy(id.writer_guid, request_writer.data(), request_writer.size());
  id.sequence_number = header.sequence_number;
  return id;
}

Guid guid_of(const rmw_request_id_t & id)
{
  static_assert(sizeof(id.writer_guid) == sizeof(Guid), "a request id names a 16-byte GUID");
  Guid g;
  std::memcpy(g.data(), id.writer_guid, g.size());
  return g;
}

bool reply_names_client(
  const Guid & related, const Guid & reply_reader, const Guid & request_writer)
{
  return related == reply_reader || related == request_writer;
}
}  // namespace service_format
}  // namespace rmw_hdds
