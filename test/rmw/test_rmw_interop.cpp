// Copyright 2026 The rmw_hdds authors. Apache-2.0.
//
// rmw_hdds against the other Humble RMWs, as a user meets them: demo_nodes_cpp's talker and
// listener run as child processes with RMW_IMPLEMENTATION=rmw_cyclonedds_cpp or rmw_fastrtps_cpp,
// and this process talks to them through rmw_hdds's rmw_* entry points. Loopback only, in the
// test's own domain. A missing peer program or RMW is a failure that says what is missing.
#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "ament_index_cpp/get_package_prefix.hpp"
#include "rmw/rmw.h"
#include "rmw_test_fixtures.hpp"
#include "rosidl_runtime_c/string_functions.h"
#include "std_msgs/msg/string.h"

extern char ** environ;

using rmw_test::take_error;

namespace
{
// A demo_nodes_cpp program on another RMW, its stdout (and stderr) read through a pipe.
class Peer
{
public:
  Peer(const std::string & program, const std::string & rmw)
  {
    std::string prefix;
    try {
      prefix = ament_index_cpp::get_package_prefix("demo_nodes_cpp");
    } catch (const std::exception & e) {
      ADD_FAILURE() << "demo_nodes_cpp is not installed (" << e.what() << "): install "
        "ros-humble-demo-nodes-cpp or source a workspace that has it";
      return;
    }
    const std::string exe = prefix + "/lib/demo_nodes_cpp/" + program;
    int fds[2];
    if (pipe(fds) != 0) {
      ADD_FAILURE() << "pipe: " << std::strerror(errno);
      return;
    }
    std::vector<std::string> env{
      "RMW_IMPLEMENTATION=" + rmw, "ROS_LOCALHOST_ONLY=1",
      "ROS_DOMAIN_ID=" + std::to_string(rmw_test::test_domain()),
      "RCUTILS_LOGGING_BUFFERED_STREAM=0"};
    for (char ** e = environ; *e != nullptr; ++e) {
      const std::string var = *e;
      if (var.rfind("RMW_IMPLEMENTATION=", 0) != 0 && var.rfind("ROS_LOCALHOST_ONLY=", 0) != 0 &&
        var.rfind("ROS_DOMAIN_ID=", 0) != 0 && var.rfind("RCUTILS_LOGGING_BUFFERED", 0) != 0)
      {
        env.push_back(var);
      }
    }
    std::vector<char *> envp;
    for (auto & v : env) {
      envp.push_back(v.data());
    }
    envp.push_back(nullptr);
    // `timeout` bounds the peer even if this test dies before it can stop it.
    std::string timeout = "timeout", limit = "60";
    std::vector<char *> argv{timeout.data(), limit.data(), const_cast<char *>(exe.c_str()), nullptr};
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDERR_FILENO);
    posix_spawn_file_actions_addclose(&actions, fds[0]);
    const int rc = posix_spawnp(&pid_, "timeout", &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    close(fds[1]);
    if (rc != 0) {
      ADD_FAILURE() << "cannot start " << exe << ": " << std::strerror(rc);
      close(fds[0]);
      pid_ = -1;
      return;
    }
    out_ = fds[0];
    fcntl(out_, F_SETFL, fcntl(out_, F_GETFL) | O_NONBLOCK);
  }

  ~Peer()
  {
    if (pid_ > 0) {
      kill(pid_, SIGINT);
      int status = 0;
      for (int i = 0; i < 50 && waitpid(pid_, &status, WNOHANG) == 0; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
      if (waitpid(pid_, &status, WNOHANG) == 0) {
        kill(pid_, SIGKILL);
        waitpid(pid_, &status, 0);
      }
    }
    if (out_ >= 0) {
      close(out_);
    }
  }

  bool started() const {return pid_ > 0;}

  // Everything the peer printed so far.
  const std::string & output()
  {
    char buf[4096];
    ssize_t n;
    while ((n = read(out_, buf, sizeof(buf))) > 0) {
      output_.append(buf, static_cast<size_t>(n));
    }
    return output_;
  }

private:
  pid_t pid_ = -1;
  int out_ = -1;
  std::string output_;
};

const rosidl_message_type_support_t * string_ts()
{
  return ROSIDL_GET_MSG_TYPE_SUPPORT(std_msgs, msg, String);
}

class Interop : public ::testing::TestWithParam<const char *>
{
protected:
  void SetUp() override
  {
    ASSERT_TRUE(ctx_.ok());
    node_ = rmw_create_node(ctx_.get(), "hdds_interop", "/");
    ASSERT_NE(nullptr, node_) << take_error();
  }
  void TearDown() override
  {
    if (node_ != nullptr) {
      EXPECT_EQ(RMW_RET_OK, rmw_destroy_node(node_));
    }
  }

  rmw_test::Context ctx_;
  rmw_node_t * node_ = nullptr;
};
}  // namespace

TEST_P(Interop, TheirTalkerToOurSubscription)
{
  rmw_subscription_options_t options = rmw_get_default_subscription_options();
  rmw_subscription_t * sub =
    rmw_create_subscription(node_, string_ts(), "/chatter", &rmw_qos_profile_default, &options);
  ASSERT_NE(nullptr, sub) << take_error();
  Peer talker("talker", GetParam());
  ASSERT_TRUE(talker.started());

  std_msgs__msg__String msg{};
  ASSERT_TRUE(std_msgs__msg__String__init(&msg));
  std::string heard;
  ASSERT_TRUE(
    rmw_test::wait_until(
      [&]() {
        bool taken = false;
        EXPECT_EQ(RMW_RET_OK, rmw_take(sub, &msg, &taken, nullptr)) << take_error();
        if (taken) {
          heard = msg.data.data;
        }
        return taken;
      }, std::chrono::seconds(20))) << GetParam() << "'s talker said:\n" << talker.output();
  EXPECT_EQ(0u, heard.rfind("Hello World: ", 0)) << heard;
  std_msgs__msg__String__fini(&msg);
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_subscription(node_, sub));
}

TEST_P(Interop, OurPublisherToTheirListener)
{
  rmw_publisher_options_t options = rmw_get_default_publisher_options();
  rmw_publisher_t * pub =
    rmw_create_publisher(node_, string_ts(), "/chatter", &rmw_qos_profile_default, &options);
  ASSERT_NE(nullptr, pub) << take_error();
  Peer listener("listener", GetParam());
  ASSERT_TRUE(listener.started());

  std_msgs__msg__String msg{};
  ASSERT_TRUE(std_msgs__msg__String__init(&msg));
  int n = 0;
  const bool heard = rmw_test::wait_until(
    [&]() {
      const std::string text = "hello from rmw_hdds " + std::to_string(++n);
      EXPECT_TRUE(rosidl_runtime_c__String__assign(&msg.data, text.c_str()));
      EXPECT_EQ(RMW_RET_OK, rmw_publish(pub, &msg, nullptr)) << take_error();
      std::this_thread::sleep_for(std::chrono::milliseconds(90));
      return listener.output().find("I heard: [hello from rmw_hdds ") != std::string::npos;
    }, std::chrono::seconds(20));
  EXPECT_TRUE(heard) << GetParam() << "'s listener said:\n" << listener.output();
  std_msgs__msg__String__fini(&msg);
  EXPECT_EQ(RMW_RET_OK, rmw_destroy_publisher(node_, pub));
}

INSTANTIATE_TEST_SUITE_P(
  OtherRmws, Interop, ::testing::Values("rmw_cyclonedds_cpp", "rmw_fastrtps_cpp"),
  [](const ::testing::TestParamInfo<const char *> & info) {return std::string(info.param);});
