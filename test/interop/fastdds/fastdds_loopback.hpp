// What the Fast DDS interop peers share: their error exit and their loopback-only participant
// (the profile "hdds_interop_loopback" of ../config/fastdds_loopback.xml, or of --config FILE).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

#include <fastdds/dds/domain/DomainParticipantFactory.hpp>
#include <fastdds/dds/domain/qos/DomainParticipantQos.hpp>

#ifndef HDDS_INTEROP_FASTDDS_CONFIG
#define HDDS_INTEROP_FASTDDS_CONFIG "fastdds_loopback.xml"
#endif

namespace hdds_fastdds {

// The program's name in its error messages; each peer sets it first thing in main.
inline const char *&peer_name()
{
  static const char *name = "fastdds peer";
  return name;
}

[[noreturn]] inline void fail(const std::string &what)
{
  std::fprintf(stderr, "%s: %s\n", peer_name(), what.c_str());
  std::exit(2);
}

// The participant QoS of the loopback profile in the XML file `config`.
inline eprosima::fastdds::dds::DomainParticipantQos loopback_participant_qos(const char *config)
{
  using eprosima::fastdds::dds::DomainParticipantFactory;
  using eprosima::fastrtps::types::ReturnCode_t;
  constexpr const char *profile = "hdds_interop_loopback";
  DomainParticipantFactory *factory = DomainParticipantFactory::get_instance();
  if (factory->load_XML_profiles_file(config) != ReturnCode_t::RETCODE_OK)
    fail(std::string("cannot load XML profiles from ") + config);
  eprosima::fastdds::dds::DomainParticipantQos pqos;
  if (factory->get_participant_qos_from_profile(profile, pqos) != ReturnCode_t::RETCODE_OK)
    fail(std::string("no participant profile \"") + profile + "\" in " + config);
  return pqos;
}

}  // namespace hdds_fastdds
