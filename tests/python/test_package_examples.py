"""The examples in examples/python run (small N) and print what they promise."""

import os
import pathlib
import subprocess
import sys

import pytest

import orrery
from package_helpers import REPO


def run_script(path, *args, cwd):
    """Runs a Python script with the orrery package these tests import; returns its stdout."""
    package_parent = str(pathlib.Path(orrery.__file__).resolve().parents[1])
    env = {**os.environ, "MPLBACKEND": "Agg",
           "PYTHONPATH": os.pathsep.join(filter(None, [package_parent, os.environ.get("PYTHONPATH")]))}
    result = subprocess.run([sys.executable, str(path), *args], capture_output=True, text=True, cwd=cwd, env=env,
                            timeout=300)
    assert result.returncode == 0, result.stderr
    return result.stdout


def run_example(name, *args, cwd):
    return run_script(REPO / "examples/python" / name, *args, cwd=cwd)


def test_quickstart_runs(tmp_path):
    out = run_example("quickstart.py", "--n", "300", cwd=tmp_path)
    assert "relative energy error:" in out and "<orrery.Simulation N=300 t=2 step=256" in out


def test_walkthrough_runs_and_writes_its_figure_and_files(tmp_path):
    pytest.importorskip("matplotlib")
    out = run_example("walkthrough.py", "--n", "400", "--t-end", "1", "--out", str(tmp_path / "wt"), cwd=tmp_path)
    assert "resumed run identical: True" in out
    for name in ("walkthrough.png", "snapshot.h5", "run.orrck"):
        assert (tmp_path / "wt" / name).stat().st_size > 0


def test_the_readme_example_runs(tmp_path):
    readme = (REPO / "README.md").read_text()
    start = readme.index("```python\nimport orrery")
    code = readme[start + len("```python\n"):readme.index("```", start + 3)]
    code = code.replace("plummer(4096", "plummer(256")  # small N: seconds, not minutes
    script = tmp_path / "readme_example.py"
    script.write_text(code)
    error, shape = run_script(script, cwd=tmp_path).split(" ", 1)
    assert abs(float(error)) < 1e-2 and shape.strip() == "(256, 3)"
