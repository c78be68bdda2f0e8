"""``python -m riptide.benchmarks [options]``: the same as ``riptide bench [options]``."""

import sys

from riptide.cli import main

if __name__ == "__main__":
    sys.exit(main(["bench", *sys.argv[1:]]))
