"""Plots of the measured figures, drawn from the benchmarks' JSON results.

``benchmarks/bench.py`` and ``benchmarks/bots.py`` print one JSON object as
their last line; those lines are kept in ``benchmarks/results/`` (one line
per run), and this script draws them as SVG:

- ``decision-cost.svg``: µs per decision by player count, split into
  ``legal_moves`` and ``apply_move``, against one python-chess ply;
- ``win-shares.svg``: each bot's win share against its line-up, with its
  95% interval and the fair share;
- ``ladder.svg``: the ratings of ``benchmarks/ladder.py``'s latest run.

Run ``python benchmarks/plots.py --out DIR`` (``pip install -e '.[docs]'``
brings matplotlib). The documentation site draws the same plots while it is
built, so they never go stale. The output is the same for the same results:
no dates, fixed element ids.
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results"
PLAYERS = (2, 3, 4)
LISTING, APPLYING, CHESS = "#8c5a2b", "#d9a35b", "#4a6b8a"


def read_runs(path: Path) -> list[dict[str, Any]]:
    """Every run in a results file: one JSON object per line."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def _figure(width: float, height: float) -> Any:
    import matplotlib  # noqa: PLC0415 - the docs extra, only when plotting

    matplotlib.use("Agg")
    from matplotlib import pyplot  # noqa: PLC0415

    matplotlib.rcParams.update(
        {"svg.hashsalt": "troedler", "svg.fonttype": "none", "font.size": 10}
    )
    return pyplot.figure(figsize=(width, height))


def _svg(figure: Any) -> str:
    from matplotlib import pyplot  # noqa: PLC0415

    out = io.StringIO()
    figure.savefig(out, format="svg", bbox_inches="tight", metadata={"Date": None})
    pyplot.close(figure)
    return out.getvalue()


def decision_cost_svg(runs: Sequence[dict[str, Any]]) -> str:
    """µs per decision by player count, one bar per run, against a chess ply."""
    figure = _figure(6.4, 3.6)
    axes = figure.add_subplot()
    width = 0.8 / len(runs)
    for k, run in enumerate(runs):
        xs = [p + (k - (len(runs) - 1) / 2) * width for p in PLAYERS]
        listing = [run[f"legal_moves_us_{p}p"] for p in PLAYERS]
        applying = [run[f"apply_move_us_{p}p"] for p in PLAYERS]
        first = k == 0
        axes.bar(xs, listing, width * 0.9, color=LISTING, label="legal_moves" if first else None)
        axes.bar(
            xs,
            applying,
            width * 0.9,
            bottom=listing,
            color=APPLYING,
            label="apply_move" if first else None,
        )
    chess = [run["chess_ply_us"] for run in runs if "chess_ply_us" in run]
    if chess:
        ply = statistics.median(chess)
        axes.axhline(ply, color=CHESS, linestyle="--", linewidth=1.2)
        axes.annotate(
            f"one python-chess ply: {ply:.1f} µs",
            (PLAYERS[0] - 0.45, ply),
            xytext=(0, 4),
            textcoords="offset points",
            color=CHESS,
        )
        axes.set_ylim(0, ply * 1.25)
    axes.set_xticks(PLAYERS, [f"{p} players" for p in PLAYERS])
    axes.set_ylabel("µs per decision")
    runs_text = "1 run" if len(runs) == 1 else f"{len(runs)} runs, one bar each"
    versions = ", ".join(sorted({f"troedler {run['troedler']}" for run in runs}))
    axes.set_title(f"One decision in a random playout ({versions}; {runs_text})", fontsize=10)
    axes.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
    axes.spines[["top", "right"]].set_visible(False)
    return _svg(figure)


LINE_UPS = (("greedy_vs_random", "random"), ("ismcts_vs_greedy", "greedy"))


def win_shares_svg(runs: Sequence[dict[str, Any]]) -> str:
    """Each tested bot's win share with its 95% interval, against the fair share."""
    rows: list[tuple[str, float, float, float]] = []
    for run in runs:
        for key, others in LINE_UPS:
            line_up = run[key]
            low, high = line_up["win_share_all_95"]
            label = f"{line_up['line_up'][0]} vs 3 {others}\n({line_up['games']} games)"
            rows.append((label, line_up["win_share_all"], low, high))
    figure = _figure(6.4, 0.9 + 0.75 * len(rows))
    axes = figure.add_subplot()
    ys = list(range(len(rows)))[::-1]
    shares = [100 * share for _, share, _, _ in rows]
    errors = [
        [100 * (share - low) for _, share, low, _ in rows],
        [100 * (high - share) for _, share, _, high in rows],
    ]
    axes.barh(ys, shares, 0.55, color=APPLYING)
    axes.errorbar(shares, ys, xerr=errors, fmt="none", ecolor=LISTING, capsize=5, linewidth=1.5)
    for y, share in zip(ys, shares, strict=True):
        axes.annotate(f"{share:.1f}%", (2, y), va="center", color="black")
    axes.axvline(25, color=CHESS, linestyle="--", linewidth=1.2)
    axes.annotate("fair share, 25%", (25, ys[0] + 0.45), xytext=(4, 0),
                  textcoords="offset points", color=CHESS)  # fmt: skip
    axes.set_yticks(ys, [label for label, _, _, _ in rows])
    axes.set_xlim(0, 100)
    axes.set_ylim(-0.6, len(rows) - 0.1)
    axes.set_xlabel("win share of the bot under test, % of all games (95% interval)")
    axes.spines[["top", "right"]].set_visible(False)
    return _svg(figure)


def ladder_svg(runs: Sequence[dict[str, Any]]) -> str:
    """The latest ladder's ratings: mu with an interval of 2 sigma either side, best on top."""
    rows = runs[-1]["table"]
    figure = _figure(6.4, 0.9 + 0.55 * len(rows))
    axes = figure.add_subplot()
    ys = list(range(len(rows)))[::-1]
    mus = [row["mu"] for row in rows]
    axes.errorbar(mus, ys, xerr=[2 * row["sigma"] for row in rows], fmt="o", color=LISTING,
                  ecolor=APPLYING, capsize=5, linewidth=2)  # fmt: skip
    for y, row in zip(ys, rows, strict=True):
        axes.annotate(f"{row['mu']:.1f}", (row["mu"], y), xytext=(0, 6),
                      textcoords="offset points", ha="center")  # fmt: skip
    axes.set_yticks(ys, [row["bot"] for row in rows])
    axes.set_ylim(-0.6, len(rows) - 0.4)
    games = ", ".join(f"{count} {players}-player" for players, count in runs[-1]["games"].items())
    axes.set_xlabel(f"openskill rating mu ± 2 sigma ({games} games)")
    axes.spines[["top", "right"]].set_visible(False)
    return _svg(figure)


def plots(results: Path = RESULTS) -> dict[str, str]:
    """Every plot, by file name, drawn from the results in ``results``."""
    return {
        "decision-cost.svg": decision_cost_svg(read_runs(results / "bench.jsonl")),
        "win-shares.svg": win_shares_svg(read_runs(results / "bots.jsonl")),
        "ladder.svg": ladder_svg(read_runs(results / "ladder.jsonl")),
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, default=RESULTS, help="the results folder")
    parser.add_argument("--out", type=Path, default=Path("plots"), help="where to write SVGs")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for name, svg in plots(args.results).items():
        (args.out / name).write_text(svg, encoding="utf-8")
        print(args.out / name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
