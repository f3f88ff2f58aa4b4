#!/usr/bin/env bash
# Quick start, command 2: set up, build everything (release preset), and run
# the whole test suite: the C++ tests through CTest (GPU tests are reported as
# skipped where there is no GPU) and the Python tests through pytest, then
# the skip reasons and one closing line for both (scripts/test_summary.py).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export PATH="$PATH:/usr/local/cuda/bin"
jobs=${ORRERY_JOBS:-$(nproc)}
cmake --preset release
cmake --build --preset release -j "$jobs"
# Both suites run even when the first fails; the summary says why each
# skipped test was skipped and ends with one line for the whole suite.
status=0
ctest --preset release -j "$jobs" || status=1
rm -f build/release/pytest.xml
scripts/python_test.sh --junitxml="$PWD/build/release/pytest.xml" || status=1
python3 scripts/test_summary.py --ctest build/release/Testing/Temporary/LastTest.log \
  --pytest build/release/pytest.xml || status=1
exit "$status"
