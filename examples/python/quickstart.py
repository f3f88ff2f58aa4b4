"""Orrery in a few lines: a Plummer sphere, integrated for two time units.

    python examples/python/quickstart.py [--n 4096]
"""

import argparse

import orrery

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--n", type=int, default=4096, help="number of particles")
args = parser.parse_args()

solver = "tree" if "tree/cpu" in orrery.available_solvers() else "direct"
sim = orrery.Simulation.plummer(args.n, seed=1, solver=solver, softening=0.01, dt=1 / 128)
log = sim.run(2.0, every=0.25)  # diagnostics every 0.25 time units, as a numpy record array

print(sim)
print("relative energy error:", log.relative_energy_error[-1])
print("half-mass radius:     ", log.lagrangian_radii[-1, 1])
