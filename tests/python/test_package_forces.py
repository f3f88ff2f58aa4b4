"""orrery.forces: correctness, equality with the library's other call
paths, dtype/shape handling, and errors."""

import numpy as np
import pytest

import orrery
from package_helpers import cloud, numpy_plummer_forces


def test_reference_solver_matches_an_independent_numpy_sum():
    pos, mass = cloud(200)
    acc, pot, report = orrery.forces(pos, mass, solver="reference", softening=0.05, precision="double")
    want_acc, want_pot = numpy_plummer_forces(pos, mass, 0.05)
    np.testing.assert_allclose(acc, want_acc, rtol=1e-11, atol=1e-14)
    np.testing.assert_allclose(pot, want_pot, rtol=1e-11)
    assert acc.dtype == np.float64 and acc.shape == (200, 3) and pot.shape == (200,)
    assert report["particle_interactions"] == 200 * 199


@pytest.mark.parametrize("precision,tol", [("single", 2e-5), ("double", 1e-12)])
def test_direct_solver_agrees_with_the_reference(precision, tol):
    pos, mass = cloud(300)
    ref, _, _ = orrery.forces(pos, mass, solver="reference", precision="double")
    acc, _, report = orrery.forces(pos, mass, solver="direct", precision=precision)
    assert acc.dtype == (np.float32 if precision == "single" else np.float64)
    err = np.linalg.norm(acc - ref, axis=1) / np.linalg.norm(ref, axis=1)
    assert err.max() < tol
    assert report["solver"].startswith("direct/cpu")
    assert report["particle_interactions"] == 300 * 299


@pytest.mark.skipif("tree/cpu" not in orrery.available_solvers(), reason="no CPU tree solver in this build")
def test_tree_solver_report_and_accuracy():
    pos, mass = cloud(2000)
    ref, _, _ = orrery.forces(pos, mass, solver="reference", precision="double")
    acc, pot, report = orrery.forces(pos, mass, solver="tree", theta=0.5, leaf_capacity=8, per_target=True)
    err = np.linalg.norm(acc - ref, axis=1) / np.linalg.norm(ref, axis=1)
    assert np.sqrt(np.mean(err**2)) < 1e-2
    per = report["per_target"]
    assert per.shape == (2000, 3) and per.dtype == np.uint64
    assert per[:, 1].sum() == report["cell_interactions"] > 0
    assert per[:, 2].sum() == report["particle_interactions"] > 0


@pytest.mark.skipif("tree/cpu" not in orrery.available_solvers(), reason="no CPU tree solver in this build")
def test_the_relative_opening_is_a_setting_with_its_tolerance():
    pos, mass = cloud(2000)
    ref, _, _ = orrery.forces(pos, mass, solver="reference", precision="double")
    tree = dict(solver="tree", theta=1.0, multipole="quadrupole", precision="double")

    def run(**settings):
        acc, _, report = orrery.forces(pos, mass, **tree, **settings)
        err = np.linalg.norm(acc - ref, axis=1) / np.linalg.norm(ref, axis=1)
        return np.median(err), report["cell_interactions"] + report["particle_interactions"], report

    geometric = run()
    assert run(opening="geometric")[:2] == geometric[:2]  # the default
    loose, tight = run(opening="relative", tolerance=0.004), run(opening="relative", tolerance=0.0005)
    # theta stays the cap: the relative criterion only opens more cells, and a smaller tolerance more still.
    assert geometric[1] < loose[1] < tight[1]
    assert tight[0] < loose[0] < geometric[0]
    # A one-shot call has no previous accelerations: it bootstraps.
    assert "bootstrap walk" in loose[2]["phase_seconds"]


@pytest.mark.skipif("tree/cpu" not in orrery.available_solvers(), reason="no CPU tree solver in this build")
def test_the_relative_cap_is_a_setting():
    pos, mass = cloud(2000)
    tree = dict(solver="tree", theta=0.8, multipole="quadrupole", precision="double", per_target=True)
    geometric = orrery.forces(pos, mass, **tree)
    # A cap at theta itself accepts every cell Barnes' test at theta accepts: the geometric walk, bit for bit.
    at_theta = orrery.forces(pos, mass, opening="relative", relative_cap=1.0, **tree)
    assert np.array_equal(at_theta.accelerations, geometric.accelerations)
    assert np.array_equal(at_theta.report["per_target"], geometric.report["per_target"])
    # A wider cap (a larger fraction of theta) accepts more cells whole: fewer interactions.
    work = {cap: (lambda r: r["cell_interactions"] + r["particle_interactions"])(
        orrery.forces(pos, mass, opening="relative", relative_cap=cap, **tree).report) for cap in (0.5, 0.7)}
    assert work[0.7] < work[0.5]
    sim = orrery.Simulation.plummer(64, solver="tree", opening="relative", relative_cap=0.7)
    assert sim.settings["relative_cap"] == 0.7
    with pytest.raises(ValueError, match=r"^gravity.relative_cap = 1.5 is not accepted"):
        orrery.forces(pos, mass, solver="tree", opening="relative", relative_cap=1.5)


@pytest.mark.skipif("tree/cpu" not in orrery.available_solvers(), reason="no CPU tree solver in this build")
def test_group_opening_is_a_setting():
    pos, mass = cloud(2000)
    tree = dict(solver="tree", theta=0.6, multipole="quadrupole", precision="double", per_target=True)
    own = orrery.forces(pos, mass, **tree)
    grouped = orrery.forces(pos, mass, group_opening=32, **tree)
    # Groups open only cells every member would accept: more particle terms, the same field to the expansion's accuracy.
    assert grouped.report["particle_interactions"] > own.report["particle_interactions"]
    err = np.linalg.norm(grouped.accelerations - own.accelerations, axis=1) / np.linalg.norm(own.accelerations, axis=1)
    assert 0 < np.median(err) < 2e-3
    sim = orrery.Simulation.plummer(64, solver="tree", group_opening=32)
    assert sim.settings["group_opening"] == 32
    with pytest.raises(ValueError, match=r"^gravity.group_opening = 8192 is not accepted"):
        orrery.forces(pos, mass, solver="tree", group_opening=8192)


@pytest.mark.skipif("tree/cpu" not in orrery.available_solvers(), reason="no CPU tree solver in this build")
def test_list_walk_is_a_setting():
    pos, mass = cloud(2000)
    tree = dict(solver="tree", theta=0.6, multipole="quadrupole", precision="double", per_target=True)
    own = orrery.forces(pos, mass, **tree)
    listed = orrery.forces(pos, mass, list_walk=True, **tree)
    # A group uses only cells every member would accept: more particle terms, the same field to the expansion's accuracy.
    assert listed.report["particle_interactions"] > own.report["particle_interactions"]
    err = np.linalg.norm(listed.accelerations - own.accelerations, axis=1) / np.linalg.norm(own.accelerations, axis=1)
    assert 0 < np.median(err) < 2e-3
    # Deterministic: the same bits again.
    assert np.array_equal(orrery.forces(pos, mass, list_walk=True, **tree).accelerations, listed.accelerations)
    sim = orrery.Simulation.plummer(64, solver="tree", list_walk=True)
    assert sim.settings["list_walk"] is True
    with pytest.raises(ValueError, match=r"^gravity.list_walk = true and gravity.group_opening = 32"):
        orrery.forces(pos, mass, solver="tree", list_walk=True, group_opening=32)


def test_opening_and_tolerance_errors_name_the_key():
    pos, mass = cloud(10)
    with pytest.raises(ValueError, match=r'^gravity.opening = "gadget" is not accepted; accepted: one of: geometric, relative$'):
        orrery.forces(pos, mass, solver="tree", opening="gadget")
    with pytest.raises(ValueError, match=r"^gravity.tolerance = 0.0 is not accepted; accepted: a number > 0$"):
        orrery.forces(pos, mass, solver="tree", opening="relative", tolerance=0)
    with pytest.raises(ValueError, match=r"^gravity.tolerance = -0.001 is not accepted; accepted: a number > 0$"):
        orrery.Simulation.plummer(20, solver="tree", opening="relative", tolerance=-0.001)
    with pytest.raises(ValueError, match=r"^gravity.tolerance = 'tight' has the wrong type; accepted: a number > 0"):
        orrery.forces(pos, mass, tolerance="tight")
    with pytest.raises(ValueError, match=r"^gravity.tolerance = nan is not accepted"):
        orrery.forces(pos, mass, tolerance=float("nan"))
    with pytest.raises(ValueError, match=r"^gravity.opening = 1 has the wrong type; accepted: one of: geometric"):
        orrery.Simulation.plummer(20, opening=1)


def test_forces_equal_the_simulations_forces_bitwise():
    # Two call paths into the library (one-shot solve, and the Simulation's
    # own evaluation at its positions) must give the same bits.
    sim = orrery.Simulation.plummer(500, seed=4, solver="direct", precision="single")
    acc, pot, _ = orrery.forces(sim.positions, sim.mass, solver="direct", precision="single")
    assert np.array_equal(acc, sim.accelerations)
    assert np.array_equal(pot, sim.potential)


def test_double_input_is_rounded_once_to_single_precision():
    pos, mass = cloud(100)
    a64in, _, _ = orrery.forces(pos, mass, precision="single")
    a32in, _, _ = orrery.forces(pos.astype(np.float32), mass.astype(np.float32), precision="single")
    assert a64in.dtype == np.float32
    assert np.array_equal(a64in, a32in)


def test_without_a_precision_float64_input_is_computed_and_returned_in_float64():
    pos, mass = cloud(100)
    acc, pot, report = orrery.forces(pos, mass, softening=0.1)
    assert acc.dtype == np.float64 and pot.dtype == np.float64 and "/double/" in report["solver"]
    ref_acc, ref_pot = numpy_plummer_forces(pos, mass, 0.1)
    assert np.allclose(acc, ref_acc, rtol=1e-12, atol=1e-14)  # double, not float32's 1e-7
    acc32, _, report32 = orrery.forces(pos.astype(np.float32), mass.astype(np.float32), softening=0.1)
    assert acc32.dtype == np.float32 and "/single/" in report32["solver"]


def test_lists_integers_strided_and_fortran_arrays_are_converted():
    pos, mass = cloud(64)
    want, _, _ = orrery.forces(pos, mass, precision="double")
    fortran = np.asfortranarray(pos)
    strided = np.zeros((64, 6))
    strided[:, ::2] = pos
    for variant in (fortran, strided[:, ::2], pos.tolist()):
        got, _, _ = orrery.forces(variant, list(mass), precision="double")
        assert np.array_equal(got, want)
    grid = np.indices((4, 4, 4)).reshape(3, -1).T  # integer positions
    acc, _, _ = orrery.forces(grid, 1.0 / 64, precision="double")  # scalar mass: all equal
    assert acc.shape == (64, 3) and np.isfinite(acc).all()


def test_potential_can_be_skipped():
    pos, mass = cloud(50)
    acc, pot, _ = orrery.forces(pos, mass, potential=False)
    assert pot is None and acc.shape == (50, 3)


@pytest.mark.parametrize(
    "positions,masses,exc,fragment",
    [
        (np.zeros((5, 2)), np.ones(5), ValueError, "positions: shape (5, 2) is not accepted; expected (N, 3)"),
        (np.zeros(3), np.ones(1), ValueError, "positions: shape (3,)"),
        (np.zeros((5, 3)), np.ones(4), ValueError, "masses: shape (4,) is not accepted; expected (5,)"),
        (np.zeros((5, 3), dtype=complex), np.ones(5), TypeError, "positions: dtype complex128 is not accepted"),
        (np.zeros((5, 3), dtype=bool), np.ones(5), TypeError, "positions: dtype bool"),
        (np.array([["a", "b", "c"]]), np.ones(1), TypeError, "positions: dtype <U1"),
    ],
)
def test_bad_shapes_and_dtypes_are_rejected_naming_the_argument(positions, masses, exc, fragment):
    with pytest.raises(exc) as info:
        orrery.forces(positions, masses)
    assert fragment in str(info.value)


def test_library_errors_arrive_as_value_errors_with_the_library_message():
    pos, mass = cloud(10)
    # Settings are checked by the CLI's configuration schema, in its words.
    with pytest.raises(ValueError, match=r'^gravity.solver = "bogus" is not accepted; accepted: one of: reference, direct'):
        orrery.forces(pos, mass, solver="bogus")
    with pytest.raises(ValueError, match=r'^gravity.precision = "half" is not accepted; accepted: one of: single, double$'):
        orrery.forces(pos, mass, precision="half")
    with pytest.raises(ValueError, match=r'^gravity.softening_kernel = "gauss" is not accepted; accepted: one of: plummer'):
        orrery.forces(pos, mass, softening_kernel="gauss")
    with pytest.raises(ValueError, match=r"^gravity.softening = -0.1 is not accepted; accepted: a number >= 0$"):
        orrery.forces(pos, mass, softening=-0.1)
    with pytest.raises(ValueError, match=r"^gravity.theta = 'wide' has the wrong type; accepted: a number >= 0"):
        orrery.forces(pos, mass, theta="wide")
    bad = pos.copy()
    bad[7, 1] = np.nan
    with pytest.raises(ValueError, match="particle 7 .*non-finite position"):
        orrery.forces(bad, mass, solver="direct")
    with pytest.raises(ValueError, match="particle 2 has mass -1"):
        orrery.forces(pos, np.where(np.arange(10) == 2, -1.0, mass), solver="direct")
    with pytest.raises(TypeError, match="thetta"):
        orrery.forces(pos, mass, thetta=0.3)


@pytest.mark.skipif(orrery.cuda_compiled(), reason="this build has CUDA")
def test_cuda_backend_without_cuda_says_so():
    pos, mass = cloud(10)
    with pytest.raises(ValueError, match=r'gravity.backend = "cuda" is not available in this build'):
        orrery.forces(pos, mass, backend="cuda")


def test_spline_softening_is_newtonian_beyond_its_support():
    # Two particles 10 apart with eps = 0.1 (support 0.28): exact Newton.
    pos = np.array([[0.0, 0, 0], [10.0, 0, 0]])
    acc, pot, _ = orrery.forces(pos, [1.0, 1.0], softening=0.1, softening_kernel="spline", precision="double")
    assert acc[0, 0] == pytest.approx(0.01, rel=1e-14)
    assert pot[0] == pytest.approx(-0.1, rel=1e-14)
