#!/usr/bin/env python3
"""Plot a run's diagnostics log: relative energy error and Lagrangian radii
against time, into a PNG (matplotlib; no build of Orrery needed).

    scripts/plot_diagnostics.py orrery-out/diagnostics.csv -o diagnostics.png
    scripts/plot_diagnostics.py orrery-out/diagnostics*.csv -o all.png   # a run and its restarts

Several logs (a run and its restarts) are joined in time order. The columns
are those of `orrery run`'s log: time, relative_energy_error, r10, r50, r90.
"""

import argparse
import csv
import sys


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
    args = parser.parse_args(argv)

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = read_logs(args.logs)
    t = [float(r["time"]) for r in rows]
    fig, (top, bottom) = plt.subplots(2, 1, sharex=True, figsize=(6, 5.5), constrained_layout=True)
    err = [abs(float(r["relative_energy_error"])) for r in rows]
    top.plot(t, [e if e > 0 else float("nan") for e in err], color="C3")
    top.set_yscale("log")
    top.set_ylabel(r"$|E - E_0| / |E_0|$")
    radii = sorted((c for c in rows[0] if c.startswith("r") and c[1:].isdigit()), key=lambda c: int(c[1:]))
    for c in radii:
        bottom.plot(t, [float(r[c]) for r in rows], label=f"{c[1:]} %")
    bottom.set_yscale("log")
    bottom.set_xlabel("time (code units)")
    bottom.set_ylabel("Lagrangian radius")
    if radii:
        bottom.legend(title="mass fraction", fontsize="small")
    fig.suptitle(args.title or args.logs[0])
    fig.savefig(args.output, dpi=100)
    print(f"{args.output}: {len(rows)} rows")


if __name__ == "__main__":
    main()
