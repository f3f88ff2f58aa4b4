#!/usr/bin/env python3
"""The closing lines of scripts/test.sh: why each skipped test was skipped
(grouped by reason: no GPU, no AVX-512, running as root, ...) and one line
for the whole suite, C++ (CTest) and Python (pytest) together.

    scripts/test_summary.py --ctest build/release/Testing/Temporary/LastTest.log --pytest build/release/pytest.xml \
        [--pip build/release/pip.xml]

Reads CTest's LastTest.log (the output of every test; a GoogleTest skip
prints "file:line: Skipped" and its message on the next line) and pytest's
JUnit XML, and with --pip the JUnit XML of the `pip install .` test
(scripts/pip_test.sh). A file given, or the two first, may be missing (that
part did not run): it is said so, and the suite did not pass.
"""

import argparse
import collections
import pathlib
import re
import sys
import xml.etree.ElementTree as ElementTree


def ctest_results(log_path):
    """(counts {passed, failed, skipped}, Counter of skip reasons) from LastTest.log."""
    counts, reasons = collections.Counter(), collections.Counter()
    text = pathlib.Path(log_path).read_text(errors="replace")
    # One block per test, from "N/M Testing: name" to the end of its "time elapsed" line.
    for block in re.split(r"^\d+/\d+ Testing: ", text, flags=re.M)[1:]:
        if "Skip regular expression found" in block:
            counts["skipped"] += 1
            message = re.search(r": Skipped\n(.*?)\n", block)
            reasons[message.group(1).strip() if message and message.group(1).strip() else "no reason given"] += 1
        elif re.search(r"^Test Passed\.", block, flags=re.M) or "Test Pass Reason:" in block:
            counts["passed"] += 1
        else:
            counts["failed"] += 1
    return counts, reasons


def pytest_results(xml_path):
    """(counts, Counter of skip reasons) from pytest's JUnit XML."""
    counts, reasons = collections.Counter(), collections.Counter()
    for case in ElementTree.parse(xml_path).getroot().iter("testcase"):
        skipped = case.find("skipped")
        if skipped is not None:
            counts["skipped"] += 1
            # pytest writes "file:line: reason" for pytest.skip; the reason is what matters.
            reason = skipped.get("message", "") or "no reason given"
            reasons[re.sub(r"^.*?:\d+: ", "", reason)] += 1
        elif case.find("failure") is not None or case.find("error") is not None:
            counts["failed"] += 1
        else:
            counts["passed"] += 1
    return counts, reasons


def describe(name, counts):
    total = sum(counts.values())
    return f"{name} {total} ({counts['passed']} passed, {counts['skipped']} skipped, {counts['failed']} failed)"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ctest", help="CTest's LastTest.log")
    parser.add_argument("--pytest", help="pytest's --junitxml file")
    parser.add_argument("--pip", help="the --junitxml file of scripts/pip_test.sh (the pip install test)")
    args = parser.parse_args(argv)
    parts, failed = [], 0
    suites = [("C++", args.ctest, ctest_results), ("Python", args.pytest, pytest_results)]
    if args.pip is not None:
        suites.append(("pip install", args.pip, pytest_results))
    for name, path, read in suites:
        if not path or not pathlib.Path(path).exists():
            parts.append(f"{name}: did not run")
            failed += 1
            continue
        counts, reasons = read(path)
        failed += counts["failed"]
        if reasons:
            print(f"skipped {name} tests, by reason:")
            for reason, n in reasons.most_common():
                print(f"  {n:4d}  {reason}")
        parts.append(describe(name, counts))
    print(f"tests: {'; '.join(parts)}: {'FAILED' if failed else 'all passed'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
