#!/usr/bin/env bash
# Miri over the code with unsafe blocks, as far as Miri can run it: hdds_ffi (the C ABI) and the
# futex wrapper of hdds_core's shared-memory transport. Runs hdds_ffi's unit tests and
# tests/abi_from_rust.rs, which drives every entry point through raw pointers,
# callbacks and out-parameters as C does, so every `unsafe` block of hdds_ffi runs under Miri's
# checks (use after free, double free, dangling or misaligned pointers, out-of-bounds slices,
# invalid values, leaks). scripts/test.sh runs it on every CI run (about 1 minute); docs/checks.md
# says what Miri cannot run (sockets, so no networked participant).
#
#   scripts/miri.sh [extra cargo test arguments]
#
# -Zmiri-disable-isolation: the engine reads /etc/machine-id for its GUID prefix and waits with
# real time-outs. Ends with `miri: N passed, N failed`.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export PATH="$HOME/.cargo/bin:$PATH"
cd "$root"
if ! cargo +nightly miri --version >/dev/null 2>&1; then
  echo "miri.sh: needs nightly's miri component (run scripts/setup.sh)" >&2
  exit 3
fi
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
rc=0
export MIRIFLAGS="-Zmiri-disable-isolation" CARGO_TARGET_DIR="$root/target/miri"
timeout --kill-after=10 1200 cargo +nightly miri test --locked -p hdds_ffi "$@" 2>&1 | tee "$log" || rc=$?
# hdds_core's unsafe code is the shared-memory transport's: of it, Miri runs the futex wrapper
# (Miri implements the futex syscall); rings, segments and the doorbell live in file-backed
# mmap'ed memory, which Miri does not support (docs/checks.md).
timeout --kill-after=10 1200 cargo +nightly miri test --locked -p hdds_core --lib shm::futex "$@" 2>&1 \
  | tee -a "$log" || rc=$?
# And the fragment reassembly, whose buffer is declared initialized once every fragment arrived.
timeout --kill-after=10 1200 cargo +nightly miri test --locked -p hdds_core --lib rtps::fragment "$@" 2>&1 \
  | tee -a "$log" || rc=$?
timeout --kill-after=10 1200 cargo +nightly miri test --locked -p hdds_core --lib arc_bytes "$@" 2>&1 \
  | tee -a "$log" || rc=$?
# And the sample payloads built on those buffers: a lead and a tail around the payload that must
# be initialized too, a shorter fill, a reused buffer.
timeout --kill-after=10 1200 cargo +nightly miri test --locked -p hdds_core --lib payload:: "$@" 2>&1 \
  | tee -a "$log" || rc=$?
passed=$(awk '/^test result:/ {for (i = 1; i < NF; i++) if ($(i+1) ~ /^passed/) s += $i} END {print s + 0}' "$log")
failed=$(awk '/^test result:/ {for (i = 1; i < NF; i++) if ($(i+1) ~ /^failed/) s += $i} END {print s + 0}' "$log")
# Undefined behaviour aborts the test binary before its result line: count it.
ub=$(grep -cE "^error: (Undefined Behavior|memory leaked|unsupported operation)" "$log" || true)
failed=$((failed + ub))
[ "$rc" = 0 ] || [ "$failed" -gt 0 ] || failed=1
echo "miri: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
