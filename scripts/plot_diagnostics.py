#!/usr/bin/env python3
"""Plot a run's diagnostics log: relative energy error and Lagrangian radii
against time, into a PNG (matplotlib; no build of Orrery needed).

    scripts/plot_diagnostics.py orrery-out/diagnostics.csv -o diagnostics.png
    scripts/plot_diagnostics.py orrery-out/diagnostics*.csv -o all.png   # a run and its restarts

Several logs (a run and its restarts) are joined in time order. The columns
are those of `orrery run`'s log: time, relative_energy_error, r10, r50, r90.
The log holds code units; the run's unit system is read from a snapshot in
the log's directory (its /Parameters, with h5py): a physical run is plotted
in Gyr and kpc, a Henon run labelled as code units (--units overrides).
"""

import argparse
import csv
import glob
import os
import sys

KPC_CM, GYR_S = 3.0856775814913673e21, 3.15576e16


def run_units(log_path, choice):
    """(time factor, time label, length factor, length label) for the log's run."""
    code = (1.0, "time (code units)", 1.0, "Lagrangian radius (code units)")
    if choice == "code":
        return code
    snapshots = sorted(glob.glob(os.path.join(os.path.dirname(os.path.abspath(log_path)), "snapshot_*.h5")))
    if not snapshots:
        if choice == "physical":
            sys.exit(f"plot_diagnostics: error: --units physical: no snapshot_*.h5 next to {log_path} to read the units from")
        return code
    try:
        import h5py
    except ImportError:
        if choice == "physical":
            sys.exit("plot_diagnostics: error: --units physical needs h5py to read the snapshot's units")
        return code
    with h5py.File(snapshots[0], "r") as f:
        p = f["Parameters"].attrs
        system = p["unit_system"].decode() if "unit_system" in p else "henon"
        length_cm, velocity = float(p["UnitLength_in_cm"]), float(p["UnitVelocity_in_cm_per_s"])
    if system != "physical" and choice != "physical":
        return code
    return (length_cm / velocity / GYR_S, "time (Gyr)", length_cm / KPC_CM, "Lagrangian radius (kpc)")


def read_logs(paths):
    rows = []
    for path in paths:
        with open(path, newline="") as f:
            rows.extend(csv.DictReader(f))
    if not rows:
        sys.exit(f"plot_diagnostics: error: no rows in {', '.join(paths)}")
    missing = [c for c in ("time", "relative_energy_error") if c not in rows[0]]
    if missing:
        sys.exit(f"plot_diagnostics: error: {paths[0]}: missing column(s) {', '.join(missing)}; not an orrery diagnostics log")
    rows.sort(key=lambda r: float(r["time"]))
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("logs", nargs="+", help="diagnostics CSV file(s)")
    parser.add_argument("-o", "--output", default="diagnostics.png", help="PNG to write (default: %(default)s)")
    parser.add_argument("--title", default=None, help="figure title (default: the first log's name)")
    parser.add_argument("--units", choices=("auto", "physical", "code"), default="auto",
                        help="axes in Gyr and kpc (physical) or code units; auto: the run's, from its snapshots")
    args = parser.parse_args(argv)

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = read_logs(args.logs)
    t_scale, t_label, r_scale, r_label = run_units(args.logs[0], args.units)
    t = [float(r["time"]) * t_scale for r in rows]
    fig, (top, bottom) = plt.subplots(2, 1, sharex=True, figsize=(6, 5.5), constrained_layout=True)
    err = [abs(float(r["relative_energy_error"])) for r in rows]
    top.plot(t, [e if e > 0 else float("nan") for e in err], color="C3")
    top.set_yscale("log")
    top.set_ylabel(r"$|E - E_0| / |E_0|$")
    radii = sorted((c for c in rows[0] if c.startswith("r") and c[1:].isdigit()), key=lambda c: int(c[1:]))
    for c in radii:
        bottom.plot(t, [float(r[c]) * r_scale for r in rows], label=f"{c[1:]} %")
    bottom.set_yscale("log")
    bottom.set_xlabel(t_label)
    bottom.set_ylabel(r_label)
    if radii:
        bottom.legend(title="mass fraction", fontsize="small")
    fig.suptitle(args.title or args.logs[0])
    fig.savefig(args.output, dpi=100)
    print(f"{args.output}: {len(rows)} rows")


if __name__ == "__main__":
    main()
