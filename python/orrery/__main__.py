"""python -m orrery ARGS: the orrery command-line program installed with the
package (the same executable `orrery` on PATH is), run with ARGS."""

import os
import pathlib
import sys


def executable():
    """The CLI that came with this package (orrery/_bin/orrery)."""
    path = pathlib.Path(__file__).resolve().parent / "_bin" / "orrery"
    if not os.access(path, os.X_OK):
        raise SystemExit(f"orrery: the command-line program is not installed with this package ({path} is missing); "
                         "reinstall with `pip install .`")
    return str(path)


def main():
    exe = executable()
    os.execv(exe, [exe, *sys.argv[1:]])


if __name__ == "__main__":
    main()
