#!/usr/bin/env bash
# Runs ROS 2's own RMW conformance tests (test_rmw_implementation, humble branch) against rmw_hdds.
#
# Usage: test/conformance/run_upstream.sh BUILD_DIR
#   BUILD_DIR: a colcon build directory of test_rmw_implementation (its gtest binaries,
#   test_<name>__<rmw>, are not installed by any ROS package; build it yourself, e.g. in a Humble
#   source workspace: `colcon build --packages-up-to test_rmw_implementation`, then pass
#   <ws>/build/test_rmw_implementation).
# The caller's environment must find rmw_hdds (source its install/setup.bash) and ROS 2 Humble.
#
# Each test binary was generated for one RMW found when it was built, but it loads the middleware
# through rmw_implementation, which follows RMW_IMPLEMENTATION at run time: every test runs once,
# from the first RMW's binary, with RMW_IMPLEMENTATION=rmw_hdds. Before that, one binary runs with
# a middleware that does not exist and must fail: that proves the selection reaches the tests, so
# a pass cannot come from another RMW.
#
# Prints one line per test program and ends with
#   hdds-conformance: N passed, N failed, N skipped
# (gtest cases); exits non-zero on any failure. Loopback only, on its own domain, bounded in time.
set -uo pipefail
build="${1:-}"
if [ -z "$build" ] || [ ! -d "$build" ]; then
  echo "usage: $0 BUILD_DIR (a colcon build directory of test_rmw_implementation)" >&2
  exit 2
fi
export ROS_LOCALHOST_ONLY=1
export ROS_DOMAIN_ID="${HDDS_CONFORMANCE_DOMAIN:-199}"
per_test_timeout="${HDDS_CONFORMANCE_TIMEOUT_S:-300}"
logs="$(mktemp -d)"
trap 'rm -rf "$logs"' EXIT

# One binary per test: test_foo__rmw_a, test_foo__rmw_b, ... -> test_foo__rmw_a.
mapfile -t programs < <(find "$build" -maxdepth 1 -type f -executable -name 'test_*__*' -printf '%f\n' \
  | sort | awk -F'__' '!seen[$1]++')
if [ "${#programs[@]}" = 0 ]; then
  echo "FAILED: no test_<name>__<rmw> programs in $build: is it test_rmw_implementation's build directory?"
  echo "hdds-conformance: 0 passed, 1 failed, 0 skipped"
  exit 1
fi

probe="${programs[0]}"
for p in "${programs[@]}"; do [[ "$p" == test_init_shutdown__* ]] && probe="$p"; done
if RMW_IMPLEMENTATION=rmw_hdds_does_not_exist timeout 60 "$build/$probe" >"$logs/probe.log" 2>&1; then
  echo "FAILED: $probe passed with RMW_IMPLEMENTATION=rmw_hdds_does_not_exist: these programs do not"
  echo "load the middleware at run time (rmw_implementation built without runtime selection), so"
  echo "they cannot test rmw_hdds. Rebuild rmw_implementation with runtime selection enabled."
  echo "hdds-conformance: 0 passed, 1 failed, 0 skipped"
  exit 1
fi

passed=0 failed=0 skipped=0
for p in "${programs[@]}"; do
  log="$logs/$p.log"
  RMW_IMPLEMENTATION=rmw_hdds timeout "$per_test_timeout" "$build/$p" --gtest_color=no >"$log" 2>&1
  rc=$?
  np=$(sed -nE 's/^\[  PASSED  \] ([0-9]+) tests?\..*/\1/p' "$log" | tail -1)
  ns=$(sed -nE 's/^\[  SKIPPED \] ([0-9]+) tests?, listed below:.*/\1/p' "$log" | tail -1)
  nf=$(sed -nE 's/^ *([0-9]+) FAILED TESTS?$/\1/p' "$log" | tail -1)
  np=${np:-0} ns=${ns:-0} nf=${nf:-0}
  # A program that crashed or timed out without gtest's summary counts as one failure.
  [ "$rc" = 0 ] || [ "$nf" -gt 0 ] || nf=1
  passed=$((passed + np)) failed=$((failed + nf)) skipped=$((skipped + ns))
  name="${p%%__*}"
  if [ "$rc" = 0 ]; then
    echo "ok      $name: $np passed, $ns skipped"
    grep -E '^\[  SKIPPED \] [A-Za-z]' "$log" | grep -v ' ms)$' | sort -u | sed 's/^/          /'
  else
    echo "FAILED  $name (exit $rc): $np passed, $nf failed"
    grep -E '^\[  FAILED  \] [A-Za-z]|Failure$|rmw_hdds' "$log" | head -20 | sed 's/^/          /'
  fi
done
echo "hdds-conformance: $passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
