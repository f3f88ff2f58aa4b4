"""The CUDA backend from Python (skipped where the build has no CUDA or the
machine no GPU): the same answers as the CPU solvers."""

import numpy as np
import pytest

import orrery
from package_helpers import cloud


def cuda_usable(solver):
    if f"{solver}/cuda" not in orrery.available_solvers():
        return False
    try:
        orrery.forces(np.eye(3), np.ones(3), solver=solver, backend="cuda")
    except ValueError as e:
        if "no usable device" in str(e):
            return False
        raise
    return True


needs_gpu = pytest.mark.skipif(not cuda_usable("direct"), reason="no CUDA direct solver or no GPU here")


@needs_gpu
@pytest.mark.parametrize("precision", ["single", "double"])
def test_gpu_direct_forces_agree_with_the_cpu(precision):
    pos, mass = cloud(3000)
    cpu, cpu_pot, _ = orrery.forces(pos, mass, solver="direct", precision=precision)
    gpu, gpu_pot, report = orrery.forces(pos, mass, solver="direct", backend="cuda", precision=precision)
    assert "cuda" in report["solver"] and report["particle_interactions"] == 3000 * 2999
    tol = 1e-5 if precision == "single" else 1e-12
    np.testing.assert_allclose(gpu, cpu, rtol=tol, atol=tol * np.abs(cpu).max())
    np.testing.assert_allclose(gpu_pot, cpu_pot, rtol=tol)


@needs_gpu
def test_backend_auto_picks_the_gpu_and_a_gpu_run_tracks_the_cpu_run():
    cpu = orrery.Simulation.plummer(2000, seed=2, solver="direct", backend="cpu")
    gpu = orrery.Simulation.plummer(2000, seed=2, solver="direct", backend="auto")
    assert "cuda" in gpu.solver_name
    cpu.integrate(0.25)
    gpu.integrate(0.25)
    assert np.abs(gpu.positions - cpu.positions).max() < 1e-4
    assert abs(gpu.diagnostics()["total"] - cpu.diagnostics()["total"]) < 1e-5


@pytest.mark.skipif(not cuda_usable("tree"), reason="no CUDA tree solver or no GPU here")
@pytest.mark.parametrize("traversal", ["independent", "coherent"])
def test_gpu_tree_in_exact_mode_equals_the_cpu_tree_bit_for_bit(traversal):
    # Contract 2: same tree, same terms, same order; exact math: the same bits.
    pos, mass = cloud(5000)
    settings = dict(solver="tree", theta=0.6, leaf_capacity=8, math="exact", precision="single")
    cpu, cpu_pot, cpu_report = orrery.forces(pos, mass, backend="cpu", **settings)
    gpu, gpu_pot, gpu_report = orrery.forces(pos, mass, backend="cuda", traversal=traversal, **settings)
    assert np.array_equal(gpu, cpu)
    np.testing.assert_allclose(gpu_pot, cpu_pot, rtol=1e-6)  # the contract speaks of accelerations
    for key in ("cell_interactions", "particle_interactions"):
        assert gpu_report[key] == cpu_report[key], key
