#!/usr/bin/env python3
"""Feeds `orrery` random mutations of a valid snapshot, checkpoint and
configuration for a bounded time: every run must exit 0 (the mutation left
the file valid) or 2 with exactly one line on stderr, never crash or exit
otherwise. This is the whole program, so it also catches what in-process
tests cannot (a library crashing at exit, as HDF5 did with a file left open).

usage: fuzz_readers.py ORRERY WORKDIR [SECONDS] [SEED]"""
import pathlib
import random
import subprocess
import sys
import time


def mutate(data: bytes, rng: random.Random) -> bytes:
    """Flip bits, overwrite or zero a run, truncate, or append (as io_mutation_test.cpp)."""
    s = bytearray(data)
    kind = rng.randrange(5)
    if kind == 0:
        for _ in range(rng.randint(1, 8)):
            s[rng.randrange(len(s))] ^= 1 << rng.randrange(8)
    elif kind in (1, 2):
        at = rng.randrange(len(s))
        n = min(rng.randint(1, 64 if kind == 1 else 512), len(s) - at)
        s[at:at + n] = bytes(rng.randrange(256) for _ in range(n)) if kind == 1 else bytes(n)
    elif kind == 3:
        del s[rng.randrange(len(s)):]
    else:
        s += bytes(rng.randrange(256) for _ in range(rng.randint(1, 100)))
    return bytes(s)


def main():
    orrery, work = sys.argv[1], pathlib.Path(sys.argv[2])
    seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 20
    rng = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 15)
    work.mkdir(parents=True, exist_ok=True)
    small = ["--set", "initial_conditions.count=64", "--set", "integration.t_end=0.03125",
             "--set", f"output.directory={work / 'valid'}"]
    subprocess.run([orrery, "run", *small, "--set", "output.snapshot_interval=1"], check=True, capture_output=True)
    snapshot = (work / "valid/snapshot_0000.h5").read_bytes()
    checkpoint = next((work / "valid").glob("checkpoint_*.orrck")).read_bytes()
    config = subprocess.run([orrery, "config", "--dump"], check=True, capture_output=True).stdout
    # Each reader, with the command that reads a file of its kind.
    readers = [
        ("m.h5", snapshot, lambda p: [orrery, "info", p]),
        ("m.orrck", checkpoint, lambda p: [orrery, "info", p]),
        ("m.orrck", checkpoint, lambda p: [orrery, "run", "--restart", p, "--set", "integration.t_end=0.0625"]),
        ("m.toml", config, lambda p: [orrery, "config", p]),
    ]
    deadline, trials, refused = time.monotonic() + seconds, 0, 0
    while time.monotonic() < deadline:
        name, valid, command = rng.choice(readers)
        path = work / name
        path.write_bytes(mutate(valid, rng))
        r = subprocess.run(command(str(path)), capture_output=True, text=True, errors="replace", cwd=work, timeout=60)
        lines = r.stderr.splitlines()
        if r.returncode not in (0, 2) or (r.returncode == 2 and len(lines) != 1):
            kept = work / f"failing_{trials}_{name}"
            path.rename(kept)
            sys.exit(f"FAIL: {' '.join(command(str(kept)))}: exit status {r.returncode}, stderr:\n{r.stderr}")
        trials += 1
        refused += r.returncode == 2
    print(f"fuzz: {trials} mutated files in {seconds:g} s, {refused} refused with one line, none crashed")
    if trials < 20 or refused == 0:
        sys.exit("FAIL: too few trials or no mutation refused: the harness is not testing anything")


if __name__ == "__main__":
    main()
