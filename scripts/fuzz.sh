#!/usr/bin/env bash
# Runs every cargo-fuzz target in fuzz/ for a bounded time, starting from its committed corpus
# (fuzz/corpus/TARGET). scripts/test.sh runs it on every CI run.
#
#   scripts/fuzz.sh [--seconds N] [TARGET...]   run each target N seconds (default 25)
#   scripts/fuzz.sh --minimize [--seconds N]    grow each corpus for N seconds (default 300), then
#                                               replace fuzz/corpus/TARGET by its minimized union
#                                               with what was there (cargo fuzz cmin, set cover): commit it
#
# Needs the nightly toolchain and cargo-fuzz (scripts/setup.sh installs both). Targets are built
# with debug assertions (-a), so an arithmetic overflow on crafted input is a crash too.
# New inputs found during a run go to a temporary directory, never into the committed corpus.
# A crash, a hang (one input over 10 s) or an allocation over 2 GiB fails the target; its
# reproducer is kept under fuzz/artifacts/TARGET/ and the log says how to replay it.
# Prints one line per target (PASS/FAIL) and ends with `fuzz: N passed, N failed`.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
fuzz_dir="$root/fuzz"
export PATH="$HOME/.cargo/bin:$PATH"

seconds="" minimize=0 targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --minimize) minimize=1; shift ;;
    -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1 (try --help)" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done
[ -n "$seconds" ] || { [ "$minimize" = 1 ] && seconds=300 || seconds=25; }
if [ ${#targets[@]} -eq 0 ]; then
  for f in "$fuzz_dir"/fuzz_targets/*.rs; do targets+=("$(basename "$f" .rs)"); done
fi

if ! cargo +nightly --version >/dev/null 2>&1 || ! cargo +nightly fuzz --version >/dev/null 2>&1; then
  echo "fuzz.sh: needs the nightly toolchain and cargo-fuzz (run scripts/setup.sh)" >&2
  exit 3
fi

cd "$fuzz_dir"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
echo "fuzz: building ${targets[*]} (nightly, libFuzzer + AddressSanitizer, debug assertions)"
if ! cargo +nightly fuzz build -a >"$work/build.log" 2>&1; then
  tail -30 "$work/build.log"
  echo "FAIL fuzz: the fuzz targets did not build (log above)"
  echo "fuzz: 0 passed, ${#targets[@]} failed"
  exit 1
fi

passed=0 failed=0
for t in "${targets[@]}"; do
  corpus="$fuzz_dir/corpus/$t" artifacts="$fuzz_dir/artifacts/$t"
  mkdir -p "$corpus" "$artifacts" "$work/$t"
  log="$work/$t.log"
  # -timeout: one input taking over 10 s is a hang; the outer timeout bounds the whole run even
  # if libFuzzer itself stops answering.
  if timeout --kill-after=10 $((seconds + 120)) \
    cargo +nightly fuzz run -a "$t" "$work/$t" "$corpus" -- \
      -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=2048 \
      -artifact_prefix="$artifacts/" -print_final_stats=1 >"$log" 2>&1; then
    runs=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+).*/\1/p' "$log" | tail -1)
    cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+' "$log" | tail -1 || true)
    echo "PASS fuzz $t: ${runs:-?} inputs in ${seconds} s (${cov:-no coverage line}; committed corpus: $(find "$corpus" -type f | wc -l) inputs)"
    passed=$((passed + 1))
    if [ "$minimize" = 1 ]; then
      # The union of the committed corpus and what this run found, minimized by coverage.
      cp -n "$corpus"/* "$work/$t"/ 2>/dev/null || true
      cargo +nightly fuzz cmin -a "$t" "$work/$t" -- -set_cover_merge=1 >"$log.cmin" 2>&1 \
        || { tail -20 "$log.cmin"; echo "fuzz.sh: cmin of $t failed" >&2; exit 1; }
      find "$corpus" -type f -delete
      cp "$work/$t"/* "$corpus"/
      echo "  minimized: $(find "$corpus" -type f | wc -l) inputs, $(du -sk "$corpus" | cut -f1) KiB in fuzz/corpus/$t"
    fi
  else
    rc=$?
    failed=$((failed + 1))
    echo "FAIL fuzz $t (exit $rc): last lines of its log:"
    grep -E 'ERROR|panicked|SUMMARY|Test unit written|timeout|out-of-memory|malloc' "$log" | head -20 || true
    tail -5 "$log"
    for a in $(sed -nE 's/.*Test unit written to (.*)$/\1/p' "$log"); do
      echo "  reproducer: $a"
      echo "  replay:     (cd fuzz && cargo +nightly fuzz run -a $t $a)"
    done
    [ "$rc" -ne 124 ] || echo "  the run did not stop within $((seconds + 120)) s (killed)"
  fi
done
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
