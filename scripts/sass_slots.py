#!/usr/bin/env python3
"""Issue slots per interaction of the fast direct kernels, read off the SASS.

usage: cuobjdump -sass BINARY | scripts/sass_slots.py SLOTS.csv HISTOGRAM.txt

For every single-precision instantiation of direct_fast_kernel it finds the
innermost loops that contain MUFU.RSQ (one per interaction), takes the one
with the fewest instructions per MUFU.RSQ (the unmasked hot loop; the masked
one runs only on the K diagonal tiles), and writes
  <form>_K<K>_T<tile>_<pot|nopot>,<instructions per interaction>
to SLOTS.csv, and that loop's opcode histogram to HISTOGRAM.txt. Every
instruction counts as one issue slot (NOPs included: they take an issue cycle)."""
import collections
import re
import sys

FUNC = re.compile(r"Function : (\S+)")
INSTR = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(.*?);")
LABEL = re.compile(r"^\s*(\.L_x_\d+):")
NAME = re.compile(r"direct_fast_kernelI.*?(PlummerPlainPair|PlummerScaledPair|SplineSoftening)I([fd])E+Li(\d+)ELi(\d+)ELb([01])")
FORMS = {"PlummerPlainPair": "plain", "PlummerScaledPair": "scaled", "SplineSoftening": "spline"}


def functions(lines):
    name, body = None, []
    for line in lines:
        m = FUNC.search(line)
        if m:
            if name:
                yield name, body
            name, body = m.group(1), []
        elif name:
            body.append(line)
    if name:
        yield name, body


def parse(body):
    """[(address, text)] and {label: address}."""
    instrs, labels, pending = [], {}, []
    for line in body:
        lm = LABEL.match(line)
        if lm:
            pending.append(lm.group(1))
            continue
        m = INSTR.search(line)
        if m:
            addr = int(m.group(1), 16)
            for lab in pending:
                labels[lab] = addr
            pending = []
            instrs.append((addr, m.group(2).strip()))
    return instrs, labels


def opcode(text):
    t = re.sub(r"^@!?U?P\w+\s+", "", text)
    return t.split()[0] if t else ""


def best_loop(instrs, labels):
    best = None
    for i, (addr, text) in enumerate(instrs):
        if opcode(text) != "BRA":
            continue
        target = re.search(r"(0x[0-9a-f]+|\.L_x_\d+)", text.split("BRA", 1)[1])
        if not target:
            continue
        t = target.group(1)
        taddr = int(t, 16) if t.startswith("0x") else labels.get(t)
        if taddr is None or taddr > addr:
            continue
        loop = [x for x in instrs if taddr <= x[0] <= addr]
        ops = [opcode(x[1]) for x in loop]
        mufu = sum(1 for x in loop if "MUFU.RSQ" in x[1])
        if mufu == 0:
            continue
        ratio = len(loop) / mufu
        if best is None or ratio < best[0]:
            best = (ratio, collections.Counter(ops), mufu)
    return best


def main():
    slots_path, hist_path = sys.argv[1], sys.argv[2]
    seen = {}
    with open(hist_path, "w") as hist:
        for name, body in functions(sys.stdin):
            m = NAME.search(name)
            if not m or m.group(2) != "f":
                continue
            key = f"{FORMS[m.group(1)]}_K{m.group(3)}_T{m.group(4)}_{'pot' if m.group(5) == '1' else 'nopot'}"
            if key in seen:
                continue
            loop = best_loop(*parse(body))
            if loop is None:
                continue
            ratio, ops, mufu = loop
            seen[key] = ratio
            hist.write(f"{key}: {ratio:.3f} issue slots per interaction ({mufu} interactions per loop trip)\n")
            for op, count in ops.most_common():
                hist.write(f"    {op:<10} {count:5d}  {count / mufu:6.3f} per interaction\n")
    with open(slots_path, "w") as out:
        for key, ratio in sorted(seen.items()):
            out.write(f"{key},{ratio:.4f}\n")
    for key, ratio in sorted(seen.items()):
        print(f"sass: {key:<24} {ratio:6.3f} slots/interaction")


if __name__ == "__main__":
    main()
