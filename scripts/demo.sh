#!/usr/bin/env bash
# The main job, no ROS needed: installs what it needs, builds the engine and runs hdds-demo, a
# publisher and a subscriber exchanging samples through hdds and printing what arrives and how
# fast. Arguments go to hdds-demo (try --help).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup.sh"
export PATH="$HOME/.cargo/bin:$PATH"
cd "$root"
cargo build --release --locked -q -p hdds_tools --bin hdds-demo
exec "$root/target/release/hdds-demo" "$@"
