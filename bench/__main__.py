"""Run the benchmarks and write their reports to bench/results/.

    python -m bench              everything (what `make bench` runs)
    python -m bench detect       detect on Table 2 of [DM08] only (detect_table2.md)
    python -m bench scaling      the verification runs only (scaling.*, reduction.md, PNGs)
    python -m bench scaling --family peterson --family email
    python -m bench --replot     rewrite scaling.md, reduction.md and the plots from scaling.json
    python -m bench corpus --replot    rewrite corpus_symmetry.md from its JSON
    python -m bench transitions  time per transition, every strategy (per_transition.md)
    python -m bench transitions --family peterson --max-n 6     a quick one
    python -m bench transitions --big      with Peterson 9 and e-mail 7 (minutes, gigabytes)
    python -m bench transitions --big --strategy auto --strategy refine    only those two
    python -m bench corpus       detect on the corpus's BEEM models and SPIN examples, and the
                                 reduction where there is a group (corpus_symmetry.md)
    python -m bench corpus --model 'beem/anderson.*'    only the models matching (repeatable)
    python -m bench corpus --save-before    also keep the rows as the "before" of the report
    python -m bench swarm        a swarm of 8 bitstate jobs against one run of the same memory,
                                 with and without symmetry, on Peterson 10 (swarm.md)
    python -m bench swarm --family email --max-n 8 --jobs 4 --bits 22
    python -m bench multicore    -DNCORE=2 against one core on Peterson 7 and e-mail 5 (multicore.md)
    python -m bench check        verify with and without --check-symmetry on three models (check_symmetry.md)
    python -m bench everyday     spin -run against verify (first run, rerun, --strategy none) and
                                 --version on five small corpus models (everyday.md)
"""

from __future__ import annotations

import argparse
import dataclasses
import fnmatch
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    parser.add_argument("which", nargs="*", metavar="detect|scaling|transitions|corpus|swarm|multicore|check|everyday",
                        help="benchmarks to run (default: all)")
    parser.add_argument("--family", action="append", default=[],
                        help="scaling, transitions: only this family (repeatable)")
    parser.add_argument("--max-n", type=int, metavar="N",
                        help="transitions: no size above N; swarm: the model's size")
    parser.add_argument("--jobs", type=int, metavar="N", help="swarm: the swarm's jobs (default: 8)")
    parser.add_argument("--bits", type=int, metavar="K", help="swarm: each job's -w (default: 20)")
    parser.add_argument("--big", action="store_true",
                        help="transitions: also Peterson 9 and e-mail 7, with higher caps")
    parser.add_argument("--budget", type=float, metavar="SECONDS",
                        help="transitions, corpus: the wall-clock budget of one verification run")
    parser.add_argument("--strategy", action="append", default=[], metavar="NAME",
                        help="transitions: only auto or this registered strategy (repeatable; "
                             "plain SPIN's yardstick always runs)")
    parser.add_argument("--model", action="append", default=[], metavar="GLOB",
                        help="corpus: only the models whose path in the corpus matches (repeatable)")
    parser.add_argument("--all-instances", action="store_true",
                        help="corpus: measure the reduction on every BEEM instance with a group, "
                             "not only the first of each family")
    parser.add_argument("--save-before", action="store_true",
                        help="corpus: also write the rows as corpus_symmetry_before.json")
    parser.add_argument("--replot", action="store_true",
                        help="no runs: rewrite the reports and plots from bench/results/scaling.json "
                             "(with corpus alone: corpus_symmetry.md from its JSON)")
    args = parser.parse_args(argv)
    if set(args.which) - {"detect", "scaling", "transitions", "corpus", "swarm", "multicore", "check", "everyday"}:
        parser.error("benchmarks are: detect, scaling, transitions, corpus, swarm, multicore, check, everyday")

    from bench import (
        check_symmetry,
        corpus_symmetry,
        detect_table2,
        everyday,
        multicore,
        reduction,
        scaling,
        swarm,
        transitions,
    )

    if args.replot and args.which == ["corpus"]:
        paths = [corpus_symmetry.rewrite()]
    elif args.replot:
        records, elapsed = scaling.load()
        paths = [*scaling.report(records, elapsed), reduction.report(records)]
    else:
        which = args.which or ["everyday", "detect", "scaling", "transitions", "corpus", "swarm", "multicore",
                               "check"]
        families = {"scaling": [f.key for f in scaling.FAMILIES],
                    "transitions": [f.key for f in transitions.FAMILIES],
                    "swarm": list(swarm.GENERATORS)}
        known = {key for part in which for key in families.get(part, [])}
        if set(args.family) - known:
            parser.error(f"unknown family {', '.join(sorted(set(args.family) - known))}; "
                         f"known: {', '.join(sorted(known))}")
        unknown = set(args.strategy) - set(transitions.strategies())
        if unknown:
            parser.error(f"unknown strategy {', '.join(sorted(unknown))}; "
                         f"known: {', '.join(transitions.strategies())}")

        def chosen(all_families):
            return [f for f in all_families if not args.family or f.key in args.family]

        paths = []
        if "everyday" in which:
            paths.append(everyday.run())
        if "detect" in which:
            paths.append(detect_table2.run())
        if "scaling" in which and chosen(scaling.FAMILIES):
            records, written = scaling.run(chosen(scaling.FAMILIES))
            paths += [*written, reduction.report(records)]
        if "transitions" in which and chosen(transitions.FAMILIES):
            caps = transitions.BIG if args.big else transitions.NORMAL
            if args.budget is not None:
                caps = dataclasses.replace(caps, budget_s=args.budget)
            paths += transitions.run(chosen(transitions.FAMILIES), big=args.big, max_n=args.max_n, caps=caps,
                                     only=args.strategy)
        if "corpus" in which:
            def matches(path: str) -> bool:
                return not args.model or any(fnmatch.fnmatch(path, glob) for glob in args.model)
            paths += corpus_symmetry.run(only=matches, all_instances=args.all_instances,
                                         save_before=args.save_before,
                                         verify_budget_s=args.budget or corpus_symmetry.VERIFY_BUDGET_S)
        if "swarm" in which:
            family = next((f for f in args.family if f in swarm.GENERATORS), swarm.DEFAULT[0])
            paths += swarm.run(family, args.max_n or swarm.DEFAULT[1], args.jobs or swarm.JOBS,
                               args.bits or swarm.BITS)
        if "multicore" in which:
            paths.append(multicore.run())
        if "check" in which:
            paths.append(check_symmetry.run())
    for path in paths:
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
