"""Run the benchmarks and write their reports to bench/results/.

    python -m bench              everything (what `make bench` runs)
    python -m bench detect       detect on Table 2 only (detect_table2.md)
    python -m bench scaling      the verification runs only (scaling.*, reduction.md, PNGs)
    python -m bench scaling --family peterson --family email
    python -m bench --replot     rewrite scaling.md, reduction.md and the plots from scaling.json
"""

from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    parser.add_argument("which", nargs="*", metavar="detect|scaling",
                        help="benchmarks to run (default: all)")
    parser.add_argument("--family", action="append", default=[],
                        help="scaling: only this family (repeatable)")
    parser.add_argument("--replot", action="store_true",
                        help="no runs: rewrite the reports and plots from bench/results/scaling.json")
    args = parser.parse_args(argv)
    if set(args.which) - {"detect", "scaling"}:
        parser.error("benchmarks are: detect, scaling")

    from bench import detect_table2, reduction, scaling

    if args.replot:
        records, elapsed = scaling.load()
        paths = [*scaling.report(records, elapsed), reduction.report(records)]
    else:
        which = args.which or ["detect", "scaling"]
        paths = []
        if "detect" in which:
            paths.append(detect_table2.run())
        if "scaling" in which:
            chosen = [f for f in scaling.FAMILIES if not args.family or f.key in args.family]
            unknown = set(args.family) - {f.key for f in scaling.FAMILIES}
            if unknown:
                parser.error(f"unknown family {', '.join(sorted(unknown))}; "
                             f"known: {', '.join(f.key for f in scaling.FAMILIES)}")
            records, written = scaling.run(chosen)
            paths += [*written, reduction.report(records)]
    for path in paths:
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
