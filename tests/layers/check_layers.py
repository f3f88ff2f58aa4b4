#!/usr/bin/env python3
"""The folders of src/orrery are layers (DESIGN §7): a folder includes only
folders listed before it in src/orrery/CMakeLists.txt's foreach, so no two
folders include each other. Test files (*_test.*) are left out: a test may
use what sits above its folder. Prints every include that breaks the order,
with the file and the line; exit 0 when there is none, 1 otherwise.

usage: check_layers.py [REPO_ROOT]"""
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
src = os.path.join(root, "src", "orrery")
listing = open(os.path.join(src, "CMakeLists.txt")).read()
order = re.search(r"foreach\(concept ([^)]*)\)", listing).group(1).split()
rank = {folder: k for k, folder in enumerate(order)}
include = re.compile(r'^\s*#\s*include\s*"orrery/([A-Za-z0-9_]+)/([^"]+)"')
bad = []
for folder in sorted(os.listdir(src)):
    path = os.path.join(src, folder)
    if not os.path.isdir(path):
        continue
    if folder not in rank:
        bad.append(f"src/orrery/{folder}/ is not in the layer order of src/orrery/CMakeLists.txt ({' '.join(order)})")
        continue
    for name in sorted(os.listdir(path)):
        if "_test" in name or not name.endswith((".hpp", ".cpp", ".cu", ".cuh", ".h")):
            continue
        for lineno, line in enumerate(open(os.path.join(path, name), errors="replace"), 1):
            m = include.match(line)
            if m is None or m.group(1) == folder:
                continue
            other = m.group(1)
            if other not in rank or rank[other] > rank[folder]:
                bad.append(f"src/orrery/{folder}/{name}:{lineno}: includes orrery/{other}/{m.group(2)}, "
                           f"a folder above {folder}/ (layers, bottom up: {' '.join(order)})")
for b in bad:
    print(b)
print(f"layers: {len(bad)} include(s) against the order {' < '.join(order)}")
sys.exit(1 if bad else 0)
