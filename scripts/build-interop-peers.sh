#!/usr/bin/env bash
# Builds the interop peers that hdds's interop tests drive (test/interop/), and nothing twice:
#   cyclone_peer  C against Debian's Cyclone DDS 0.10.2      (cyclonedds-dev, idlc from cyclonedds-tools)
#   fastdds_peer  C++ against Debian's Fast DDS 2.9.1        (libfastrtps-dev, libfastcdr-dev, fastddsgen)
#   peer.py       Python against PyPI cyclonedds 11.0.1      (in a venv made with the machine's python3)
#
#   scripts/build-interop-peers.sh            install what is missing, build, print where the peers are
#   scripts/build-interop-peers.sh --env      print only CYCLONE_PEER=, FASTDDS_PEER=, PYTHON_PEER=
#                                             (for eval; progress goes to stderr)
#
# Installs Debian packages only when missing (run as root, or with sudo available). Builds into
# build/interop (HDDS_INTEROP_BUILD overrides) with CMake and Ninja; the venv is build/interop/venv.
# Works on a fresh Debian 12.
set -euo pipefail

CYCLONEDDS_PY_VERSION=11.0.1
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${HDDS_INTEROP_BUILD:-$root/build/interop}"
venv="$build/venv"
env_only=0
for arg in "$@"; do
  case "$arg" in
    --env) env_only=1 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "build-interop-peers.sh: unknown option $arg (try --help)" >&2; exit 2 ;;
  esac
done

say() { if [ "$env_only" = 1 ]; then printf '[interop] %s\n' "$*" >&2; else printf '[interop] %s\n' "$*"; fi; }
# shellcheck source=lib/debian.sh
source "$root/scripts/lib/debian.sh"
quiet() { if [ "$env_only" = 1 ]; then "$@" >&2; else "$@"; fi; }

packages=(build-essential cmake ninja-build pkg-config python3 python3-venv iproute2
          cyclonedds-dev cyclonedds-tools libfastrtps-dev libfastcdr-dev fastddsgen)
quiet ensure_debian_packages --no-install-recommends "${packages[@]}"

# The C and C++ peers (CMake re-runs idlc/fastddsgen only when the IDL changes).
if [ ! -f "$build/build.ninja" ]; then
  quiet cmake -S "$root/test/interop" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
fi
quiet cmake --build "$build"

# The Python peer's venv, with the machine's python3.
have_py_version() {
  "$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("cyclonedds"))' 2>/dev/null || true
}
if [ "$(have_py_version)" != "$CYCLONEDDS_PY_VERSION" ]; then
  say "creating $venv with cyclonedds==$CYCLONEDDS_PY_VERSION"
  rm -rf "$venv"
  quiet python3 -m venv "$venv"
  quiet "$venv/bin/python" -m pip install -q --disable-pip-version-check "cyclonedds==$CYCLONEDDS_PY_VERSION"
else
  say "venv: cyclonedds $CYCLONEDDS_PY_VERSION present"
fi
"$venv/bin/python" -c 'import cyclonedds.domain' >/dev/null
# One executable per peer: python_peer runs peer.py with the venv's interpreter.
printf '#!/bin/sh\nexec %q %q "$@"\n' "$venv/bin/python" "$root/test/interop/python/peer.py" > "$build/python_peer.tmp"
chmod +x "$build/python_peer.tmp"
mv "$build/python_peer.tmp" "$build/python_peer"

if [ "$env_only" = 1 ]; then
  printf 'CYCLONE_PEER=%q\n' "$build/cyclone_peer"
  printf 'FASTDDS_PEER=%q\n' "$build/fastdds_peer"
  printf 'PYTHON_PEER=%q\n' "$build/python_peer"
  exit 0
fi
cat <<EOF

Interop peers (each: '<peer> --help'; loopback-only configs in test/interop/config/ by default):
  cyclone (Cyclone DDS 0.10.2, C):    $build/cyclone_peer
  fastdds (Fast DDS 2.9.1, C++):      $build/fastdds_peer
  python  (cyclonedds $CYCLONEDDS_PY_VERSION, Python): $build/python_peer
                                      (= $venv/bin/python $root/test/interop/python/peer.py)
Peer matrix: test/interop/run_peer_matrix.sh
EOF
