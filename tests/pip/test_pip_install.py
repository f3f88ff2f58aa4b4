"""`pip install .`, the user's path (pyproject.toml, docs/python.md), into a
fresh virtual environment: the `orrery` command is on the environment's PATH,
`orrery --version` and `python -m orrery --version` print the version and the
build's backends, `orrery.__version__` is the project's version, and a tiny
run works, from the command line and from Python.

Run by scripts/pip_test.sh (scripts/test.sh), not with the other Python
tests: it builds the package (the C++ core, CPU only: pyproject.toml's
default) with CMake through scikit-build-core. To keep CI cheap it builds
offline with the pinned build tools scripts/setup.sh installs
(--no-build-isolation, the venv sees them through --system-site-packages),
CMAKE_BUILD_PARALLEL_LEVEL jobs, and in a CMake build directory kept under
build/ (a second run recompiles only what changed; ccache is used where
CMAKE_CXX_COMPILER_LAUNCHER says so)."""

import os
import pathlib
import re
import shutil
import subprocess
import sys
import time
import venv

import pytest

# The first test builds the package: from scratch about 290 CPU-seconds (2.5 minutes on two idle
# cores), far longer on a loaded machine than pyproject.toml's 600 s for one test.
pytestmark = pytest.mark.timeout(3600)

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD_DIR = ROOT / "build" / "pip-test"


def project_version():
    return re.search(r"project\(orrery VERSION ([0-9.]+)", (ROOT / "CMakeLists.txt").read_text()).group(1)


def run(args, env, cwd):
    result = subprocess.run([str(a) for a in args], env=env, cwd=cwd, capture_output=True, text=True)
    assert result.returncode == 0, f"{' '.join(map(str, args))} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}"
    return result.stdout


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(environment variables with the venv first on PATH, the venv's python, a scratch directory)."""
    home = tmp_path_factory.mktemp("pip")
    env_dir = home / "venv"
    # No pip of its own (ensurepip is not everywhere, e.g. Debian without python3-venv): the
    # system's pip, seen through the system site-packages, installs into the environment.
    venv.EnvBuilder(system_site_packages=True, with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "ORRERY_CLI", "VIRTUAL_ENV")}
    env["PATH"] = f"{env_dir / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env.setdefault("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 2))
    start = time.monotonic()
    run([python, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-build-isolation", "--no-deps",
         "-C", f"build-dir={BUILD_DIR}", ROOT], env, home)
    # Shown with -s, and in the log CI keeps: the cost this test adds.
    print(f"pip install . took {time.monotonic() - start:.0f} s ({env['CMAKE_BUILD_PARALLEL_LEVEL']} jobs)",
          file=sys.stderr)
    return env, python, home


def test_the_orrery_command_is_on_the_environments_path(installed):
    env, python, _ = installed
    found = shutil.which("orrery", path=env["PATH"])
    assert found is not None and pathlib.Path(found).parent == python.parent, found


def test_orrery_and_python_m_orrery_print_the_version_and_backends(installed):
    env, python, home = installed
    expected = re.compile(rf"^orrery {re.escape(project_version())} \(backends: cpu(, cuda)?\)$")
    for command in (["orrery", "--version"], [python, "-m", "orrery", "--version"]):
        assert expected.match(run(command, env, home).strip()), command


def test_the_package_version_is_the_projects(installed):
    env, python, home = installed
    out = run([python, "-c", "import orrery; print(orrery.__version__); print(orrery.__file__)"], env, home).split()
    assert out[0] == project_version()
    # The installed package, not the source tree's python/orrery.
    assert pathlib.Path(out[1]).is_relative_to(python.parent.parent), out[1]


def test_a_tiny_run_works_from_the_command_and_from_python(installed):
    env, python, home = installed
    out = home / "run"
    run(["orrery", "run", "--set", "initial_conditions.count=64", "--set", "integration.t_end=0.0625",
         "--set", f"output.directory={out}"], env, home)
    rows = (out / "diagnostics.csv").read_text().splitlines()
    assert len(rows) >= 2, rows
    code = ("import orrery; sim = orrery.Simulation.plummer(64, seed=1); log = sim.run(0.0625, every=0.03125); "
            "assert len(log) == 3 and abs(log['relative_energy_error'][-1]) < 1e-3, log; print('ok')")
    assert run([python, "-c", code], env, home).strip() == "ok"
