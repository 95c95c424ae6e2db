// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// Services across middlewares: rmw_hdds in this process, demo_nodes_cpp's add_two_ints_server or
// add_two_ints_client in a child process on rmw_cyclonedds_cpp or rmw_fastrtps_cpp (Cyclone's
// 16-byte request header; Fast DDS's related sample identity). Every process is loopback-only
// (ROS_LOCALHOST_ONLY=1) in this test process's domain, and every child is killed at the end of
// its test (or after kChildLimit at the latest).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "ament_index_cpp/get_package_prefix.hpp"
#include "example_interfaces/srv/add_two_ints.hpp"
#include "rmw/rmw.h"
#include "rmw_test_fixtures.hpp"
#include "rosidl_typesupport_cpp/service_type_support.hpp"

extern char ** environ;

namespace
{
using example_interfaces::srv::AddTwoInts;
using rmw_test::take_error;
using namespace std::chrono_literals;

constexpr auto kChildLimit = 60s;

const rosidl_service_type_support_t * add_two_ints()
{
  return rosidl_typesupport_cpp::get_service_type_support_handle<AddTwoInts>();
}

// A demo_nodes_cpp program on another RMW, output to a file; killed when this goes.
class Child
{
public:
  Child(const std::string & program, const std::string & rmw)
  {
    std::string prefix;
    try {
      prefix = ament_index_cpp::get_package_prefix("demo_nodes_cpp");
    } catch (const std::exception & e) {
      ADD_FAILURE() << "demo_nodes_cpp is not installed (" << e.what() << "): source ROS 2 Humble "
        "with demo_nodes_cpp before running this test";
      return;
    }
    const std::string path = prefix + "/lib/demo_nodes_cpp/" + program;
    char log_template[] = "/tmp/hdds_service_interop_XXXXXX";
    const int fd = mkstemp(log_template);
    if (fd < 0) {
      ADD_FAILURE() << "mkstemp failed";
      return;
    }
    log_ = log_template;

    std::vector<std::string> env;
    for (char ** e = environ; *e != nullptr; e++) {
      const std::string kv = *e;
      if (kv.rfind("RMW_IMPLEMENTATION=", 0) != 0 && kv.rfind("ROS_DOMAIN_ID=", 0) != 0 &&
        kv.rfind("ROS_LOCALHOST_ONLY=", 0) != 0)
      {
        env.push_back(kv);
      }
    }
    env.push_back("RMW_IMPLEMENTATION=" + rmw);
    env.push_back("ROS_DOMAIN_ID=" + std::to_string(rmw_test::test_domain()));
    env.push_back("ROS_LOCALHOST_ONLY=1");
    std::vector<char *> envp;
    for (auto & kv : env) {
      envp.push_back(kv.data());
    }
    envp.push_back(nullptr);
    // `timeout` bounds the child even if this test process dies without killing it.
    const std::string limit = std::to_string(
      std::chrono::duration_cast<std::chrono::seconds>(kChildLimit).count());
    std::vector<std::string> args = {"timeout", limit, path};
    std::vector<char *> argv;
    for (auto & a : args) {
      argv.push_back(a.data());
    }
    argv.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fd, STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, fd, STDERR_FILENO);
    const int r = posix_spawnp(&pid_, "timeout", &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    close(fd);
    if (r != 0) {
      ADD_FAILURE() << "cannot start " << path << ": " << strerror(r);
      pid_ = -1;
    }
  }
  ~Child()
  {
    stop();
    if (!log_.empty()) {
      unlink(log_.c_str());
    }
  }
  Child(const Child &) = delete;
  Child & operator=(const Child &) = delete;

  bool started() const {return pid_ > 0;}

  // True once the child has exited; its status in *status.
  bool exited(int * status)
  {
    if (pid_ <= 0) {
      *status = exit_status_;
      return true;
    }
    int st = 0;
    if (waitpid(pid_, &st, WNOHANG) == pid_) {
      pid_ = -1;
      exit_status_ = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
      *status = exit_status_;
      return true;
    }
    return false;
  }

  void stop()
  {
    if (pid_ > 0) {
      kill(pid_, SIGINT);
      for (int i = 0; i < 300; i++) {  // 3 s for a clean exit
        int st;
        if (exited(&st)) {
          return;
        }
        std::this_thread::sleep_for(10ms);
      }
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
      pid_ = -1;
    }
  }

  std::string output() const
  {
    std::ifstream in(log_);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

private:
  pid_t pid_ = -1;
  int exit_status_ = -1;
  std::string log_;
};

size_t count_of(const std::string & text, const std::string & needle)
{
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    n++;
  }
  return n;
}

bool wait_for_entity(rmw_context_t * context, rmw_service_t * service, rmw_client_t * client)
{
  rmw_wait_set_t * ws = rmw_create_wait_set(context, 1);
  if (ws == nullptr) {
    ADD_FAILURE() << take_error();
    return false;
  }
  void * data[1] = {service ? service->data : client->data};
  rmw_services_t services{1, data};
  rmw_clients_t clients{1, data};
  rmw_time_t timeout{0, 200000000};
  const rmw_ret_t r = rmw_wait(
    nullptr, nullptr, service ? &services : nullptr, client ? &clients : nullptr, nullptr, ws,
    &timeout);
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_wait_set(ws));
  return r == RMW_RET_OK && data[0] != nullptr;
}

class ServiceInterop : public ::testing::TestWithParam<const char *>
{
};

// Our client, their add_two_ints_server: two calls, both answered.
TEST_P(ServiceInterop, HddsClientCallsTheirServer)
{
  Child server("add_two_ints_server", GetParam());
  ASSERT_TRUE(server.started());
  rmw_test::Context context;
  rmw_test::Node node(context, "hdds_add_two_ints_client");
  ASSERT_NE(nullptr, node.get());
  rmw_client_t * client =
    rmw_create_client(
    node.get(), add_two_ints(), "/add_two_ints", &rmw_qos_profile_services_default);
  ASSERT_NE(nullptr, client) << take_error();

  ASSERT_TRUE(
    rmw_test::wait_until(
      [&] {
        bool available = false;
        EXPECT_EQ(RMW_RET_OK, rmw_service_server_is_available(node.get(), client, &available));
        return available;
      }, 30000ms)) <<
    "the " << GetParam() << " server never became available:\n" << server.output();

  const int64_t operands[2][2] = {{2, 3}, {40, 2}};
  for (const auto & op : operands) {
    AddTwoInts::Request request;
    request.a = op[0];
    request.b = op[1];
    int64_t sequence_id = 0;
    ASSERT_EQ(RMW_RET_OK, rmw_send_request(client, &request, &sequence_id)) << take_error();
    bool answered = false;
    const auto end = std::chrono::steady_clock::now() + 10s;
    while (!answered && std::chrono::steady_clock::now() < end) {
      if (!wait_for_entity(context.get(), nullptr, client)) {
        continue;
      }
      AddTwoInts::Response response;
      rmw_service_info_t info{};
      bool taken = false;
      ASSERT_EQ(RMW_RET_OK, rmw_take_response(client, &info, &response, &taken)) << take_error();
      if (taken) {
        EXPECT_EQ(sequence_id, info.request_id.sequence_number);
        EXPECT_EQ(op[0] + op[1], response.sum);
        answered = true;
      }
    }
    ASSERT_TRUE(answered) << "no response from the " << GetParam() << " server:\n" <<
      server.output();
  }
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_client(node.get(), client)) << take_error();
  server.stop();
  EXPECT_EQ(2u, count_of(server.output(), "Incoming request")) << server.output();
}

// Their add_two_ints_client, our service: it prints the sum we computed and exits with 0.
TEST_P(ServiceInterop, TheirClientCallsHddsServer)
{
  rmw_test::Context context;
  rmw_test::Node node(context, "hdds_add_two_ints_server");
  ASSERT_NE(nullptr, node.get());
  rmw_service_t * service = rmw_create_service(
    node.get(), add_two_ints(), "/add_two_ints", &rmw_qos_profile_services_default);
  ASSERT_NE(nullptr, service) << take_error();

  Child client("add_two_ints_client", GetParam());
  ASSERT_TRUE(client.started());
  int served = 0;
  int status = -1;
  const auto end = std::chrono::steady_clock::now() + 40s;
  while (!client.exited(&status) && std::chrono::steady_clock::now() < end) {
    if (!wait_for_entity(context.get(), service, nullptr)) {
      continue;
    }
    AddTwoInts::Request request;
    rmw_service_info_t info{};
    bool taken = false;
    ASSERT_EQ(RMW_RET_OK, rmw_take_request(service, &info, &request, &taken)) << take_error();
    if (!taken) {
      continue;
    }
    AddTwoInts::Response response;
    response.sum = request.a + request.b;
    ASSERT_EQ(RMW_RET_OK, rmw_send_response(service, &info.request_id, &response))
      << take_error();
    served++;
  }
  EXPECT_EQ(0, status) << "the " << GetParam() << " client did not finish:\n" << client.output();
  EXPECT_EQ(1, served);
  // The demo sends a = 2, b = 3.
  EXPECT_NE(std::string::npos, client.output().find("Result of add_two_ints: 5")) <<
    client.output();
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_service(node.get(), service)) << take_error();
}

// A Cyclone DDS server and a Fast DDS server of one name at once: each gets the request once, in
// its own format, and both answers come back under the request's sequence id.
TEST(ServiceInteropMixed, OneRequestToServersOfBothFormats)
{
  Child cyclone("add_two_ints_server", "rmw_cyclonedds_cpp");
  Child fastdds("add_two_ints_server", "rmw_fastrtps_cpp");
  ASSERT_TRUE(cyclone.started() && fastdds.started());
  rmw_test::Context context;
  rmw_test::Node node(context, "hdds_add_two_ints_client");
  ASSERT_NE(nullptr, node.get());
  rmw_client_t * client =
    rmw_create_client(
    node.get(), add_two_ints(), "/add_two_ints", &rmw_qos_profile_services_default);
  ASSERT_NE(nullptr, client) << take_error();
  ASSERT_TRUE(
    rmw_test::wait_until(
      [&] {
        bool available = false;
        EXPECT_EQ(RMW_RET_OK, rmw_service_server_is_available(node.get(), client, &available));
        return available;
      }, 30000ms));
  // Available means one server is ready; loopback discovery of the other ends well within this.
  std::this_thread::sleep_for(2s);

  AddTwoInts::Request request;
  request.a = 7;
  request.b = 8;
  int64_t sequence_id = 0;
  ASSERT_EQ(RMW_RET_OK, rmw_send_request(client, &request, &sequence_id)) << take_error();
  int answers = 0;
  const auto end = std::chrono::steady_clock::now() + 10s;
  while (answers < 2 && std::chrono::steady_clock::now() < end) {
    if (!wait_for_entity(context.get(), nullptr, client)) {
      continue;
    }
    AddTwoInts::Response response;
    rmw_service_info_t info{};
    bool taken = false;
    ASSERT_EQ(RMW_RET_OK, rmw_take_response(client, &info, &response, &taken)) << take_error();
    if (taken) {
      EXPECT_EQ(sequence_id, info.request_id.sequence_number);
      EXPECT_EQ(15, response.sum);
      answers++;
    }
  }
  EXPECT_EQ(2, answers);
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_client(node.get(), client)) << take_error();
  cyclone.stop();
  fastdds.stop();
  EXPECT_EQ(1u, count_of(cyclone.output(), "Incoming request")) << cyclone.output();
  EXPECT_EQ(1u, count_of(fastdds.output(), "Incoming request")) << fastdds.output();
}

INSTANTIATE_TEST_SUITE_P(
  Vendors, ServiceInterop, ::testing::Values("rmw_cyclonedds_cpp", "rmw_fastrtps_cpp"),
  [](const ::testing::TestParamInfo<const char *> & p) {return std::string(p.param);});
}  // namespace
