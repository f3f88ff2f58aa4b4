"""Block time steps from Python: orrery.Simulation.use_block_steps, the bins, and orrery.run."""

import numpy as np
import pytest

import orrery


def test_block_steps_expose_the_bins_and_one_bin_is_the_global_step():
    global_ = orrery.Simulation.plummer(128, seed=3, solver="tree", softening=0.01, dt=1 / 32)
    block = orrery.Simulation.plummer(128, seed=3, solver="tree", softening=0.01, dt=1 / 32)
    assert block.time_bins.size == 0 and block.time_bin_histogram.size == 0
    block.use_block_steps(dt_min=1 / 32, eta=1e6)  # one bin: every particle steps by dt
    global_.step(4)
    block.step(4)
    assert block.time_bins.dtype == np.int8 and block.time_bins.shape == (128,)
    assert block.time_bin_histogram.tolist() == [128]
    assert np.array_equal(block.positions, global_.positions) and np.array_equal(block.velocities, global_.velocities)


def test_several_bins_and_their_histogram():
    sim = orrery.Simulation.plummer(256, seed=4, solver="tree", softening=0.005, dt=1 / 16)
    sim.use_block_steps(dt_min=1e-6)
    sim.step(2)
    assert sim.time == 2 / 16  # step() is a block step of dt
    histogram = sim.time_bin_histogram
    assert histogram.sum() == 256 and np.count_nonzero(histogram) >= 3
    assert np.array_equal(np.bincount(sim.time_bins, minlength=histogram.size), histogram)


def test_a_checkpoint_continues_block_steps_bit_identically(tmp_path):
    def make():
        return orrery.Simulation.plummer(200, seed=6, solver="tree", softening=0.005, dt=1 / 16).use_block_steps(eta=0.05)

    unbroken, first = make(), make()
    unbroken.step(4)
    first.step(2)
    first.save_checkpoint(tmp_path / "c.orrck")
    resumed = orrery.Simulation.load_checkpoint(tmp_path / "c.orrck")
    assert np.array_equal(resumed.time_bins, first.time_bins) and np.count_nonzero(first.time_bin_histogram) >= 2
    resumed.step(2)
    assert resumed.step_count == 4
    assert np.array_equal(resumed.positions, unbroken.positions)
    assert np.array_equal(resumed.velocities, unbroken.velocities)
    assert np.array_equal(resumed.time_bins, unbroken.time_bins)


def test_invalid_block_parameters_name_the_key():
    sim = orrery.Simulation.plummer(16, softening=0.0, dt=1 / 16)
    with pytest.raises(ValueError, match="gravity.softening = 0"):
        sim.use_block_steps()
    with pytest.raises(ValueError, match="criterion = 'jerk'; accepted: one of: softening, dynamical"):
        sim.use_block_steps(criterion="jerk")
    sim.use_block_steps(criterion="dynamical", eta=0.01)  # defined without softening
