#!/usr/bin/env python3
"""A model of one step of the distributed tree on many GPUs, built from the
parts scripts/mpi_let_bench.sh measured on CPU ranks (docs/performance/mpi.md,
part 2, "A model for 64-4096 GPUs").

usage: scripts/mpi_model.py CSV [--check]

From the CSV (bench/mpi_let_bench rows) it fits what does not depend on the
processor: the bytes of local essential trees a rank receives and the
particles and nodes they hold, as functions of a rank's n = N/K particles and
of K; the O(K) collectives' bytes; the bytes of migration per step; the load
imbalance of the walk. With the H200's measured tree rates and the links'
bandwidths (the constants below, each with its source) it predicts the time
per step on 64, 512 and 4096 GPUs for 1e9 and 1e10 particles. --check also
asserts that the fits reproduce the rows they came from (within a factor 2)
and that every prediction is finite and positive (the ctest scripts.mpi_model).
Only the standard library: it runs under any python3.
"""
import csv
import math
import statistics
import sys

# --- One H200 (docs/performance/gpu_tree.md, gpu_tree_build.md) ------------
WALK_S = 7.43e-9   # per particle at N = 16M: geometric monopole, theta 0.5, accelerations only (124.7 ms;
                   # 7.82 ms at 1M); a target's walk is the one-process walk of the whole N, which grows
WALK_PER_DECADE_S = 0.26e-9  # per decade of N: 1.07e9 particles in 8.82 s on one H200, 8.2 ns with the build
BUILD_S = 0.4e-9   # per particle: keys, sort, topology, moments: 0.396 ms at 1M (0.27 ns at 16M)
ASSEMBLY_S = 0.4e-9  # per held particle: the LET's selection and assembly, assumed to cost a second build
KICK_DRIFT_S = 0.01e-9  # per particle: 7 arrays streamed at ~4.8 TB/s
BYTES_PER_PARTICLE = 113  # device memory per particle held (gpu_tree.md)
MEMORY_B = 141e9
# --- Links ------------------------------------------------------------------
GPUS_PER_NODE = 8
NVLINK_B = 380e9   # per direction per GPU: NVLink 4 is 450 GB/s per direction (900 GB/s both ways,
                   # MLCommons H200-SXM-141GBx8 system description); 380 GB/s measured on H100
                   # NVLink 4 (NVIDIA/nccl issue #1264)
IB_B = 45e9        # per GPU: one InfiniBand NDR port (400 Gb/s = 50 GB/s) per GPU (the same system lists
                   # 10 x 400G InfiniBand for 8 GPUs), at 90 % of the signalling rate (assumed)
LATENCY_NODE_S = 10e-6  # one collective within a node (assumed: NCCL/MPI small-message order)
LATENCY_HOP_S = 5e-6    # per log2(K) step of a collective across nodes (assumed)
PEER_S = 1e-6           # per peer of an all-to-all (pairwise exchange, small messages; assumed)
TOP_LEVELS = 21         # all-reduces of the top tree per step, one per level (docs/adr/0012)
# --- Published points (../shared/research/gpu-performance-anchors.md, distributed-traversal-reproducibility.md)
BONSAI_PER_GPU = 13.0e6  # 242e9 particles on 18600 K20X (Titan), > 95 % efficiency on Piz Daint


def rows_of(path):
    """The CPU ranks' rows (a CSV from before the backend column has only
    those); the GPU ranks' rows (backend cuda/...) are not what the model fits,
    and their empty-on-CPU columns (the walk's split) and the text columns
    (model, backend, freed_memory) are left as text."""
    with open(path, newline="") as f:
        rows = [r for r in csv.DictReader(f) if r.get("backend", "cpu") == "cpu"]
    if not rows:
        raise SystemExit(f"{path}: no rows of CPU ranks (backend cpu) to fit; GPU-rank rows are not modelled")
    for r in rows:
        for k, v in r.items():
            if k not in ("model", "backend", "freed_memory") and v != "":
                r[k] = float(v)
        r["per_rank"] = r["n"] / r["ranks"]
    return rows


def least_squares(xs, ys):
    """Coefficients c >= 0 of y = sum c_j x_j (normal equations; a negative
    coefficient is dropped and the rest refitted)."""
    cols = list(range(len(xs[0])))
    while True:
        m = [[sum(x[i] * x[j] for x in xs) for j in cols] for i in cols]
        v = [sum(x[i] * y for x, y in zip(xs, ys)) for i in cols]
        c = solve(m, v)
        if all(ci >= 0 for ci in c) or len(cols) == 1:
            out = [0.0] * len(xs[0])
            for i, ci in zip(cols, c):
                out[i] = max(ci, 0.0)
            return out
        cols = [i for i, ci in zip(cols, c) if ci >= 0] or cols[:1]


def solve(m, v):
    n = len(v)
    a = [row[:] + [b] for row, b in zip(m, v)]
    for i in range(n):
        p = max(range(i, n), key=lambda r: abs(a[r][i]))
        a[i], a[p] = a[p], a[i]
        if a[i][i] == 0:
            return [0.0] * n
        for r in range(n):
            if r != i:
                f = a[r][i] / a[i][i]
                a[r] = [x - f * y for x, y in zip(a[r], a[i])]
    return [a[i][n] / a[i][i] for i in range(n)]


def surface_terms(per_rank, ranks):
    """The LET's two terms: the domain's surface (n^(2/3): the near field,
    leaves and particles of the neighbours) and the far field (log2 K: the
    coarse nodes of every other part of the volume)."""
    return [per_rank ** (2.0 / 3.0), math.log2(ranks)]


class Fit:
    def __init__(self, rows):
        many = [r for r in rows if r["ranks"] >= 2]
        if not many:
            raise SystemExit("mpi_model: no row with K >= 2 ranks; accepted: a CSV of scripts/mpi_let_bench.sh with K >= 2")
        xs = [surface_terms(r["per_rank"], r["ranks"]) for r in many]
        self.rows = many
        self.let_bytes = least_squares(xs, [r["let_bytes_received_mean"] for r in many])
        self.let_particles = least_squares(xs, [r["let_particles_mean"] for r in many])
        self.let_nodes = least_squares(xs, [r["let_nodes_mean"] for r in many])
        # The top tree's reductions and the allgathers of its leaves' moments and boxes: O(K) per rank.
        self.global_per_rank = statistics.median(r["global_bytes_received_max"] / r["ranks"] for r in many)
        # Particles that cross a domain's surface in a step (the bench's dt = 1/1024).
        self.migration = statistics.median(r["migration_bytes_received_mean"] / r["per_rank"] ** (2.0 / 3.0)
                                           for r in many)
        widest = max(r["ranks"] for r in many)
        self.imbalance = statistics.median(r["walk_max_s"] / r["walk_mean_s"] for r in many
                                           if r["ranks"] == widest and r["walk_mean_s"] > 0)
        # The bracket's other end: every part but the walk costing, next to the walk, what it
        # costs on the CPU ranks (the rows of the largest N with K >= 2).
        largest = max(r["n"] for r in many)
        self.cpu_ratio = statistics.median(
            sum(r[p + "_mean_s"] for p in ("decomposition", "migration", "tree", "exchange")) / r["walk_mean_s"]
            for r in many if r["n"] == largest and r["walk_mean_s"] > 0)

    @staticmethod
    def at(c, per_rank, ranks):
        return sum(ci * xi for ci, xi in zip(c, surface_terms(per_rank, ranks)))


def cpu_parts(rows):
    """Per particle and core, the CPU parts as measured (for the page)."""
    print("CPU ranks as measured: seconds per particle per core (mean over ranks x threads / N), step max / mean")
    print(f"{'K':>3} {'N':>9} {'thr':>3} {'decomp':>8} {'migr':>8} {'tree':>8} {'exch':>8} {'walk':>8} "
          f"{'k/d':>8} {'step_max':>9} {'imbal':>6} {'held/n':>6} {'LET MB':>7}")
    for r in sorted(rows, key=lambda r: (r["n"], r["ranks"])):
        per = r["ranks"] * r["threads_per_rank"] / r["n"]
        parts = [r[p + "_mean_s"] * per for p in ("decomposition", "migration", "tree", "exchange", "walk", "kick_drift")]
        print(f"{r['ranks']:3.0f} {r['n']:9.0f} {r['threads_per_rank']:3.0f} "
              + " ".join(f"{p * 1e6:7.2f}u" for p in parts)
              + f" {r['step_max_s']:9.3f} {r['step_max_s'] / r['step_mean_s']:6.2f}"
              + f" {r['held_particles_mean'] / r['per_rank']:6.2f} {r['let_bytes_received_mean'] / 1e6:7.2f}")
    # The cores are the same in every row (threads per rank = cores / K): the efficiency of K
    # ranks is the step's cost per particle on one rank over its cost on K, against one rank at
    # the same N (strong) or at the same particles per rank (weak: N = K times as large).
    def per_particle(r):
        return r["step_max_s"] / r["n"]
    for kind, key in (("strong", "n"), ("weak", "per_rank")):
        groups = {}
        for r in rows:
            groups.setdefault(r[key], []).append(r)
        for value, group in sorted(groups.items()):
            one = [r for r in group if r["ranks"] == 1]
            if one and len(group) > 1:
                effs = ", ".join(f"K = {r['ranks']:.0f}: {per_particle(one[0]) / per_particle(r):.2f}"
                                 for r in sorted(group, key=lambda r: r["ranks"]) if r["ranks"] > 1)
                print(f"{kind} scaling at {key} = {value:.0f}, cost per particle of K = 1 / of K: {effs}")


def walk_s(n_total):
    """The H200's walk per target in a tree of n_total particles."""
    return WALK_S + WALK_PER_DECADE_S * max(0.0, math.log10(n_total / 16.8e6))


def step(fit, n_total, gpus):
    """Seconds of one step on `gpus` H200s, by part, and the particles a GPU holds."""
    n = n_total / gpus
    let_p = Fit.at(fit.let_particles, n, gpus) if gpus > 1 else 0.0
    let_b = Fit.at(fit.let_bytes, n, gpus) if gpus > 1 else 0.0
    nodes = max(1, gpus // GPUS_PER_NODE)
    if nodes == 1:
        let_s = let_b / NVLINK_B
        latency = LATENCY_NODE_S
    else:
        # Half of a domain's surface faces the other GPUs of its node (8 domains, one Morton
        # segment: 8 n^(2/3) of surface, (8n)^(2/3) = 4 n^(2/3) of it outside); the far field
        # comes from other nodes.
        surface = fit.let_bytes[0] * n ** (2.0 / 3.0)
        far = let_b - surface
        let_s = 0.5 * surface / NVLINK_B + (0.5 * surface + far) / IB_B
        latency = LATENCY_NODE_S + LATENCY_HOP_S * math.log2(gpus)
    link = NVLINK_B if nodes == 1 else IB_B
    parts = {
        "walk": walk_s(n_total) * n * fit.imbalance,
        "tree": BUILD_S * n + ASSEMBLY_S * (n + let_p),
        "let": (let_s + (gpus - 1) * PEER_S + latency) if gpus > 1 else 0.0,
        "global": (fit.global_per_rank * gpus / link + (TOP_LEVELS + 3) * latency) if gpus > 1 else 0.0,
        "migration": (fit.migration * n ** (2.0 / 3.0) / link + (gpus - 1) * PEER_S) if gpus > 1 else 0.0,
        "kick_drift": KICK_DRIFT_S * n,
    }
    # The same step with the compute besides the walk at the CPU's ratio to the walk.
    at_cpu_ratio = parts["walk"] * (1 + fit.cpu_ratio) + parts["let"] + parts["global"] + parts["migration"]
    return parts, n + let_p, at_cpu_ratio


def predict(fit):
    print("\nPredicted step on H200s (ms), one GPU per rank, the step's parts in sequence (no overlap:")
    print("the walk starts when the LET has arrived); efficiency = one GPU's walk, build and kick/drift of")
    print("n = N/K particles (the step of a GPU alone) / the step:")
    print(f"{'N':>8} {'GPUs':>5} {'n/GPU':>9} {'walk':>8} {'tree':>7} {'let':>7} {'global':>7} {'migr':>6} "
          f"{'step':>8} {'eff':>5} {'cpu-ratio':>9} {'held/n':>6} {'GB held':>7}")
    out = []
    for n_total in (1e9, 1e10):
        for gpus in (64, 512, 4096):
            out.append(report(fit, n_total, gpus))
    print("Bonsai's load (13.0M particles per GPU, > 95 % weak-scaling efficiency published):")
    for gpus in (64, 512, 4096):
        out.append(report(fit, BONSAI_PER_GPU * gpus, gpus))
    return out


def report(fit, n_total, gpus):
    parts, held, at_cpu_ratio = step(fit, n_total, gpus)
    total = sum(parts.values())
    eff = (walk_s(n_total) + BUILD_S + KICK_DRIFT_S) * n_total / gpus / total
    memory = held * BYTES_PER_PARTICLE / 1e9
    print(f"{n_total:8.1e} {gpus:5d} {n_total / gpus:9.2e} " + " ".join(
        f"{parts[p] * 1e3:{w}.2f}" for p, w in (("walk", 8), ("tree", 7), ("let", 7), ("global", 7), ("migration", 6)))
        + f" {total * 1e3:8.2f} {eff:5.2f} {at_cpu_ratio * 1e3:9.2f} {held / (n_total / gpus):6.2f} {memory:7.1f}"
        + ("" if memory < MEMORY_B / 1e9 else "  (does not fit)"))
    return n_total, gpus, total, parts, at_cpu_ratio


def main(argv):
    if len(argv) < 2 or argv[1].startswith("-"):
        raise SystemExit(__doc__)
    rows = rows_of(argv[1])
    fit = Fit(rows)
    cpu_parts(rows)
    print("\nFits over the rows with K >= 2 (n = N/K per rank): y = a n^(2/3) + c log2 K")
    for name, c, col in (("LET bytes received", fit.let_bytes, "let_bytes_received_mean"),
                         ("LET particles", fit.let_particles, "let_particles_mean"),
                         ("LET nodes", fit.let_nodes, "let_nodes_mean")):
        ratios = [Fit.at(c, r["per_rank"], r["ranks"]) / r[col] for r in fit.rows if r[col] > 0]
        print(f"  {name:20s} a = {c[0]:10.4g}  c = {c[1]:10.4g}   model / measured {min(ratios):.2f} .. {max(ratios):.2f}")
        if "--check" in argv:
            assert all(math.isfinite(x) and x >= 0 for x in c), (name, c)
            assert all(0.5 <= q <= 2.0 for q in ratios), (name, ratios)
    print(f"  O(K) collectives: {fit.global_per_rank:.0f} bytes received per rank per rank of the run")
    print(f"  migration: {fit.migration:.1f} n^(2/3) bytes per rank per step (dt = 1/1024)")
    print(f"  walk imbalance (slowest / mean rank) at the largest K: {fit.imbalance:.2f}")
    print(f"  the CPU's other compute (decomposition, migration, tree, exchange) / walk: {fit.cpu_ratio:.2f}")
    predictions = predict(fit)
    if "--check" in argv:
        for n_total, gpus, total, parts, at_cpu_ratio in predictions:
            assert math.isfinite(total) and total > 0 and at_cpu_ratio >= total * 0.5, (n_total, gpus, parts)
            assert all(math.isfinite(v) and v >= 0 for v in parts.values()), (n_total, gpus, parts)
        print("check: fits within a factor 2 of every row, predictions finite and positive")


if __name__ == "__main__":
    main(sys.argv)
