"""Python and the CLI compute the same thing: the same runs to the last bit,
the same error messages, and files that go both ways."""

import csv

import numpy as np
import pytest

import orrery
from package_helpers import run_cli

COLUMNS = ["time", "step", "kinetic", "potential", "total", "relative_energy_error", "virial_ratio"]


def cli_diagnostics(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


@pytest.mark.parametrize("precision", ["single", "double"])
def test_a_python_run_equals_the_cli_run_bit_for_bit(tmp_path, precision):
    # The CLI writes every diagnostics value with 17 significant digits, which
    # read back to the same double: equality here is equality of the bits.
    run_cli("run", "--set", "initial_conditions.count=300", "--set", "initial_conditions.seed=3",
            "--set", "gravity.solver=direct", "--set", f"gravity.precision={precision}",
            "--set", "gravity.softening=0.02", "--set", "integration.dt=0.0078125",
            "--set", "integration.t_end=0.5", "--set", "output.diagnostics_interval=0.125",
            "--set", f"output.directory={tmp_path}")
    cli = cli_diagnostics(tmp_path / "diagnostics.csv")
    sim = orrery.Simulation.plummer(300, seed=3, solver="direct", precision=precision, softening=0.02, dt=0.0078125)
    log = sim.run(0.5, every=0.125)
    assert len(cli) == len(log) == 5
    for row, rec in zip(cli, log):
        for name in COLUMNS:
            assert float(row[name]) == rec[name], (name, row["time"])
        assert [float(row[k]) for k in ("px", "py", "pz")] == list(rec["momentum"])
        assert [float(row[k]) for k in ("lx", "ly", "lz")] == list(rec["angular_momentum"])
        assert [float(row[k]) for k in ("r10", "r50", "r90")] == list(rec["lagrangian_radii"])


def test_library_errors_carry_the_cli_message():
    # Whatever this build lacks (CUDA, or a GPU), both front ends must say the same.
    try:
        orrery.forces(np.eye(3), np.ones(3), backend="cuda")
    except ValueError as e:
        message = str(e)
    else:
        pytest.skip("this build computes on CUDA: no error to compare")
    result = run_cli("run", "--set", "gravity.backend=cuda", "--set", "integration.t_end=0", check=False)
    assert result.returncode == 2
    assert message in result.stderr
