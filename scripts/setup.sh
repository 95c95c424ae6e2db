#!/usr/bin/env bash
# Installs what rmw_hdds needs to build and test on Debian 12 (or Ubuntu), and nothing twice:
# every step first checks whether its piece is already there.
#
#   scripts/setup.sh          the engine, the demo and the tests without ROS
#   scripts/setup.sh --ros    also what the ROS-level tests need (colcon, gtest) where ROS 2 is
#
# ROS 2 Humble itself is not installed by this script: use /opt/ros/humble from the ROS apt
# repository (or your own build).
set -euo pipefail

HDDS_CBINDGEN_VERSION=0.29.4   # keep in step with cmake/HddsCargo.cmake
want_ros=0
for arg in "$@"; do
  case "$arg" in
    --ros) want_ros=1 ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "setup.sh: unknown option $arg (try --help)" >&2; exit 2 ;;
  esac
done

say() { printf '[setup] %s\n' "$*"; }
# shellcheck source=lib/debian.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/debian.sh"

packages=(build-essential cmake ninja-build pkg-config git ca-certificates curl)
if [ "$want_ros" = 1 ] && ! command -v colcon >/dev/null 2>&1; then
  # Debian's colcon (ROS images bring their own from the ROS apt repository).
  packages+=(colcon python3-colcon-cmake python3-colcon-ros python3-colcon-test-result
             python3-colcon-package-selection python3-colcon-output python3-colcon-defaults
             python3-colcon-library-path python3-colcon-recursive-crawl
             python3-colcon-parallel-executor python3-colcon-bash)
fi
if [ "$want_ros" = 1 ]; then packages+=(googletest libgtest-dev); fi

ensure_debian_packages "${packages[@]}"

export PATH="$HOME/.cargo/bin:$PATH"
if ! command -v cargo >/dev/null 2>&1; then
  say "no cargo: installing Debian's Rust toolchain (rustup's is preferred where you have it)"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q cargo rustc
fi
say "$(cargo --version)"
# scripts/test.sh checks formatting and lints: rustfmt and clippy come with rustup's default profile,
# not with its minimal one nor with Debian's cargo.
# Each entry: the cargo subcommand, rustup's component, Debian's package.
for entry in "fmt rustfmt rustfmt" "clippy clippy rust-clippy"; do
  read -r tool component package <<<"$entry"
  if ! cargo "$tool" --version >/dev/null 2>&1; then
    say "installing $component (scripts/test.sh runs cargo $tool)"
    if command -v rustup >/dev/null 2>&1; then
      rustup component add "$component"
    else
      as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$package"
    fi
  fi
done

if [ "$(cbindgen --version 2>/dev/null)" != "cbindgen $HDDS_CBINDGEN_VERSION" ]; then
  say "installing cbindgen $HDDS_CBINDGEN_VERSION (pinned: it generates hdds/hdds.h)"
  cargo install cbindgen --version "$HDDS_CBINDGEN_VERSION" --locked
else
  say "cbindgen $HDDS_CBINDGEN_VERSION: present"
fi

# ---- checks (scripts/test.sh's fuzz, sanitizer and Miri sections; docs/checks.md) ----
# The nightly toolchain with rust-src (ThreadSanitizer rebuilds std with -Zbuild-std) and miri,
# and cargo-fuzz. Not needed to build or use rmw_hdds: when one cannot be installed this says so,
# and scripts/test.sh reports the checks that need it as SKIPPED with the reason.
HDDS_CARGO_FUZZ_VERSION=0.13.2
if command -v rustup >/dev/null 2>&1; then
  if ! rustup run nightly rustc --version >/dev/null 2>&1; then
    say "installing the nightly Rust toolchain (fuzzing, ThreadSanitizer, Miri)"
    rustup toolchain install nightly --profile minimal --component rust-src,miri \
      || say "WARNING: could not install the nightly toolchain: fuzz, TSan and Miri checks will be SKIPPED"
  fi
  if rustup run nightly rustc --version >/dev/null 2>&1; then
    for component in rust-src miri; do
      if ! rustup component list --toolchain nightly --installed 2>/dev/null | grep -q "^$component"; then
        say "installing the nightly component $component"
        rustup component add --toolchain nightly "$component" \
          || say "WARNING: could not install nightly's $component: the checks that need it will be SKIPPED"
      fi
    done
    say "$(rustup run nightly rustc --version), with: $(rustup component list --toolchain nightly \
      --installed | sed -nE 's/^(rust-src|miri).*/\1/p' | tr '\n' ' ')"
  fi
else
  say "WARNING: no rustup, so no nightly toolchain: fuzz, TSan and Miri checks will be SKIPPED"
fi
if [ "$(cargo fuzz --version 2>/dev/null)" != "cargo-fuzz $HDDS_CARGO_FUZZ_VERSION" ]; then
  say "installing cargo-fuzz $HDDS_CARGO_FUZZ_VERSION"
  cargo install cargo-fuzz --version "$HDDS_CARGO_FUZZ_VERSION" --locked \
    || say "WARNING: could not install cargo-fuzz: the fuzz targets will be SKIPPED"
else
  say "cargo-fuzz $HDDS_CARGO_FUZZ_VERSION: present"
fi
