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

if [ "$(cbindgen --version 2>/dev/null)" != "cbindgen $HDDS_CBINDGEN_VERSION" ]; then
  say "installing cbindgen $HDDS_CBINDGEN_VERSION (pinned: it generates hdds/hdds.h)"
  cargo install cbindgen --version "$HDDS_CBINDGEN_VERSION" --locked
else
  say "cbindgen $HDDS_CBINDGEN_VERSION: present"
fi
