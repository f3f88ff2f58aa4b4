#!/usr/bin/env bash
# Quick start, command 2: set up, build everything (release preset), and run
# the whole test suite: the C++ tests through CTest (GPU tests are reported as
# skipped where there is no GPU) and the Python tests through pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export PATH="$PATH:/usr/local/cuda/bin"
jobs=${ORRERY_JOBS:-$(nproc)}
cmake --preset release
cmake --build --preset release -j "$jobs"
ctest --preset release -j "$jobs"
if [ -d tests/python ] || [ -d python/tests ]; then
  scripts/python_test.sh
fi
