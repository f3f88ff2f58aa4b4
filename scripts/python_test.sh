#!/usr/bin/env bash
# The Python tests (pytest on tests/python), run by scripts/test.sh after the
# C++ build. The package is made importable without installing it: the
# nanobind module is built in the release build (ORRERY_BUILD_PYTHON=ON, so it
# reuses the libraries already compiled there and only the bindings are
# compiled), which stages build/release/python/orrery; that goes on
# PYTHONPATH. The CLI is built too, for the tests that check Python against
# it (ORRERY_CLI). `pip install .` is the user's path (pyproject.toml); this
# one keeps CI to the bindings' compile time.
#
# ORRERY_BUILD_DIR=build/<name> uses (and configures) another build directory
# instead of the release preset's. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/cuda/bin"
jobs=${ORRERY_JOBS:-$(nproc)}
# The module is built for the interpreter that runs the tests.
py=$(command -v "${PYTHON:-python3}")
if [ -n "${ORRERY_BUILD_DIR:-}" ]; then
  build=$ORRERY_BUILD_DIR
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DORRERY_BUILD_PYTHON=ON "-DPython_EXECUTABLE=$py" >/dev/null
else
  build=build/release
  cmake --preset release -DORRERY_BUILD_PYTHON=ON "-DPython_EXECUTABLE=$py" >/dev/null
fi
targets=(orrery_python)
if [ -f apps/orrery/CMakeLists.txt ]; then targets+=(orrery_cli); fi
cmake --build "$build" -j "$jobs" --target "${targets[@]}"
export PYTHONPATH="$PWD/$build/python${PYTHONPATH:+:$PYTHONPATH}"
export ORRERY_CLI="$PWD/$build/apps/orrery/orrery"
export MPLBACKEND=Agg
exec "$py" -m pytest -q tests/python "$@"
