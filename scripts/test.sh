#!/usr/bin/env bash
# The project's test command (what .ci/run runs): installs what the tests need, then runs
#   1. the Rust tests of the whole workspace (engine, C ABI crate, tools);
#   2. the C ABI tests (C programs built against the generated hdds/hdds.h);
#   3. every cargo-fuzz target for a bounded time (scripts/fuzz.sh; HDDS_FUZZ_SECONDS, default 25);
#   4. the interop tests: hdds against Cyclone DDS 0.10.2, Cyclone DDS 11 and Fast DDS 2.9.1
#      (test/interop/run_hdds_matrix.sh; a peer that cannot be built is reported SKIPPED);
#   5. where ROS 2 Humble is installed at /opt/ros/humble (or $HDDS_ROS_PREFIX): colcon build of
#      the rmw_hdds package in a temporary workspace, warnings as errors, and colcon test.
# Without ROS 2 it says which ROS-level tests it skipped and why. Exits non-zero on any failure.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ros_prefix="${HDDS_ROS_PREFIX:-/opt/ros/humble}"
have_ros=0
[ -f "$ros_prefix/setup.bash" ] && have_ros=1

if [ "$have_ros" = 1 ]; then "$root/scripts/setup.sh" --ros; else "$root/scripts/setup.sh"; fi
export PATH="$HOME/.cargo/bin:$PATH"
# Every DDS/ROS process a test starts stays on loopback.
export ROS_LOCALHOST_ONLY=1

logs="$(mktemp -d)"
trap 'rm -rf "$logs"' EXIT
passed=0 failed=0 skipped=0
section() { printf '\n==== %s\n' "$*"; }
count() { passed=$((passed + $1)); failed=$((failed + $2)); }

section "Rust: clippy (warnings are errors) and cargo test --workspace"
cd "$root"
rust_ok=1
cargo clippy --workspace --all-targets --locked -q -- -D warnings 2>&1 | tee "$logs/clippy.log" || rust_ok=0
cargo test --workspace --locked 2>&1 | tee "$logs/cargo.log" || rust_ok=0
rp=$(awk '/^test result:/ {for (i = 1; i < NF; i++) if ($(i+1) ~ /^passed/) s += $i} END {print s + 0}' "$logs/cargo.log")
rf=$(awk '/^test result:/ {for (i = 1; i < NF; i++) if ($(i+1) ~ /^failed/) s += $i} END {print s + 0}' "$logs/cargo.log")
[ "$rust_ok" = 1 ] || rf=$((rf > 0 ? rf : 1))
count "${rp:-0}" "${rf:-0}"

section "C ABI tests (test/c_abi, ctest)"
c_ok=1
{ cmake -S test/c_abi -B build/c_abi -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null \
  && cmake --build build/c_abi \
  && ctest --test-dir build/c_abi --output-on-failure; } 2>&1 | tee "$logs/ctest.log" || c_ok=0
cp=$(sed -nE 's/.*tests passed, ([0-9]+) tests failed out of ([0-9]+).*/\2 \1/p' "$logs/ctest.log" | awk '{print $1-$2}')
cf=$(sed -nE 's/.*tests passed, ([0-9]+) tests failed out of ([0-9]+).*/\1/p' "$logs/ctest.log")
[ "$c_ok" = 1 ] || cf=$(( ${cf:-0} > 0 ? cf : 1 ))
count "${cp:-0}" "${cf:-0}"

# ---- checks: fuzzing (scripts/fuzz.sh; docs/checks.md) ----
section "Fuzzing: every cargo-fuzz target for ${HDDS_FUZZ_SECONDS:-25} s from its committed corpus"
fuzz_rc=0
"$root/scripts/fuzz.sh" --seconds "${HDDS_FUZZ_SECONDS:-25}" 2>&1 | tee "$logs/fuzz.log" || fuzz_rc=$?
if [ "$fuzz_rc" = 3 ]; then
  echo "SKIPPED: the cargo-fuzz targets (fuzz/fuzz_targets). Why: $(tail -1 "$logs/fuzz.log")"
  skipped=$((skipped + 1))
else
  read -r f_pass f_fail < <(sed -nE 's/^fuzz: ([0-9]+) passed, ([0-9]+) failed$/\1 \2/p' "$logs/fuzz.log") || true
  f_pass=${f_pass:-0} f_fail=${f_fail:-0}
  [ "$fuzz_rc" = 0 ] || [ "$f_fail" -gt 0 ] || f_fail=1
  count "$f_pass" "$f_fail"
fi

section "Interop tests: hdds against Cyclone DDS 0.10.2 (C), Cyclone DDS 11 (Python), Fast DDS 2.9.1 (C++)"
# The peers (Debian and PyPI packages installed as needed); one that cannot be built is reported
# SKIPPED with its reason, by the build script and again by the matrix, and the others still run.
"$root/scripts/build-interop-peers.sh" 2>&1 | tee "$logs/interop-build.log" || true
interop_ok=1
if cargo build --release --locked -q -p hdds_tools --bin hdds-interop-peer 2>&1 | tee "$logs/interop-peer.log"; then
  test/interop/run_hdds_matrix.sh --hdds "$root/target/release/hdds-interop-peer" 2>&1 \
    | tee "$logs/interop.log" || interop_ok=0
  read -r i_pass i_fail i_skip < <(sed -nE 's/^hdds-interop: ([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped$/\1 \2 \3/p' \
    "$logs/interop.log") || true
  i_pass=${i_pass:-0} i_fail=${i_fail:-0} i_skip=${i_skip:-0}
  # A matrix that stopped without its summary line still counts as a failure.
  [ "$interop_ok" = 1 ] || [ "$i_fail" -gt 0 ] || i_fail=1
  count "$i_pass" "$i_fail"
  skipped=$((skipped + i_skip))
else
  echo "FAILED: the hdds interop peer (hdds_tools, hdds-interop-peer) did not build"
  count 0 1
fi

ros_tests="colcon build of rmw_hdds (warnings as errors); colcon test: every gtest in test/rmw (init, loading through rmw_implementation, serialization and type support byte-compared with rmw_cyclonedds_cpp, malformed input, names and QoS mapping, pub/sub, wait sets, events, graph, demo talker/listener on rmw_cyclonedds_cpp and rmw_fastrtps_cpp against rmw_hdds) and the C ABI tests inside the package"
if [ "$have_ros" = 1 ]; then
  section "ROS-level tests ($ros_prefix): colcon build + colcon test of rmw_hdds"
  ws="$(mktemp -d)"
  mkdir -p "$ws/src"
  ln -s "$root" "$ws/src/rmw_hdds"
  ros_ok=1
  # errexit does not apply inside a subshell that is the left side of `||`: chain with &&.
  (
    set +u
    # shellcheck disable=SC1091
    source "$ros_prefix/setup.bash" && set -u && cd "$ws" \
    && export PATH="/usr/bin:$PATH" `# ROS tooling runs on Debian's python3` \
    && colcon build --packages-select rmw_hdds --event-handlers console_direct+ \
      --cmake-args -DCMAKE_BUILD_TYPE=Release -DBUILD_TESTING=ON -DHDDS_WERROR=ON \
    && colcon test --packages-select rmw_hdds --event-handlers console_direct+ --return-code-on-test-failure
  ) 2>&1 | tee "$logs/colcon.log" || ros_ok=0
  summary=$(cd "$ws" && PATH="/usr/bin:$PATH" colcon test-result --all 2>/dev/null | tail -1 || true)
  echo "$summary"
  # "Summary: N tests, E errors, F failures, S skipped"
  read -r rt re rfl rs < <(echo "$summary" | sed -nE 's/Summary: ([0-9]+) tests, ([0-9]+) errors, ([0-9]+) failures, ([0-9]+) skipped/\1 \2 \3 \4/p') || true
  rt=${rt:-0} re=${re:-0} rfl=${rfl:-0} rs=${rs:-0}
  ros_passed=$((rt - re - rfl - rs)) ros_failed=$((re + rfl))
  # A build that failed ran no test: it still counts as a failure.
  [ "$ros_ok" = 1 ] || [ "$ros_failed" -gt 0 ] || ros_failed=1
  count "$ros_passed" "$ros_failed"
  skipped=$((skipped + rs))
  rm -rf "$ws"
else
  section "ROS-level tests: SKIPPED"
  echo "SKIPPED: $ros_tests."
  echo "Why: ROS 2 Humble is not installed at $ros_prefix (no setup.bash there). Install it, or point"
  echo "HDDS_ROS_PREFIX at another Humble install, to run them."
  skipped=$((skipped + 1))
fi

section "Summary"
echo "tests: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
