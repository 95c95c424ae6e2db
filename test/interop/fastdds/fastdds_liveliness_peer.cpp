// LIVELINESS interop peer on eProsima Fast DDS 2.9.1 (Debian's libfastrtps-dev): one writer or
// reader of hdds::interop::Blob, which test/interop/run_liveliness.py drives and judges. Same
// command line and output as ../cyclone/cyclone_liveliness_peer.c and hdds-liveliness-peer:
//
//   fastdds_liveliness_peer writer|reader --domain D --topic T --lease-ms L
//                           [--kind topic|participant|automatic]
//                           [--assert-ms P] [--assert-for S] [--timeout S] [--config FILE]
//
// writer, MANUAL_BY_TOPIC / MANUAL_BY_PARTICIPANT: waits for a reader, asserts every P ms for S s
//   without writing (DataWriter::assert_liveliness, a HEARTBEAT with the Liveliness flag;
//   DomainParticipant::assert_liveliness, a ParticipantMessageData MANUAL_LIVELINESS_UPDATE), stops
//   for 3 leases, writes one sample, and after half a lease deletes the writer. Prints
//   MATCHED / ASSERTED_UNTIL / WROTE / DELETED t=<CLOCK_REALTIME seconds>.
// writer, AUTOMATIC: waits for a reader, writes nothing for S s and 3 leases, prints IDLE_UNTIL,
//   then KILLED and ends the process at once (_exit: no goodbye, as a crash).
// reader: prints every change of LIVELINESS_CHANGED as LIVELINESS alive=A not_alive=N t=<seconds>
//   and stops once the writer it matched is gone (AUTOMATIC: once it is not alive) or at
//   --timeout. Exit 0 unless a DDS call failed (2) or the timeout came (1).
// The writer's announcement period (how often Fast DDS's writer liveliness protocol asserts an
// AUTOMATIC or MANUAL_BY_PARTICIPANT writer) is a third of the lease; Fast DDS wants it shorter
// than the lease. Loopback only: the participant comes from the profile "hdds_interop_loopback".
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <thread>

#include <unistd.h>

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

#include "fastdds_loopback.hpp"
#include "interopPubSubTypes.h"

using namespace eprosima::fastdds::dds;
using eprosima::fastrtps::Duration_t;
using hdds_fastdds::fail;

namespace {

double wall()
{
  timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

double mono()
{
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

void nap(double s)
{
  if (s > 0) std::this_thread::sleep_for(std::chrono::duration<double>(s));
}

void say(const char *what)
{
  std::printf("%s t=%.6f\n", what, wall());
  std::fflush(stdout);
}

void check(ReturnCode_t rc, const char *what)
{
  if (rc != ReturnCode_t::RETCODE_OK) fail(std::string(what) + " failed");
}

[[noreturn]] void usage()
{
  std::fprintf(stderr,
               "usage: fastdds_liveliness_peer writer|reader --domain D --topic T --lease-ms L "
               "[--kind topic|participant|automatic] [--assert-ms P] [--assert-for S] [--timeout S] [--config FILE]\n");
  std::exit(2);
}

template <class Qos>
void set_qos(Qos &q, LivelinessQosPolicyKind kind, double lease)
{
  q.reliability().kind = RELIABLE_RELIABILITY_QOS;
  q.reliability().max_blocking_time = Duration_t(1, 0);
  q.liveliness().kind = kind;
  q.liveliness().lease_duration = Duration_t(lease);
  q.liveliness().announcement_period = Duration_t(lease / 3);
}

int run_writer(DomainParticipant *pp, Topic *tp, LivelinessQosPolicyKind kind, double lease, double assert_every,
               double assert_for, double end)
{
  Publisher *pub = pp->create_publisher(PUBLISHER_QOS_DEFAULT);
  if (!pub) fail("create_publisher failed");
  DataWriterQos q = DATAWRITER_QOS_DEFAULT;
  set_qos(q, kind, lease);
  DataWriter *wr = pub->create_datawriter(tp, q);
  if (!wr) fail("create_datawriter failed");
  PublicationMatchedStatus st;
  do {
    check(wr->get_publication_matched_status(st), "get_publication_matched_status");
    if (st.current_count > 0) break;
    nap(0.01);
  } while (mono() < end);
  if (st.current_count == 0) {
    std::fprintf(stderr, "fastdds_liveliness_peer: writer: no reader matched before the timeout\n");
    return 1;
  }
  say("MATCHED");
  if (kind == AUTOMATIC_LIVELINESS_QOS) {
    nap(assert_for + 3 * lease);
    say("IDLE_UNTIL");
    say("KILLED");
    _exit(0);
  }
  nap(0.3);
  double until = mono() + assert_for;
  auto assert_once = [&]() {
    if (kind == MANUAL_BY_PARTICIPANT_LIVELINESS_QOS) check(pp->assert_liveliness(), "assert_liveliness (participant)");
    else check(wr->assert_liveliness(), "assert_liveliness (writer)");
  };
  while (mono() < until) {
    assert_once();
    nap(assert_every);
  }
  assert_once();
  say("ASSERTED_UNTIL");
  nap(3 * lease);
  hdds::interop::Blob s;
  s.seq(1);
  if (!wr->write(&s)) fail("write failed");
  say("WROTE");
  nap(lease / 2);
  check(pub->delete_datawriter(wr), "delete_datawriter");
  say("DELETED");
  nap(1.0);  // the disposal goes out
  pp->delete_publisher(pub);
  return 0;
}

int run_reader(DomainParticipant *pp, Topic *tp, LivelinessQosPolicyKind kind, double lease, double end)
{
  Subscriber *sub = pp->create_subscriber(SUBSCRIBER_QOS_DEFAULT);
  if (!sub) fail("create_subscriber failed");
  DataReaderQos q = DATAREADER_QOS_DEFAULT;
  set_qos(q, kind, lease);
  DataReader *rd = sub->create_datareader(tp, q);
  if (!rd) fail("create_datareader failed");
  LivelinessChangedStatus last{}, now{};
  SubscriptionMatchedStatus m{};
  bool was_matched = false;
  hdds::interop::Blob s;
  SampleInfo info;
  while (mono() < end) {
    check(rd->get_liveliness_changed_status(now), "get_liveliness_changed_status");
    if (now.alive_count != last.alive_count || now.not_alive_count != last.not_alive_count) {
      std::printf("LIVELINESS alive=%d not_alive=%d t=%.6f\n", now.alive_count, now.not_alive_count, wall());
      std::fflush(stdout);
      last = now;
    }
    check(rd->get_subscription_matched_status(m), "get_subscription_matched_status");
    if (m.current_count > 0) was_matched = true;
    bool lost = kind == AUTOMATIC_LIVELINESS_QOS && was_matched && now.not_alive_count > 0;
    if (lost || (was_matched && m.current_count == 0 && now.alive_count == 0 && now.not_alive_count == 0)) {
      say("GONE");
      sub->delete_datareader(rd);
      pp->delete_subscriber(sub);
      return 0;
    }
    while (rd->take_next_sample(&s, &info) == ReturnCode_t::RETCODE_OK) {
    }
    nap(0.002);
  }
  std::fprintf(stderr, "fastdds_liveliness_peer: reader: the writer did not come and go before the timeout\n");
  return 1;
}

}  // namespace

int main(int argc, char **argv)
{
  hdds_fastdds::peer_name() = "fastdds_liveliness_peer";
  if (argc < 2) usage();
  bool is_writer = std::strcmp(argv[1], "writer") == 0;
  if (!is_writer && std::strcmp(argv[1], "reader") != 0) usage();
  long domain = 0, lease_ms = 0, assert_ms = 100;
  double assert_for = 2.0, timeout = 20.0;
  const char *topic = nullptr, *config = HDDS_INTEROP_FASTDDS_CONFIG;
  LivelinessQosPolicyKind kind = MANUAL_BY_TOPIC_LIVELINESS_QOS;
  for (int i = 2; i < argc; i++) {
    if (i + 1 >= argc) usage();
    const char *k = argv[i], *v = argv[++i];
    if (std::strcmp(k, "--domain") == 0) domain = std::atol(v);
    else if (std::strcmp(k, "--topic") == 0) topic = v;
    else if (std::strcmp(k, "--lease-ms") == 0) lease_ms = std::atol(v);
    else if (std::strcmp(k, "--assert-ms") == 0) assert_ms = std::atol(v);
    else if (std::strcmp(k, "--assert-for") == 0) assert_for = std::atof(v);
    else if (std::strcmp(k, "--timeout") == 0) timeout = std::atof(v);
    else if (std::strcmp(k, "--config") == 0) config = v;
    else if (std::strcmp(k, "--kind") == 0 && std::strcmp(v, "topic") == 0) kind = MANUAL_BY_TOPIC_LIVELINESS_QOS;
    else if (std::strcmp(k, "--kind") == 0 && std::strcmp(v, "participant") == 0) kind = MANUAL_BY_PARTICIPANT_LIVELINESS_QOS;
    else if (std::strcmp(k, "--kind") == 0 && std::strcmp(v, "automatic") == 0) kind = AUTOMATIC_LIVELINESS_QOS;
    else usage();
  }
  if (!topic || lease_ms <= 0 || assert_ms <= 0 || domain < 0 || domain > 232) usage();
  double end = mono() + timeout;
  double lease = static_cast<double>(lease_ms) / 1000.0;

  DomainParticipantFactory *factory = DomainParticipantFactory::get_instance();
  DomainParticipantQos pqos = hdds_fastdds::loopback_participant_qos(config);
  DomainParticipant *pp = factory->create_participant(static_cast<DomainId_t>(domain), pqos);
  if (!pp) fail("create_participant failed");
  TypeSupport type(new hdds::interop::BlobPubSubType());
  check(type.register_type(pp), "register_type");
  Topic *tp = pp->create_topic(topic, type.get_type_name(), TOPIC_QOS_DEFAULT);
  if (!tp) fail("create_topic failed");

  int rc = is_writer ? run_writer(pp, tp, kind, lease, static_cast<double>(assert_ms) / 1000.0, assert_for, end)
                     : run_reader(pp, tp, kind, lease, end);
  pp->delete_topic(tp);
  factory->delete_participant(pp);
  return rc;
}
