"""The examples in examples/python run (small N) and print what they promise."""

import os
import subprocess
import pathlib
import sys

import orrery
from package_helpers import REPO


def run_example(name, *args, cwd):
    # The examples import the same orrery package as these tests.
    package_parent = str(pathlib.Path(orrery.__file__).resolve().parents[1])
    env = {**os.environ, "MPLBACKEND": "Agg",
           "PYTHONPATH": os.pathsep.join(filter(None, [package_parent, os.environ.get("PYTHONPATH")]))}
    result = subprocess.run([sys.executable, str(REPO / "examples/python" / name), *args], capture_output=True,
                            text=True, cwd=cwd, env=env, timeout=300)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_quickstart_runs(tmp_path):
    out = run_example("quickstart.py", "--n", "300", cwd=tmp_path)
    assert "relative energy error:" in out and "<orrery.Simulation N=300 t=2 step=256" in out


def test_walkthrough_runs_and_writes_its_figure_and_files(tmp_path):
    out = run_example("walkthrough.py", "--n", "400", "--out", str(tmp_path / "wt"), cwd=tmp_path)
    assert "resumed run identical: True" in out
    for name in ("walkthrough.png", "snapshot.h5", "run.orrck"):
        assert (tmp_path / "wt" / name).stat().st_size > 0
