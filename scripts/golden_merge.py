#!/usr/bin/env python3
"""Merge a golden recording (ORRERY_GOLDEN_RECORD's file) into tests/golden/forces_64k.txt.

usage: scripts/golden_merge.py [--replace-visits] tests/golden/forces_64k.txt golden_record.txt

A recorded case that the golden file already has must match it field for field
(a mismatch is reported and nothing is written); a case it lacks is added in
sorted order. With --replace-visits a recorded coherent CUDA case that differs
from its golden only in the node visits (the per-target hash `counts` and the
first of `totals`; its accelerations, potentials, samples and interaction
totals the same) replaces it: the coherent walk counts a warp's visits, which
move with the warps' composition (docs/adr/0018's warp order), not with any
result. Every replacement is listed with its old and new visits.

Every added exact-mode CUDA case must have the accelerations, potentials and
samples of the CPU's exact case of the same name (contract 1); its counters
may differ (the coherent walk counts group visits).
"""
import re
import sys


def records(path):
    out = {}
    for line in open(path):
        f = line.split()
        if len(f) > 2 and not line.startswith('#'):
            out[(f[0], f[1])] = dict(kv.split('=', 1) for kv in f[2:])
    return out


def cpu_twin(name):
    return re.sub(r'/cuda/(coherent/|independent/)?', '/cpu/', name)


def visits_only(old, new):
    """Whether two records differ in the node visits alone (counts, totals' first)."""
    if set(old) != set(new) or any(old[k] != new[k] for k in old if k not in ('counts', 'totals')):
        return False
    return old['totals'].split('/')[1:] == new['totals'].split('/')[1:]


def main(golden_path, record_path, replace_visits=False):
    golden, recorded = records(golden_path), records(record_path)
    bad, added, replaced = [], [], []
    for key, fields in sorted(recorded.items()):
        if key in golden:
            if golden[key] != fields:
                if replace_visits and '/cuda/' in key[1] and '/independent/' not in key[1] and visits_only(golden[key], fields):
                    replaced.append(key)
                    continue
                bad.append(f'{key[1]}: recorded {fields} differs from the golden {golden[key]}')
            continue
        if '/cuda/' in key[1] and '/exact/' in key[1]:
            twin = golden.get((key[0], cpu_twin(key[1]))) or recorded.get((key[0], cpu_twin(key[1])))
            same = ('ax', 'ay', 'az', 'pot', 'sample')
            if twin is None or any(twin[k] != fields[k] for k in same):
                bad.append(f'{key[1]}: exact-mode CUDA results differ from the CPU\'s ({cpu_twin(key[1])})')
        added.append(key)
    for b in bad:
        print('MISMATCH', b)
    if bad:
        return 1
    lines = [l.rstrip('\n') for l in open(golden_path)]
    head = [l for l in lines if l.startswith('#')]
    body = [l for l in lines if l.strip() and not l.startswith('#')]
    body = [l for l in body if tuple(l.split()[:2]) not in replaced]
    for key in added + replaced:
        f = recorded[key]
        body.append(f'{key[0]} {key[1]} ' + ' '.join(f'{k}={v}' for k, v in f.items()))
    body.sort(key=lambda l: l.split()[:2])
    open(golden_path, 'w').write('\n'.join(head + body) + '\n')
    print(f'{len(added)} cases added, {len(replaced)} node visits replaced, '
          f'{len(recorded) - len(added) - len(replaced)} recorded cases equal to the golden file')
    for key in added:
        print('  +', key[1])
    for key in replaced:
        print('  ~', key[1], 'visits', golden[key]['totals'].split('/')[0], '->', recorded[key]['totals'].split('/')[0])
    return 0


if __name__ == '__main__':
    args = sys.argv[1:]
    replace = '--replace-visits' in args
    args = [a for a in args if a != '--replace-visits']
    if len(args) != 2:
        sys.exit(__doc__)
    sys.exit(main(args[0], args[1], replace))
