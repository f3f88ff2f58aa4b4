"""Shared by the test_package_*.py tests: the CLI, and an independent
(numpy) evaluation of softened gravity to check the solvers against."""

import os
import pathlib
import subprocess

import numpy as np
import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


def cli():
    """The orrery CLI executable ($ORRERY_CLI), or skip the test when it is absent."""
    path = os.environ.get("ORRERY_CLI", str(REPO / "build/release/apps/orrery/orrery"))
    if not os.access(path, os.X_OK):
        pytest.skip(f"the orrery CLI is not built ({path}); scripts/python_test.sh builds it")
    return path


def run_cli(*args, check=True, cwd=None):
    """Runs the CLI; returns the CompletedProcess (text mode)."""
    result = subprocess.run([cli(), *map(str, args)], capture_output=True, text=True, cwd=cwd)
    if check and result.returncode != 0:
        raise AssertionError(f"orrery {' '.join(map(str, args))} failed ({result.returncode}):\n{result.stderr}")
    return result


def require_cli(subcommand, option=None):
    """Skips unless the CLI has `subcommand` (listed by `orrery --help`) and,
    if given, `option` of it: parts this checkout's CLI may not have yet."""
    listing = subprocess.run([cli(), "--help"], capture_output=True, text=True).stdout
    has = any(line.split()[:1] == [subcommand] for line in listing.splitlines())
    if has and option:
        has = option in subprocess.run([cli(), subcommand, "--help"], capture_output=True, text=True).stdout
    if not has:
        pytest.skip(f"the CLI has no `orrery {subcommand}{' ' + option if option else ''}` yet")


def require_cli_key(key, value):
    """Skips unless the CLI's configuration schema has `key`."""
    result = subprocess.run([cli(), "config", "--set", f"{key}={value}"], capture_output=True, text=True)
    if result.returncode != 0:
        pytest.skip(f"the CLI's configuration has no {key} yet")


def numpy_plummer_forces(pos, mass, eps):
    """Plummer-softened accelerations and potentials in float64, all pairs, self excluded."""
    pos = np.asarray(pos, dtype=float)
    d = pos[None, :, :] - pos[:, None, :]  # d[i, j] = x_j - x_i
    r2 = np.einsum("ijk,ijk->ij", d, d) + eps * eps
    inv = 1.0 / np.sqrt(r2)
    np.fill_diagonal(inv, 0.0)
    acc = np.einsum("ij,ijk->ik", mass[None, :] * inv**3, d)
    pot = -(inv * mass[None, :]).sum(axis=1)
    return acc, pot


def cloud(n, seed=3, dtype=np.float64):
    """n particles in a Gaussian blob with unequal positive masses summing to 1."""
    rng = np.random.default_rng(seed)
    pos = rng.normal(size=(n, 3)).astype(dtype)
    mass = rng.uniform(0.5, 1.5, size=n)
    return pos, (mass / mass.sum()).astype(dtype)
