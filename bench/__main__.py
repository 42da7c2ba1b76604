"""Run every benchmark and write its report to bench/results/."""

from __future__ import annotations

import sys

from bench import detect_table2, reduction


def main() -> int:
    for benchmark in (detect_table2, reduction):
        path = benchmark.run()
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
