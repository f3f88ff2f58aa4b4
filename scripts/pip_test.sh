#!/usr/bin/env bash
# CI's test of `pip install .` (tests/pip/test_pip_install.py): the package
# installed with pip into a fresh virtual environment, its `orrery` command,
# versions and a tiny run. Run by scripts/test.sh after the other Python
# tests; extra arguments go to pytest (e.g. --junitxml=FILE). The build uses
# ORRERY_JOBS (default: every core) jobs; its CMake directory is build/pip-test.
set -euo pipefail
cd "$(dirname "$0")/.."
py=$(command -v "${PYTHON:-python3}")
export CMAKE_BUILD_PARALLEL_LEVEL=${ORRERY_JOBS:-$(nproc)}
exec "$py" -m pytest -q -p no:cacheprovider -s tests/pip "$@"
