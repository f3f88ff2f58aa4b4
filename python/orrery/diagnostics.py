"""Diagnostics rows as numpy record arrays (one row per measurement), from
Simulation.run or from the CLI's diagnostics.csv."""

import csv

import numpy as np

#: The fractions of the total mass whose Lagrangian radii each row holds.
LAGRANGIAN_FRACTIONS = (0.1, 0.5, 0.9)

#: The record dtype: the columns of the CLI's diagnostics log.
DTYPE = np.dtype([
    ("time", "f8"), ("step", "i8"), ("kinetic", "f8"), ("potential", "f8"), ("total", "f8"),
    ("relative_energy_error", "f8"), ("virial_ratio", "f8"), ("momentum", "f8", (3,)),
    ("angular_momentum", "f8", (3,)), ("lagrangian_radii", "f8", (len(LAGRANGIAN_FRACTIONS),)),
])


def records(rows):
    """A record array (DTYPE) from diagnostics dicts."""
    out = np.zeros(len(rows), dtype=DTYPE).view(np.recarray)
    for i, row in enumerate(rows):
        for name in DTYPE.names:
            out[name][i] = row[name]
    return out


# CSV columns of the CLI's log that hold the vector fields of DTYPE.
_CSV_VECTORS = {"momentum": ("px", "py", "pz"), "angular_momentum": ("lx", "ly", "lz"),
                "lagrangian_radii": ("r10", "r50", "r90")}


def read_csv(path):
    """The CLI's diagnostics log (diagnostics.csv) as a record array of DTYPE,
    for orrery.plot. The wall-time columns are left out."""
    rows = []
    with open(path, newline="") as f:
        for line in csv.DictReader(f):
            row = {name: float(line[name]) for name in DTYPE.names if name not in _CSV_VECTORS}
            row.update({name: [float(line[c]) for c in columns] for name, columns in _CSV_VECTORS.items()})
            rows.append(row)
    return records(rows)
