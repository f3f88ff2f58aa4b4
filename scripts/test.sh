#!/usr/bin/env bash
# Quick start, command 2: set up, build everything (release preset), and run
# the whole test suite: the C++ tests through CTest (GPU tests are reported as
# skipped where there is no GPU), the Python tests through pytest, and the
# file readers' and writers' robustness tests under the sanitizers.
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
# The readers' mutation and fuzz tests and the data-safety CLI tests again
# under ASan/UBSan (the debug-asan preset), building only what they need: a
# bad file or a failed write must give one line, not a sanitizer report.
cmake --preset debug-asan
cmake --build --preset debug-asan -j "$jobs" --target orrery_io_test orrery_cli
ctest --preset debug-asan -j "$jobs" -R '^IoMutation[.]|^cli[.](fuzz_readers|fault_injection|environment_errors|bad_input)$'

