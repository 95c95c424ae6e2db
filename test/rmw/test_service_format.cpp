// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// detail/service_format against bytes cut from real traffic (/work/shared/captures, Debian 12,
// Humble, Cyclone DDS 0.10.2 and Fast DDS 2.9.1):
// - ros_cyclone_add_two_ints.pcap: demo_nodes_cpp add_two_ints over rmw_cyclonedds_cpp.
//   Frame 68: the client's SEDP (USER_DATA clientid=), frame 69: the request (a=2, b=3),
//   frame 75: the reply (sum=5); frames 32/34: the server's SEDP (serviceid=).
// - ros_fastrtps_add_two_ints.pcap: the same over rmw_fastrtps_cpp. Frame 80: the request and its
//   inline QoS 0x800f; frame 81: the reply and its 0x800f.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "detail/service_format.hpp"

namespace
{
using rmw_hdds::service_format::CycloneHeader;
using rmw_hdds::service_format::Format;
using rmw_hdds::service_format::Guid;
using rmw_hdds::service_format::RequestSample;
namespace sf = rmw_hdds::service_format;

std::vector<uint8_t> hex(const char * s)
{
  std::vector<uint8_t> out;
  for (size_t i = 0; s[i] != '\0' && s[i + 1] != '\0'; i += 2) {
    out.push_back(static_cast<uint8_t>(std::stoi(std::string(s + i, 2), nullptr, 16)));
  }
  return out;
}

Guid guid(const char * s)
{
  const auto b = hex(s);
  Guid g{};
  EXPECT_EQ(b.size(), g.size());
  std::memcpy(g.data(), b.data(), g.size());
  return g;
}

std::vector<uint8_t> bytes(const std::string & s)
{
  return std::vector<uint8_t>(s.begin(), s.end());
}

// Cyclone frame 69, the DATA's serialized payload: encapsulation CDR_LE, header,
// AddTwoInts_Request.
const char * kCycloneRequest =
  "00010000" "00fcbf2484c4ab58" "0100000000000000" "0200000000000000" "0300000000000000";
// Cyclone frame 75: the server's reply, the same header echoed, AddTwoInts_Response sum = 5.
const char * kCycloneReply = "00010000" "00fcbf2484c4ab58" "0100000000000000" "0500000000000000";
constexpr uint64_t kCycloneClientHandle = 0x58abc48424bffc00ull;

TEST(ServiceFormat, ReadsCycloneRequestHeader)
{
  const auto p = hex(kCycloneRequest);
  CycloneHeader h;
  ASSERT_TRUE(sf::read_cyclone_header(p.data(), p.size(), &h));
  EXPECT_EQ(h.client_handle, kCycloneClientHandle);
  EXPECT_EQ(h.sequence_number, 1);

  std::vector<uint8_t> plain(p.size() - sf::kCycloneHeaderSize);
  sf::remove_cyclone_header(p.data(), p.size(), plain.data());
  EXPECT_EQ(plain, hex("00010000" "0200000000000000" "0300000000000000"));
}

TEST(ServiceFormat, WritesCycloneReplyByteForByte)
{
  // What our type support writes for AddTwoInts_Response{sum = 5}, 16 bytes into the buffer.
  const auto plain = hex("00010000" "0500000000000000");
  std::vector<uint8_t> buf(sf::kCycloneHeaderSize + plain.size());
  std::memcpy(buf.data() + sf::kCycloneHeaderSize, plain.data(), plain.size());
  ASSERT_TRUE(sf::add_cyclone_header(buf.data(), CycloneHeader{kCycloneClientHandle, 1}));
  EXPECT_EQ(buf, hex(kCycloneReply));
}

TEST(ServiceFormat, CycloneHeaderFollowsTheEncapsulationByteOrder)
{
  // A big-endian peer: the header is big-endian too (Cyclone serializes it with the body).
  const auto p = hex("00000000" "58abc48424bffc00" "0000000000000009" "0000000000000005");
  CycloneHeader h;
  ASSERT_TRUE(sf::read_cyclone_header(p.data(), p.size(), &h));
  EXPECT_EQ(h.client_handle, kCycloneClientHandle);
  EXPECT_EQ(h.sequence_number, 9);

  std::vector<uint8_t> buf(sf::kCycloneHeaderSize + 12);
  std::memcpy(buf.data() + sf::kCycloneHeaderSize, hex("00000000" "0000000000000005").data(), 12);
  ASSERT_TRUE(sf::add_cyclone_header(buf.data(), CycloneHeader{kCycloneClientHandle, 9}));
  EXPECT_EQ(buf, p);

  // Negative sequence numbers survive (the header's i64 is two's complement).
  std::vector<uint8_t> neg(sf::kCycloneHeaderSize + 4);
  std::memcpy(neg.data() + sf::kCycloneHeaderSize, hex("00010000").data(), 4);
  ASSERT_TRUE(sf::add_cyclone_header(neg.data(), CycloneHeader{1, -2}));
  ASSERT_TRUE(sf::read_cyclone_header(neg.data(), neg.size(), &h));
  EXPECT_EQ(h.sequence_number, -2);
}

TEST(ServiceFormat, RefusesWhatIsNotACycloneRequest)
{
  CycloneHeader h{7, 7};
  const auto short_payload = hex("00010000" "00fcbf2484c4ab58" "01000000000000");  // 19 bytes
  EXPECT_FALSE(sf::read_cyclone_header(short_payload.data(), short_payload.size(), &h));
  const auto pl_cdr = hex("00030000" "00fcbf2484c4ab58" "0100000000000000");
  EXPECT_FALSE(sf::read_cyclone_header(pl_cdr.data(), pl_cdr.size(), &h));
  EXPECT_FALSE(sf::read_cyclone_header(nullptr, 0, &h));
  EXPECT_EQ(h.client_handle, 7u);
  EXPECT_EQ(h.sequence_number, 7);

  std::vector<uint8_t> buf(sf::kCycloneHeaderSize + 4, 0xee);
  std::memcpy(buf.data() + sf::kCycloneHeaderSize, hex("00030000").data(), 4);
  const auto before = buf;
  EXPECT_FALSE(sf::add_cyclone_header(buf.data(), CycloneHeader{1, 1}));
  EXPECT_EQ(buf, before);
}

TEST(ServiceFormat, CycloneClientHandleIsStableAndDistinct)
{
  const Guid a = guid("01f0000000010000000200030000a503");
  Guid b = a;
  b[15] = 0x04;
  EXPECT_EQ(sf::cyclone_client_handle(a), sf::cyclone_client_handle(a));
  EXPECT_NE(sf::cyclone_client_handle(a), sf::cyclone_client_handle(b));
  EXPECT_NE(sf::cyclone_client_handle(Guid{}), 0u);
}

TEST(ServiceFormat, PairingUserDataIsCyclonesText)
{
  // Cyclone frame 68: the client's participant prefix 0110b642b249d897a4373645, counter 7.
  const Guid client_participant = guid("0110b642b249d897a4373645000001c1");
  EXPECT_EQ(
    sf::pairing_user_data(false, sf::make_pairing_id(client_participant, 7)),
    "clientid= 1.10.b6.42.b2.49.d8.97.a4.37.36.45.0.0.0.7;");
  // Frames 32/34: the server's, prefix 01109621607ee89401b6c9ba.
  const Guid server_participant = guid("01109621607ee89401b6c9ba000001c1");
  EXPECT_EQ(
    sf::pairing_user_data(true, sf::make_pairing_id(server_participant, 7)),
    "serviceid= 1.10.96.21.60.7e.e8.94.1.b6.c9.ba.0.0.0.7;");
  // Counters past one byte are big-endian in the last four bytes; a first byte >= 0x10 takes
  // the full width.
  EXPECT_EQ(
    sf::pairing_user_data(
      true, sf::make_pairing_id(guid("f00102030405060708090a0b00000000"), 0x01020304)),
    "serviceid=f0.1.2.3.4.5.6.7.8.9.a.b.1.2.3.4;");
}

TEST(ServiceFormat, ReadsUserDataValues)
{
  const auto client = bytes("clientid= 1.10.b6.42.b2.49.d8.97.a4.37.36.45.0.0.0.7;");
  auto v = sf::user_data_value(client.data(), client.size(), sf::kClientIdKey);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(*v, " 1.10.b6.42.b2.49.d8.97.a4.37.36.45.0.0.0.7");
  EXPECT_FALSE(sf::user_data_value(client.data(), client.size(), sf::kServiceIdKey).has_value());

  // With a trailing NUL, and among other pairs.
  auto with_nul = bytes("enclave=/;serviceid=ab.1;");
  with_nul.push_back(0);
  v = sf::user_data_value(with_nul.data(), with_nul.size(), sf::kServiceIdKey);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(*v, "ab.1");

  // Not ROS's key=value format, or empty: nothing.
  const auto junk = bytes("\x01\x02=;;");
  EXPECT_FALSE(sf::user_data_value(junk.data(), junk.size(), sf::kClientIdKey).has_value());
  EXPECT_FALSE(sf::user_data_value(nullptr, 0, sf::kClientIdKey).has_value());
}

TEST(ServiceFormat, VendorsChooseTheirFormat)
{
  EXPECT_EQ(sf::format_of_vendor(sf::kVendorCyclone), Format::kCycloneHeader);
  EXPECT_EQ(sf::format_of_vendor(sf::kVendorFastDds), Format::kSampleIdentity);
  EXPECT_EQ(sf::format_of_vendor({0x01, 0xf0}), Format::kSampleIdentity);  // rmw_hdds
  EXPECT_EQ(sf::format_of_vendor({0x01, 0x01}), Format::kSampleIdentity);  // RTI Connext
  // The GUID prefixes in the captures start with the vendor id.
  EXPECT_EQ(sf::vendor_of_guid(guid("0110b642b249d897a437364500001503")), sf::kVendorCyclone);
  EXPECT_EQ(sf::vendor_of_guid(guid("010f7f01f661b8e90000000000001303")), sf::kVendorFastDds);
}

// Fast DDS frame 80: request writer 010f7f01f661b8e9 00000000 00001303, SN 1; inline QoS 0x800f =
// 010f7f01f661b8e90000000000001204 ffffffff 00000000 (the client's reply reader, SN unknown).
// Frame 81: the reply's 0x800f = 010f7f01f661b8e90000000000001204 00000000 01000000.
TEST(ServiceFormat, FastDdsRequestNamesTheReplyReader)
{
  const auto request_identity = hex("010f7f01f661b8e90000000000001204" "ffffffff00000000");
  Guid related;
  std::memcpy(related.data(), request_identity.data(), 16);
  int32_t high;
  uint32_t low;
  // The wire's {high, low} as one int64 (shifting a negative `high` left is UB before C++20).
  const auto sn_of = [](int32_t h, uint32_t l) {
    return static_cast<int64_t>((uint64_t{static_cast<uint32_t>(h)} << 32) | l);
  };
  std::memcpy(&high, request_identity.data() + 16, 4);  // little-endian submessage, LE host
  std::memcpy(&low, request_identity.data() + 20, 4);
  EXPECT_EQ(sn_of(high, low), sf::kSequenceNumberUnknown);
  EXPECT_TRUE(sf::is_reader_guid(related));

  RequestSample s;
  s.writer_guid = guid("010f7f01f661b8e90000000000001303");
  s.sequence_number = 1;
  s.has_related_identity = true;
  s.related_guid = related;
  EXPECT_FALSE(sf::is_reader_guid(s.writer_guid));
  const rmw_request_id_t id = sf::request_id_from_identity(s);
  EXPECT_EQ(sf::guid_of(id), related);
  EXPECT_EQ(id.sequence_number, 1);

  // The reply carries exactly that pair (frame 81), which the client accepts.
  const auto reply_identity = hex("010f7f01f661b8e90000000000001204" "0000000001000000");
  std::memcpy(&high, reply_identity.data() + 16, 4);
  std::memcpy(&low, reply_identity.data() + 20, 4);
  EXPECT_EQ(0, std::memcmp(reply_identity.data(), id.writer_guid, 16));
  EXPECT_EQ(sn_of(high, low), id.sequence_number);
  EXPECT_TRUE(sf::reply_names_client(sf::guid_of(id), related, s.writer_guid));
  EXPECT_FALSE(
    sf::reply_names_client(guid("010f7f01f661b8e90000000000001104"), related, s.writer_guid));
}

TEST(ServiceFormat, RequestWithoutRelatedIdentityNamesItsWriter)
{
  RequestSample s;
  s.writer_guid = guid("0110b642b249d897a437364500001503");
  s.sequence_number = 42;
  EXPECT_EQ(sf::guid_of(sf::request_id_from_identity(s)), s.writer_guid);
  // An identity naming GUID_UNKNOWN counts as none (rmw_fastrtps_cpp does the same).
  s.has_related_identity = true;
  EXPECT_EQ(sf::guid_of(sf::request_id_from_identity(s)), s.writer_guid);
  EXPECT_EQ(sf::request_id_from_identity(s).sequence_number, 42);
  // A requester naming its writer is answered with its writer (the client accepts both).
  EXPECT_TRUE(sf::reply_names_client(s.writer_guid, Guid{}, s.writer_guid));
}

TEST(ServiceFormat, CycloneRequestIdIsWriterAndHeaderSequence)
{
  const auto p = hex(kCycloneRequest);
  CycloneHeader h;
  ASSERT_TRUE(sf::read_cyclone_header(p.data(), p.size(), &h));
  const Guid writer = guid("0110b642b249d897a437364500001503");
  const rmw_request_id_t id = sf::request_id_from_cyclone(writer, h);
  EXPECT_EQ(sf::guid_of(id), writer);
  EXPECT_EQ(id.sequence_number, 1);
}
}  // namespace

