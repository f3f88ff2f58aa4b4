"""A running `orrery run` stops cleanly with a checkpoint on SIGTERM/SIGINT
and on a STOP file, and `orrery run --restart` continues it (issue 5)."""

import signal
import subprocess
import time

import pytest

from package_helpers import cli, run_cli

LONG_RUN = ["run", "--set", "initial_conditions.count=1000", "--set", "integration.t_end=100000",
            "--set", "output.snapshot_interval=0", "--set", "output.checkpoint_minutes=0"]


def start(out):
    return subprocess.Popen([cli(), *LONG_RUN, "--set", f"output.directory={out}"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def wait_until_running(out, proc, timeout=30):
    deadline = time.time() + timeout
    while not (out / "diagnostics.csv.partial").exists():
        assert proc.poll() is None, proc.communicate()
        assert time.time() < deadline, "the run did not start"
        time.sleep(0.05)
    time.sleep(0.3)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_signal_checkpoints_and_exits_cleanly(tmp_path, sig):
    proc = start(tmp_path)
    wait_until_running(tmp_path, proc)
    proc.send_signal(sig)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 0, stderr
    assert "stopped by signal" in stdout and "orrery run --restart" in stdout
    checkpoints = sorted(tmp_path.glob("checkpoint_*.orrck"))
    assert len(checkpoints) == 1
    assert (tmp_path / "diagnostics.csv").exists()  # the log was closed, not left as .partial
    # It continues from there (to a nearby end time, to keep the test short).
    step = int(checkpoints[0].stem.split("_")[1])
    t_next = (step + 4) * 0.0078125
    run_cli("run", "--restart", checkpoints[0], "--set", f"integration.t_end={t_next}")
    assert (tmp_path / f"diagnostics_from_{step}.csv").exists()


def test_stop_file_checkpoints_and_stops(tmp_path):
    proc = start(tmp_path)
    wait_until_running(tmp_path, proc)
    (tmp_path / "STOP").touch()
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 0, stderr
    assert "stopped by STOP file" in stdout
    assert not (tmp_path / "STOP").exists()
    assert len(list(tmp_path.glob("checkpoint_*.orrck"))) == 1


def test_wall_clock_limit_checkpoints_and_stops(tmp_path):
    result = run_cli(*LONG_RUN, "--set", f"output.directory={tmp_path}", "--set", "integration.wall_limit_minutes=0.02")
    assert "stopped by wall-clock limit" in result.stdout
    assert len(list(tmp_path.glob("checkpoint_*.orrck"))) == 1
