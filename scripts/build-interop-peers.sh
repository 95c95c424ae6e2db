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
# Works on a fresh Debian 12. A peer that cannot be built does not stop the others: its reason goes
# to build/interop/<peer>.skipped (cyclone, fastdds, python), a 'SKIPPED' line is printed, and the
# script exits 1 after building what it could (--env then prints only the peers that exist).
set -uo pipefail

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

mkdir -p "$build"
rm -f "$build"/*.skipped
log="$build/build.log"
: > "$log"
skipped=0
# skip <peer> <reason>: records why a peer is missing.
skip() {
  echo "$2" > "$build/$1.skipped"
  say "SKIPPED $1 peer: $2"
  skipped=$((skipped + 1))
}

packages=(build-essential cmake ninja-build pkg-config python3 python3-venv iproute2
          cyclonedds-dev cyclonedds-tools libfastrtps-dev libfastcdr-dev fastddsgen)
if ! quiet ensure_debian_packages --no-install-recommends "${packages[@]}"; then
  say "WARNING: installing the Debian packages failed; the peers that need a missing one are skipped"
fi

# The C and C++ peers (CMake re-runs idlc/fastddsgen only when the IDL changes). A peer whose
# library is missing is left out by the CMake file with a 'SKIPPED <target>:' warning.
configured=1
cmake -S "$root/test/interop" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >> "$log" 2>&1 || configured=0
for peer in cyclone fastdds; do
  target=${peer}_peer
  if [ "$configured" = 0 ]; then
    skip "$peer" "CMake could not configure test/interop (see $log)"
  elif why=$(grep -o "SKIPPED $target: .*" "$log"); then
    skip "$peer" "${why#SKIPPED $target: }"
  elif ! cmake --build "$build" --target "$target" >> "$log" 2>&1; then
    skip "$peer" "the build of $target failed (see $log)"
  fi
  # No stale executable stands in for a peer that was not built now.
  [ ! -e "$build/$peer.skipped" ] || rm -f "$build/$target"
done

# The Python peer's venv, with the machine's python3.
have_py_version() {
  "$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("cyclonedds"))' 2>/dev/null || true
}
python_ok=1
if [ "$(have_py_version)" != "$CYCLONEDDS_PY_VERSION" ]; then
  say "creating $venv with cyclonedds==$CYCLONEDDS_PY_VERSION"
  rm -rf "$venv"
  { python3 -m venv "$venv" &&
    "$venv/bin/python" -m pip install -q --disable-pip-version-check "cyclonedds==$CYCLONEDDS_PY_VERSION"; } \
    >> "$log" 2>&1 || python_ok=0
else
  say "venv: cyclonedds $CYCLONEDDS_PY_VERSION present"
fi
if [ "$python_ok" = 1 ] && "$venv/bin/python" -c 'import cyclonedds.domain' >> "$log" 2>&1; then
  # One executable per peer: python_peer runs peer.py with the venv's interpreter.
  printf '#!/bin/sh\nexec %q %q "$@"\n' "$venv/bin/python" "$root/test/interop/python/peer.py" > "$build/python_peer.tmp"
  chmod +x "$build/python_peer.tmp"
  mv "$build/python_peer.tmp" "$build/python_peer"
else
  rm -f "$build/python_peer"
  skip python "no venv with PyPI cyclonedds==$CYCLONEDDS_PY_VERSION (python3 -m venv or pip install failed; see $log)"
fi

if [ "$env_only" = 1 ]; then
  [ -x "$build/cyclone_peer" ] && printf 'CYCLONE_PEER=%q\n' "$build/cyclone_peer"
  [ -x "$build/fastdds_peer" ] && printf 'FASTDDS_PEER=%q\n' "$build/fastdds_peer"
  [ -x "$build/python_peer" ] && printf 'PYTHON_PEER=%q\n' "$build/python_peer"
  [ "$skipped" = 0 ]
  exit
fi
cat <<EOF

Interop peers (each: '<peer> --help'; loopback-only configs in test/interop/config/ by default):
  cyclone (Cyclone DDS 0.10.2, C):    $build/cyclone_peer
  fastdds (Fast DDS 2.9.1, C++):      $build/fastdds_peer
  python  (cyclonedds $CYCLONEDDS_PY_VERSION, Python): $build/python_peer
                                      (= $venv/bin/python $root/test/interop/python/peer.py)
Peer matrix: test/interop/run_peer_matrix.sh
EOF
[ "$skipped" = 0 ]
