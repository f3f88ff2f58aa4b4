# %% [markdown]
# # Orrery from Python: a walkthrough
#
# Cells are marked `# %%`: open this file in Jupyter (jupytext), VS Code or
# Spyder and run it cell by cell, or run it whole. It needs the package with
# matplotlib for its plots:
#
#     pip install .[plot]          # from the repository root
#     python examples/python/walkthrough.py --n 2048 --out orrery-out/walkthrough
#
# Units are N-body (Henon) units: G = M = 1, E = -1/4 for the generated
# models; the crossing time of a Plummer sphere is about 2 sqrt(2) ~ 2.8.

# %%
import argparse
import pathlib

import numpy as np

import orrery

parser = argparse.ArgumentParser()
parser.add_argument("--n", type=int, default=4096, help="number of particles")
parser.add_argument("--out", default="orrery-out/walkthrough", help="folder for the figures and files")
parser.add_argument("--t-end", type=float, default=4.0, help="simulated time of the run in section 2")
args, _ = parser.parse_known_args()  # tolerate Jupyter's own arguments
out = pathlib.Path(args.out)
out.mkdir(parents=True, exist_ok=True)
print("solvers in this build:", orrery.available_solvers())
print("initial conditions:   ", orrery.initial_condition_kinds())

# %% [markdown]
# ## 1. Forces only
# `orrery.forces` evaluates the field of N particles once. Compare the
# solvers against the double-precision reference (compensated sums).

# %%
sim = orrery.Simulation.plummer(args.n, seed=42)
pos, mass = sim.positions, sim.mass

ref, ref_pot, _ = orrery.forces(pos, mass, solver="reference", precision="double")
candidates = {"direct, single": dict(solver="direct")}
if "tree/cpu" in orrery.available_solvers():
    candidates["tree, theta=0.5"] = dict(solver="tree", theta=0.5)
    candidates["tree, theta=0.8"] = dict(solver="tree", theta=0.8)
for label, settings in candidates.items():
    acc, pot, report = orrery.forces(pos, mass, **settings)
    err = np.linalg.norm(acc - ref, axis=1) / np.linalg.norm(ref, axis=1)
    interactions = report["particle_interactions"] + report["cell_interactions"]
    print(f"{label:16s} RMS error {np.sqrt(np.mean(err**2)):.2e}  worst {err.max():.2e}  "
          f"{interactions / len(pos):8.0f} interactions/particle  {report['seconds'] * 1e3:7.2f} ms")

# %% [markdown]
# ## 2. A run
# `run` integrates and returns the diagnostics (energies, virial ratio,
# momenta, Lagrangian radii) as a numpy record array.

# %%
solver = "tree" if "tree/cpu" in orrery.available_solvers() else "direct"
sim = orrery.Simulation.plummer(args.n, seed=42, solver=solver, softening=0.01, dt=1 / 128)
log = sim.run(args.t_end, every=0.125)
print(sim)
print("energy error at the end:", log.relative_energy_error[-1], " virial ratio:", log.virial_ratio[-1])
print("wall seconds by phase:", {k: round(v, 3) for k, v in sim.timers.items()})

# %% [markdown]
# ## 3. The particles as numpy arrays
# `sim.x`, `sim.vx`, `sim.ax`, ... are zero-copy, read-only views of the
# simulation's memory: they change as it steps. `sim.positions` is an (N, 3) copy.

# %%
r = np.sqrt(sim.x**2 + sim.y**2 + sim.z**2)
print("particles beyond r = 5:", int((r > 5).sum()), " fastest:", float(np.sqrt(sim.vx**2 + sim.vy**2 + sim.vz**2).max()))

# %% [markdown]
# ## 4. Plots (matplotlib)

# %%
import matplotlib.pyplot as plt

fig, axes = plt.subplots(1, 3, figsize=(15, 4.2))
orrery.plot.energy_error(log, ax=axes[0])
orrery.plot.lagrangian_radii(log, ax=axes[1])
orrery.plot.density_image(sim, ax=axes[2])
fig.tight_layout()
fig.savefig(out / "walkthrough.png", dpi=90)
print("figure:", out / "walkthrough.png")

# %% [markdown]
# ## 5. Files: snapshots (HDF5, GADGET-4 layout) and checkpoints
# Snapshots open in h5py, yt and pynbody, and in `orrery info` / `orrery
# render`; a checkpoint continues bit-identically, here or in `orrery run`.

# %%
sim.save_snapshot(out / "snapshot.h5")
snap = orrery.read_snapshot(out / "snapshot.h5")
print("snapshot: t =", snap["info"]["time"], " N =", len(snap["masses"]), " solver:", snap["info"]["solver"])

sim.save_checkpoint(out / "run.orrck")
resumed = orrery.Simulation.load_checkpoint(out / "run.orrck")
sim.step(10)
resumed.step(10)
print("resumed run identical:", np.array_equal(sim.positions, resumed.positions))
