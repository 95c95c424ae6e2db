// Interop peer on eProsima Fast DDS 2.9.1 (Debian's libfastrtps-dev), C++ DDS API.
// CLI, payload and success rule: ../common/peer_common.h (and --help).
// The types come from ../idl/interop.idl through fastddsgen 2.3.0 at build time
// (interop.h/.cxx, interopPubSubTypes.h/.cxx).
// The participant is created from the profile "hdds_interop_loopback" of the loopback-only XML
// file (default: the one in test/interop/config; --config FILE loads another file with a profile
// of that name). Environment profiles (FASTRTPS_DEFAULT_PROFILES_FILE) are not used for it.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include <fastdds/dds/domain/DomainParticipant.hpp>
#include <fastdds/dds/domain/DomainParticipantFactory.hpp>
#include <fastdds/dds/publisher/DataWriter.hpp>
#include <fastdds/dds/publisher/Publisher.hpp>
#include <fastdds/dds/publisher/qos/DataWriterQos.hpp>
#include <fastdds/dds/subscriber/DataReader.hpp>
#include <fastdds/dds/subscriber/SampleInfo.hpp>
#include <fastdds/dds/subscriber/Subscriber.hpp>
#include <fastdds/dds/subscriber/qos/DataReaderQos.hpp>
#include <fastdds/dds/topic/Topic.hpp>
#include <fastdds/dds/topic/TypeSupport.hpp>
#include <fastdds/rtps/flowcontrol/FlowControllerDescriptor.hpp>

#include "fastdds_loopback.hpp"
#include "interopPubSubTypes.h"
#include "peer_common.h"

using namespace eprosima::fastdds::dds;
using eprosima::fastrtps::Duration_t;
using hdds_fastdds::fail;

namespace {

constexpr const char *kFlowController = "hdds_interop_large";
// Samples whose CDR form exceeds one UDP datagram (64 KiB) are fragmented. Fast DDS documents
// ASYNCHRONOUS_PUBLISH_MODE (with a flow controller) for large data, so in --publish-mode auto such
// writers get it. (Debian's 2.9.1 also fragmented 4 MiB samples from a synchronous writer in our
// runs: --publish-mode sync keeps that testable.)
constexpr uint32_t kAsyncAbove = 64000;

Duration_t to_duration(double s)
{
  if (s < 0) s = 0;
  return Duration_t(s);
}

// Fast DDS-only options (stripped before the common parser): --no-heartbeat-prime (see run_pub)
// and --publish-mode auto|sync|async.
bool g_heartbeat_prime = true;
enum class PublishMode { Auto, Sync, Async } g_publish_mode = PublishMode::Auto;

bool needs_async(const peer_opts &o)
{
  if (g_publish_mode != PublishMode::Auto) return g_publish_mode == PublishMode::Async;
  return o.size + 16u > kAsyncAbove;
}

template <class Qos>
void set_common_qos(Qos &q, const peer_opts &o)
{
  q.reliability().kind = o.reliable ? RELIABLE_RELIABILITY_QOS : BEST_EFFORT_RELIABILITY_QOS;
  q.reliability().max_blocking_time = Duration_t(1, 0);
  q.durability().kind = o.transient_local ? TRANSIENT_LOCAL_DURABILITY_QOS : VOLATILE_DURABILITY_QOS;
  q.history().kind = o.keep_all ? KEEP_ALL_HISTORY_QOS : KEEP_LAST_HISTORY_QOS;
  q.history().depth = o.keep_all ? 1 : o.depth;
  // Room for the whole run per instance (the defaults, 5000 samples and 400 per instance, would
  // cut a transient-local history); consistent: max_samples >= max_instances * per_instance.
  int32_t per_instance = static_cast<int32_t>(std::max<uint32_t>(o.count, 400u)) + 16;
  if (!o.keep_all) per_instance = std::max(per_instance, o.depth);
  int32_t instances = static_cast<int32_t>(o.keys) + 4;
  q.resource_limits().max_instances = instances;
  q.resource_limits().max_samples_per_instance = per_instance;
  q.resource_limits().max_samples = per_instance * instances;
  q.resource_limits().allocated_samples = 100;
  // Unbounded sequence<octet>: payloads grow as needed; no data sharing (it would be shared memory).
  q.endpoint().history_memory_policy = eprosima::fastrtps::rtps::PREALLOCATED_WITH_REALLOC_MEMORY_MODE;
  q.data_sharing().off();
}

class Samples {
public:
  explicit Samples(const peer_opts &o) : o_(o) {}
  void *make(uint32_t seq)
  {
    uint32_t id = peer_id_for_seq(&o_, seq);
    std::vector<uint8_t> &d = o_.keyed ? kblob_.data() : blob_.data();
    d.resize(o_.size);
    peer_payload_fill(d.data(), o_.size, seq, id);
    if (o_.keyed) {
      kblob_.id(id);
      kblob_.seq(seq);
      return &kblob_;
    }
    blob_.seq(seq);
    return &blob_;
  }
  void *buffer() { return o_.keyed ? static_cast<void *>(&kblob_) : static_cast<void *>(&blob_); }
  void record(peer_rx &rx) const
  {
    if (o_.keyed)
      peer_rx_record(&rx, kblob_.seq(), kblob_.id(), kblob_.data().data(), static_cast<uint32_t>(kblob_.data().size()));
    else
      peer_rx_record(&rx, blob_.seq(), 0, blob_.data().data(), static_cast<uint32_t>(blob_.data().size()));
  }

private:
  const peer_opts &o_;
  hdds::interop::Blob blob_;
  hdds::interop::KeyedBlob kblob_;
};

int run_pub(const peer_opts &o, DomainParticipant *pp, Topic *tp, double deadline)
{
  Publisher *pub = pp->create_publisher(PUBLISHER_QOS_DEFAULT);
  if (!pub) fail("create_publisher failed");
  DataWriterQos wq = DATAWRITER_QOS_DEFAULT;
  set_common_qos(wq, o);
  // Heartbeat every 100 ms (default 3 s): a reader that got everything acknowledges within
  // ~100 ms, before it leaves. Fast DDS 2.9 ignores Cyclone's endpoint/participant disposes
  // (serialized key, no PID_KEY_HASH), so a Cyclone reader that left without acknowledging
  // stays matched, and wait_for_acknowledgments blocks, until its lease (10 s) expires.
  wq.reliable_writer_qos().times.heartbeatPeriod = Duration_t(0, 100000000);
  if (o.reliable && g_heartbeat_prime) {
    // MANUAL_BY_TOPIC (lease infinite) only so that assert_liveliness() sends a HEARTBEAT on
    // demand: see the priming before the first write.
    wq.liveliness().kind = MANUAL_BY_TOPIC_LIVELINESS_QOS;
  }
  if (needs_async(o)) {
    wq.publish_mode().kind = ASYNCHRONOUS_PUBLISH_MODE;
    wq.publish_mode().flow_controller_name = kFlowController;
  }
  DataWriter *wr = pub->create_datawriter(tp, wq);
  if (!wr) fail("create_datawriter failed (QoS rejected?)");

  PublicationMatchedStatus st;
  uint32_t max_matched = 0;
  auto poll_matched = [&]() {
    if (wr->get_publication_matched_status(st) == ReturnCode_t::RETCODE_OK && st.current_count > 0 &&
        static_cast<uint32_t>(st.current_count) > max_matched)
      max_matched = static_cast<uint32_t>(st.current_count);
  };
  poll_matched();
  while (max_matched < o.wait_matched && peer_now() < deadline && !peer_stop_requested()) {
    peer_sleep(0.01);
    poll_matched();
  }
  if (max_matched < o.wait_matched) {
    std::fprintf(stderr, "fastdds_peer: pub: only %u of %u readers matched before the timeout\n", max_matched,
                 o.wait_matched);
    std::printf("WRITTEN written=0\nSUMMARY written=0 matched=%u\n", max_matched);
    return 1;
  }
  if (!peer_wait_start_file(&o, deadline)) {
    std::fprintf(stderr, "fastdds_peer: pub: --start-file %s did not appear before the timeout\n", o.start_file);
    std::printf("WRITTEN written=0\nSUMMARY written=0 matched=%u\n", max_matched);
    return 1;
  }
  if (o.settle > 0) peer_sleep(o.settle);
  if (o.reliable && g_heartbeat_prime) {
    // A Cyclone DDS volatile reader matched to a non-Cyclone writer starts "in sync" and, on the
    // first HEARTBEAT it sees, skips everything up to that heartbeat's last sequence number, so a
    // sample still in flight (a fragmented one, typically) is dropped and acknowledged. Fast DDS
    // sends its first heartbeat when it matches the reader, which may be before the reader knows
    // the writer (then it is dropped), and otherwise only with data. Send one now, while the
    // history is empty (HEARTBEAT 1..0), so every matched reader has seen one before sample 1.
    if (wr->assert_liveliness() != ReturnCode_t::RETCODE_OK)
      std::fprintf(stderr, "fastdds_peer: pub: assert_liveliness failed (no heartbeat prime)\n");
    peer_sleep(0.05);
  }

  Samples samples(o);
  bool ok = true;
  uint32_t written = 0;
  double t0 = peer_now();
  for (uint32_t seq = 1; seq <= o.count && peer_now() < deadline && !peer_stop_requested(); seq++) {
    if (o.rate > 0) peer_sleep(t0 + static_cast<double>(seq - 1) / o.rate - peer_now());
    void *s = samples.make(seq);
    // A reliable KEEP_ALL writer blocks up to max_blocking_time (1 s) when its history is full
    // and then returns false: retry until the deadline.
    bool w = false;
    while (!(w = wr->write(s)) && peer_now() < deadline && !peer_stop_requested()) {}
    if (!w) {
      std::fprintf(stderr, "fastdds_peer: pub: write seq=%u failed until the timeout\n", seq);
      ok = false;
      break;
    }
    written++;
    poll_matched();
  }
  std::printf("WRITTEN written=%u\n", written);
  std::fflush(stdout);
  if (written != o.count) ok = false;

  if (o.reliable && written > 0) {
    double left = deadline - peer_now();
    if (left <= 0 || wr->wait_for_acknowledgments(to_duration(left)) != ReturnCode_t::RETCODE_OK) {
      std::fprintf(stderr, "fastdds_peer: pub: not every matched reader acknowledged before the timeout\n");
      ok = false;
    }
  }
  double linger_end = std::min(peer_now() + o.linger, deadline);
  while (peer_now() < linger_end && !peer_stop_requested()) {
    peer_sleep(0.05);
    poll_matched();
  }
  poll_matched();
  std::printf("SUMMARY written=%u matched=%u\n", written, max_matched);
  std::fflush(stdout);
  pub->delete_datawriter(wr);
  pp->delete_publisher(pub);
  return ok ? 0 : 1;
}

int run_sub(const peer_opts &o, DomainParticipant *pp, Topic *tp, double deadline)
{
  Subscriber *sub = pp->create_subscriber(SUBSCRIBER_QOS_DEFAULT);
  if (!sub) fail("create_subscriber failed");
  DataReaderQos rq = DATAREADER_QOS_DEFAULT;
  set_common_qos(rq, o);
  DataReader *rd = sub->create_datareader(tp, rq);
  if (!rd) fail("create_datareader failed (QoS rejected?)");

  peer_rx rx;
  peer_rx_init(&rx, &o);
  Samples samples(o);
  SampleInfo info;
  int ready = 0;
  SubscriptionMatchedStatus st;
  while (!peer_rx_done(&rx)) {
    double left = deadline - peer_now();
    if (left <= 0) break;
    if (o.ready_file && !ready && rd->get_subscription_matched_status(st) == ReturnCode_t::RETCODE_OK)
      peer_sub_ready(&o, static_cast<uint32_t>(std::max(st.current_count, 0)), &ready);
    rd->wait_for_unread_message(to_duration(std::min(left, 0.1)));
    while (rd->take_next_sample(samples.buffer(), &info) == ReturnCode_t::RETCODE_OK) {
      if (info.valid_data) samples.record(rx);
      if (peer_rx_done(&rx)) break;
    }
  }
  peer_rx_linger(&rx, deadline);
  if (rd->get_subscription_matched_status(st) == ReturnCode_t::RETCODE_OK)
    std::fprintf(stderr, "fastdds_peer: sub: matched writers now=%d total=%d\n", st.current_count, st.total_count);
  int rc = peer_rx_finish(&rx);
  sub->delete_datareader(rd);
  pp->delete_subscriber(sub);
  return rc;
}

}  // namespace

int main(int argc, char **argv)
{
  hdds_fastdds::peer_name() = "fastdds_peer";
  // Strip the Fast DDS-only option before the common parser sees the arguments.
  int n = 1;
  for (int i = 1; i < argc; i++) {
    if (!std::strcmp(argv[i], "--no-heartbeat-prime")) g_heartbeat_prime = false;
    else if (!std::strcmp(argv[i], "--publish-mode") && i + 1 < argc) {
      const char *m = argv[++i];
      if (!std::strcmp(m, "auto")) g_publish_mode = PublishMode::Auto;
      else if (!std::strcmp(m, "sync")) g_publish_mode = PublishMode::Sync;
      else if (!std::strcmp(m, "async")) g_publish_mode = PublishMode::Async;
      else fail(std::string("--publish-mode must be auto, sync or async, not ") + m);
    }
    else argv[n++] = argv[i];
  }
  argc = n;
  for (int i = 1; i < argc; i++) {
    if (!std::strcmp(argv[i], "-h") || !std::strcmp(argv[i], "--help")) {
      std::printf(
        "Fast DDS peer specifics:\n"
        "  A reliable writer announces MANUAL_BY_TOPIC liveliness (lease infinite) and, after the\n"
        "  match and --settle, calls assert_liveliness() to send a HEARTBEAT (1..0) before sample 1:\n"
        "  Cyclone DDS volatile readers otherwise drop what a non-Cyclone writer sent before the\n"
        "  first heartbeat they see. --no-heartbeat-prime: AUTOMATIC liveliness, no such heartbeat.\n"
        "  --publish-mode auto|sync|async: auto (default) = ASYNCHRONOUS_PUBLISH_MODE with a FIFO\n"
        "  flow controller for samples over 64000 bytes, synchronous below.\n"
        "  Writer heartbeat period 100 ms. No data sharing; unbounded payloads reallocate.\n\n");
    }
  }
  peer_opts o;
  peer_parse_args(&o, argc, argv, "Fast DDS 2.9 C++", HDDS_INTEROP_FASTDDS_CONFIG);
  double deadline = peer_now() + o.timeout;
  peer_install_signal_handlers();

  DomainParticipantFactory *factory = DomainParticipantFactory::get_instance();
  DomainParticipantQos pqos = hdds_fastdds::loopback_participant_qos(o.config);
  if (o.is_pub && needs_async(o)) {
    // Paces the fragments of large samples so that a reader's socket buffer is not overrun
    // (lost fragments are repaired by NACK_FRAG, but every loss costs a heartbeat period).
    auto fc = std::make_shared<eprosima::fastdds::rtps::FlowControllerDescriptor>();
    fc->name = kFlowController;
    fc->scheduler = eprosima::fastdds::rtps::FlowControllerSchedulerPolicy::FIFO;
    fc->max_bytes_per_period = 0;  // 0: no limit (asynchronous sending only)
    fc->period_ms = 100;
    pqos.flow_controllers().push_back(fc);
  }
  DomainParticipant *pp = factory->create_participant(o.domain, pqos);
  if (!pp) fail("create_participant failed");

  TypeSupport type(o.keyed ? static_cast<eprosima::fastdds::dds::TopicDataType *>(new hdds::interop::KeyedBlobPubSubType())
                           : static_cast<eprosima::fastdds::dds::TopicDataType *>(new hdds::interop::BlobPubSubType()));
  if (type.register_type(pp) != ReturnCode_t::RETCODE_OK) fail("register_type failed");
  Topic *tp = pp->create_topic(o.topic, type.get_type_name(), TOPIC_QOS_DEFAULT);
  if (!tp) fail("create_topic failed");

  int rc = o.is_pub ? run_pub(o, pp, tp, deadline) : run_sub(o, pp, tp, deadline);
  pp->delete_topic(tp);
  factory->delete_participant(pp);
  return rc;
}
