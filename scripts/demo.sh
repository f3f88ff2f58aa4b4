#!/usr/bin/env bash
# Quick start, command 1: set up, build (release preset), and run the demo
# simulation (the embedded default config: a Plummer sphere). Extra arguments
# go to `orrery run`, e.g. scripts/demo.sh --set integration.t_end=2
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export PATH="$PATH:/usr/local/cuda/bin"
cmake --preset release >/dev/null
cmake --build --preset release --target orrery_cli
exec build/release/apps/orrery/orrery run "$@"
