#!/usr/bin/env bash
# Quick start, command 2: set up, build everything (release preset), and run
# the whole test suite: the C++ tests through CTest (GPU tests are reported as
# skipped where there is no GPU), the Python tests through pytest, `pip
# install .` into a fresh virtual environment (scripts/pip_test.sh), the file
# readers' and writers' robustness tests under the sanitizers, then the skip
# reasons and one closing line for all of them (scripts/test_summary.py).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
export PATH="$PATH:/usr/local/cuda/bin"
jobs=${ORRERY_JOBS:-$(nproc)}
cmake --preset release
cmake --build --preset release -j "$jobs"
# Every suite runs even when an earlier one fails; the summary says why each
# skipped test was skipped and ends with one line for the whole suite.
status=0
ctest --preset release -j "$jobs" || status=1
rm -f build/release/pytest.xml
scripts/python_test.sh --junitxml="$PWD/build/release/pytest.xml" || status=1
# `pip install .` into a fresh virtual environment: the user's path (about
# 2.5 CPU-minutes of compiling on the first run, build/pip-test kept after).
rm -f build/release/pip.xml
scripts/pip_test.sh --junitxml="$PWD/build/release/pip.xml" || status=1
# The readers' mutation and fuzz tests and the data-safety CLI tests again
# under ASan/UBSan (the debug-asan preset), building only what they need: a
# bad file or a failed write must give one line, not a sanitizer report.
sanitized="passed"
if ! { cmake --preset debug-asan &&
       cmake --build --preset debug-asan -j "$jobs" --target orrery_io_test orrery_cli &&
       ctest --preset debug-asan -j "$jobs" -R '^IoMutation[.]|^cli[.](fuzz_readers|fault_injection|environment_errors|bad_input)$'; }; then
  sanitized="FAILED"
  status=1
fi
python3 scripts/test_summary.py --ctest build/release/Testing/Temporary/LastTest.log \
  --pytest build/release/pytest.xml --pip build/release/pip.xml || status=1
echo "sanitizer tests (debug-asan): $sanitized"
exit "$status"
