"""Python and the CLI compute the same thing: the same runs to the last bit,
the same error messages, and files that go both ways."""

import csv
import re

import numpy as np
import pytest

import orrery
from package_helpers import require_cli, require_cli_key, run_cli

def cli_diagnostics(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


@pytest.mark.parametrize("solver,precision", [("direct", "single"), ("direct", "double"), ("tree", "single")])
def test_a_python_run_equals_the_cli_run_bit_for_bit(tmp_path, solver, precision):
    if f"{solver}/cpu" not in orrery.available_solvers():
        pytest.skip(f"no {solver}/cpu solver in this build")
    # The CLI writes every diagnostics value with 17 significant digits, which
    # read back to the same double: equality here is equality of the bits.
    run_cli("run", "--set", "initial_conditions.count=300", "--set", "initial_conditions.seed=3",
            "--set", f"gravity.solver={solver}", "--set", f"gravity.precision={precision}",
            "--set", "gravity.softening=0.02", "--set", "integration.dt=0.0078125",
            "--set", "integration.t_end=0.5", "--set", "output.diagnostics_interval=0.125",
            "--set", f"output.directory={tmp_path}")
    cli = orrery.diagnostics.read_csv(tmp_path / "diagnostics.csv")
    sim = orrery.Simulation.plummer(300, seed=3, solver=solver, precision=precision, softening=0.02, dt=0.0078125)
    log = sim.run(0.5, every=0.125)
    assert len(cli) == len(log) == 5
    for name in orrery.diagnostics.DTYPE.names:
        assert np.array_equal(cli[name], log[name]), name


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


def cli_run(directory, *sets, restart=None):
    """`orrery run` of a small Plummer sphere into `directory`, with extra --set assignments."""
    args = ["run", "--set", "initial_conditions.count=256", "--set", "initial_conditions.seed=11",
            "--set", "gravity.softening=0.02", "--set", "integration.dt=0.015625",
            "--set", f"output.directory={directory}"]
    for s in sets:
        args += ["--set", s]
    if restart is not None:
        args += ["--restart", restart]
    return run_cli(*args)


def newest_checkpoint(directory):
    return sorted(directory.glob("checkpoint_*.orrck"), key=lambda p: int(p.stem.split("_")[1]))[-1]


def python_run(t_end):
    sim = orrery.Simulation.plummer(256, seed=11, softening=0.02, dt=0.015625)
    return sim.integrate(t_end)


@pytest.mark.parametrize("precision,dtype", [("single", np.float32), ("double", np.float64)])
def test_cli_initial_conditions_equal_pythons(tmp_path, precision, dtype):
    require_cli("ic")
    path = tmp_path / "ic.h5"
    run_cli("ic", "--set", "initial_conditions.count=500", "--set", "initial_conditions.seed=4",
            "--set", f"gravity.precision={precision}", "-o", path)
    snap = orrery.read_snapshot(path)
    sim = orrery.Simulation.plummer(500, seed=4, precision=precision)
    assert snap["positions"].dtype == dtype
    for key, value in (("positions", sim.positions), ("velocities", sim.velocities), ("masses", sim.mass),
                       ("ids", sim.ids)):
        assert np.array_equal(snap[key], value), key


def test_the_cli_reads_pythons_snapshots_and_checkpoints(tmp_path):
    require_cli("info")
    sim = orrery.Simulation.plummer(321, seed=2).integrate(0.1)
    sim.save_snapshot(tmp_path / "s.h5")
    sim.save_checkpoint(tmp_path / "c.orrck")
    out = run_cli("info", tmp_path / "s.h5").stdout
    assert "particles:        321" in out and f"step:             {sim.step_count}" in out
    out = run_cli("info", tmp_path / "c.orrck").stdout
    assert "checksum verified" in out and "restartable here: yes" in out


def test_forces_in_cli_snapshots_equal_pythons(tmp_path):
    require_cli_key("output.snapshot_interval", 0.125)
    cli_run(tmp_path, "integration.t_end=0.25", "output.snapshot_interval=0.125")
    snaps = sorted(tmp_path.glob("snapshot_*.h5"))
    assert len(snaps) == 3
    for path in snaps:
        snap = orrery.read_snapshot(path)
        acc, pot, _ = orrery.forces(snap["positions"], snap["masses"], solver="direct", softening=0.02)
        assert np.array_equal(acc, snap["accelerations"]) and np.array_equal(pot, snap["potentials"]), path.name


def test_a_cli_checkpoint_continues_in_python_and_a_python_checkpoint_in_the_cli(tmp_path):
    require_cli("run", "--restart")
    straight = python_run(0.5)
    # CLI to 0.25, Python on to 0.5.
    cli_run(tmp_path / "a", "integration.t_end=0.25")
    resumed = orrery.Simulation.load_checkpoint(newest_checkpoint(tmp_path / "a"))
    assert resumed.step_count == 16
    resumed.integrate(0.5)
    assert np.array_equal(resumed.positions, straight.positions)
    assert np.array_equal(resumed.velocities, straight.velocities)
    # Python to 0.25, the CLI on to 0.5.
    python_run(0.25).save_checkpoint(tmp_path / "py.orrck")
    cli_run(tmp_path / "b", "integration.t_end=0.5", restart=tmp_path / "py.orrck")
    finished = orrery.Simulation.load_checkpoint(newest_checkpoint(tmp_path / "b"))
    assert finished.step_count == 32
    assert np.array_equal(finished.positions, straight.positions)
    assert np.array_equal(finished.velocities, straight.velocities)


def test_orrery_run_writes_what_the_cli_writes(tmp_path):
    sets = ["initial_conditions.count=200", "integration.t_end=0.25", "output.snapshot_interval=0.125"]
    cli_run(tmp_path / "cli", *sets)
    summary = orrery.run(overrides=["initial_conditions.count=256", "initial_conditions.seed=11",
                                    "gravity.softening=0.02", "integration.dt=0.015625",
                                    f"output.directory={tmp_path / 'py'}", *sets])
    assert summary["steps"] == 16 and summary["stopped_by"] == "" and summary["snapshots"] == 3
    cli, py = cli_diagnostics(tmp_path / "cli/diagnostics.csv"), cli_diagnostics(summary["diagnostics"])
    assert [{k: v for k, v in r.items() if not k.startswith("wall")} for r in cli] == \
           [{k: v for k, v in r.items() if not k.startswith("wall")} for r in py]
    a, b = orrery.read_snapshot(tmp_path / "cli/snapshot_0002.h5"), orrery.read_snapshot(tmp_path / "py/snapshot_0002.h5")
    assert np.array_equal(a["positions"], b["positions"]) and np.array_equal(a["accelerations"], b["accelerations"])


def test_orrery_run_stops_on_sigint_with_a_checkpoint_and_restores_pythons_handler(tmp_path):
    import os
    import signal
    import threading

    before = signal.getsignal(signal.SIGINT)
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    summary = orrery.run(overrides={"initial_conditions.count": 800, "integration.t_end": 1e4,
                                    "output.directory": tmp_path})
    timer.join()
    assert summary["stopped_by"].startswith("signal") and 0 < summary["steps"]
    assert signal.getsignal(signal.SIGINT) is before
    resumed = orrery.Simulation.load_checkpoint(summary["checkpoint"])
    assert resumed.step_count == summary["steps"]


def test_orrery_compare_json_agrees_with_forces_from_python():
    import json

    if "tree/cpu" not in orrery.available_solvers():
        pytest.skip("no tree/cpu solver in this build")
    require_cli("compare")
    out = run_cli("compare", "--set", "initial_conditions.count=2000", "--set", "gravity.solver=tree",
                  "--set", "gravity.theta=0.6", "--against", "reference", "--json").stdout
    cli = json.loads(out)
    sim = orrery.Simulation.plummer(2000, seed=1)
    tree, _, report = orrery.forces(sim.positions, sim.mass, solver="tree", theta=0.6, potential=False)
    ref, _, ref_report = orrery.forces(sim.positions, sim.mass, solver="reference", potential=False)
    for key in ("node_visits", "cell_interactions", "particle_interactions"):
        assert cli[key] == report[key] and cli["against_report"][key] == ref_report[key], key
    tree, ref = tree.astype(float), ref.astype(float)
    err = np.linalg.norm(tree - ref, axis=1) / np.linalg.norm(ref, axis=1)
    assert cli["rms_relative_error"] == pytest.approx(np.sqrt(np.mean(err**2)), rel=1e-5)
    assert cli["max_relative_error"] == pytest.approx(err.max(), rel=1e-5)


def test_python_m_orrery_is_the_cli_and_says_its_version_and_backends(tmp_path):
    import subprocess
    import sys

    module = subprocess.run([sys.executable, "-m", "orrery", "--version"], capture_output=True, text=True)
    assert module.returncode == 0, module.stderr
    assert module.stdout.strip() == orrery.version_info()
    assert f"orrery {orrery.__version__} (backends: cpu" in module.stdout
    assert run_cli("--version").stdout == module.stdout
    # The exit status and the one-line error come through unchanged.
    bad = subprocess.run([sys.executable, "-m", "orrery", "info", str(tmp_path / "missing.h5")],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "missing.h5': no such file" in bad.stderr


def test_a_run_with_its_output_redirected_still_prints_the_closing_line_with_the_worst_error(tmp_path):
    out = run_cli("run", "--set", "initial_conditions.count=100", "--set", "integration.t_end=0.25",
                  "--set", f"output.directory={tmp_path}").stdout  # captured: not a terminal, no progress line
    (line,) = out.splitlines()
    final, worst = (float(x) for x in re.search(r"\|dE/E\| final (\S+), worst (\S+);", line).groups())
    rows = orrery.diagnostics.read_csv(tmp_path / "diagnostics.csv")
    assert final == pytest.approx(abs(rows.relative_energy_error[-1]), rel=1e-2)
    assert worst == pytest.approx(np.abs(rows.relative_energy_error).max(), rel=1e-2) and worst >= final
    assert line.startswith("direct/cpu/single/plummer: 32 steps to t = 0.25")
