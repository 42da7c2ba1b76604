"""PNG plots of bench/scaling.py's records: states and search time against N, log scale, one
line per strategy plus plain SPIN.  matplotlib with the Agg backend (no display needed)."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

from bench.records import PLAIN, TIME_FLOOR, Family, Record, label, ok_search_s, strategies  # noqa: E402

MARKERS = "osD^vP*Xh"


def _style(strategy: str, names: list[str]) -> dict:
    """Plain SPIN black and dashed; each strategy its own colour and marker, in registry order."""
    if strategy == PLAIN:
        return {"color": "black", "linestyle": "--", "marker": "o", "markerfacecolor": "white"}
    index = names.index(strategy) - 1 if strategy in names else len(names)
    # exact strategies give the same counts: later lines are drawn thinner, over earlier ones
    return {"color": plt.get_cmap("tab10")(index % 10), "linestyle": "-",
            "marker": MARKERS[index % len(MARKERS)], "markersize": max(7.5 - 2 * index, 3.5),
            "linewidth": max(2.6 - 0.7 * index, 1.0)}


def _series(records: list[Record], family: Family, strategy: str, what: str):
    points = [(r.n, r.states if what == "states" else max(ok_search_s(r), TIME_FLOOR))
              for r in records if r.family == family.key and r.strategy == strategy
              and r.status == "ok" and r.complete]
    return [n for n, _ in points], [v for _, v in points]


def _panel(ax, records: list[Record], family: Family, what: str, names: list[str]) -> None:
    for strategy in names:
        xs, ys = _series(records, family, strategy, what)
        if xs:
            ax.plot(xs, ys, label=label(strategy), **{"linewidth": 1.6, "markersize": 5, **_style(strategy, names)})
    ax.set_yscale("log")
    ax.set_xlabel(f"N ({family.n_meaning})")
    ax.set_ylabel("states stored" if what == "states" else "search time (s)")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.grid(True, which="major", alpha=0.35)
    ax.grid(True, which="minor", alpha=0.1)
    if what == "time":
        ax.axhline(TIME_FLOOR, color="grey", linewidth=0.8, linestyle=":")
        ax.set_ylim(bottom=TIME_FLOOR / 2)


def _names(records: list[Record]) -> list[str]:
    ran = {r.strategy for r in records}
    known = strategies()
    return [s for s in known if s in ran] + sorted(ran - set(known))


FOOTNOTE = ("-DSAFETY -DNOREDUCE, SPIN 6.5.2; missing points were skipped (see scaling.md); "
            f"search times below pan's {TIME_FLOOR:g} s resolution are drawn at {TIME_FLOOR:g} s")


def draw(records: list[Record], families: list[Family], out_dir: Path) -> list[Path]:
    names = _names(records)
    written = []
    for family in families:
        fig, (states_ax, time_ax) = plt.subplots(1, 2, figsize=(10, 4), constrained_layout=True)
        _panel(states_ax, records, family, "states", names)
        _panel(time_ax, records, family, "time", names)
        states_ax.set_title("states stored")
        time_ax.set_title("search time")
        states_ax.legend(fontsize=8)
        fig.suptitle(f"{family.title}: topspin-py strategies against plain SPIN")
        fig.text(0.5, -0.02, FOOTNOTE, ha="center", fontsize=7, color="dimgrey")
        path = out_dir / f"scaling_{family.key}.png"
        fig.savefig(path, dpi=110, bbox_inches="tight")
        plt.close(fig)
        written.append(path)
    for what in ("states", "time"):
        columns = 3
        rows = -(-len(families) // columns)
        fig, axes = plt.subplots(rows, columns, figsize=(5 * columns, 3.8 * rows),
                                 constrained_layout=True, squeeze=False)
        for ax, family in zip(axes.flat, families):
            _panel(ax, records, family, what, names)
            ax.set_title(family.title)
        for ax in list(axes.flat)[len(families):]:
            ax.set_visible(False)
        handles, labels = axes.flat[0].get_legend_handles_labels()
        for ax in axes.flat:   # a legend with every strategy that appears anywhere
            for h, lab in zip(*ax.get_legend_handles_labels()):
                if lab not in labels:
                    handles.append(h)
                    labels.append(lab)
        fig.legend(handles, labels, loc="outside upper right", ncols=len(labels))
        fig.suptitle(("States stored" if what == "states" else "Search time") + " against N",
                     x=0.02, ha="left")
        fig.text(0.5, -0.01, FOOTNOTE, ha="center", fontsize=8, color="dimgrey")
        path = out_dir / f"scaling_{what}.png"
        fig.savefig(path, dpi=100, bbox_inches="tight")
        plt.close(fig)
        written.append(path)
    return written
