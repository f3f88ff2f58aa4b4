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


@pytest.mark.skipif(not cuda_usable("tree"), reason="no CUDA tree solver or no GPU here")
@pytest.mark.parametrize("solver", ["direct", "tree"])
def test_a_cuda_simulation_stays_on_the_device_and_equals_the_cpu_run_bit_for_bit(solver):
    # backend = "cuda": the particles live on the GPU between calls (as in `orrery run`);
    # exact math: every step equals the CPU run's bits, and the views follow the run.
    settings = dict(solver=solver, math="exact", precision="single", theta=0.6, leaf_capacity=8)
    cpu = orrery.Simulation.plummer(3000, seed=5, backend="cpu", **settings)
    gpu = orrery.Simulation.plummer(3000, seed=5, backend="cuda", **settings)
    assert gpu.device_resident and not cpu.device_resident
    assert "cuda" in gpu.solver_name
    x_view = gpu.x
    for _ in range(2):
        cpu.step(5)
        gpu.step(5)
        assert np.array_equal(gpu.positions, cpu.positions)
        assert np.array_equal(gpu.velocities, cpu.velocities)
        assert np.array_equal(gpu.accelerations, cpu.accelerations)
        assert np.array_equal(x_view, cpu.x)  # a view taken before the steps follows them
    assert gpu.step_count == cpu.step_count == 10
    assert gpu.diagnostics()["total"] == pytest.approx(cpu.diagnostics()["total"], rel=1e-6)
