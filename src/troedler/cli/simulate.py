"""``troedler simulate``: many games between named bots, and what they show.

Game ``i`` is seeded from the run's seed and ``i``, and its seats are the
bots rotated by ``i``, so every bot plays every seat. Games run in local
worker processes or on a Dask cluster; results are gathered in game order,
so the same seed gives the same summary whatever runs them.
"""

from __future__ import annotations

import json
import math
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any, TextIO

import attrs

from troedler.bots import make_bot, play_game
from troedler.errors import ConfigurationError
from troedler.scoring import outcome

__all__ = ["GameSpec", "GameSummary", "run_game", "simulate", "summarize", "wilson_interval"]


@attrs.frozen
class GameSpec:
    """One game of a run: which bots sit where, its seed and round cap."""

    index: int
    seed: int
    bots: tuple[str, ...]
    """Bot names in seat order."""
    max_rounds: int | None
    keep_record: bool


@attrs.frozen
class GameSummary:
    """What one game of a run gave."""

    index: int
    bots: tuple[str, ...]
    finished: bool
    rounds: int
    points: tuple[int, ...]
    damage: tuple[int, ...]
    totally_damaged: tuple[int, ...]
    winners: tuple[int, ...]
    record: str | None
    """The game record as JSON, when the run keeps records."""


def run_game(spec: GameSpec) -> GameSummary:
    """Play the game ``spec`` describes (in any process)."""
    played = play_game(
        [make_bot(name) for name in spec.bots], seed=spec.seed, max_rounds=spec.max_rounds
    )
    final = played.final
    result = outcome(final) if played.finished else None
    return GameSummary(
        index=spec.index,
        bots=spec.bots,
        finished=played.finished,
        rounds=final.round,
        points=result.points if result else (),
        damage=result.damage if result else (),
        totally_damaged=tuple(sorted(result.totally_damaged)) if result else (),
        winners=tuple(sorted(result.winners)) if result else (),
        record=played.record.to_json() if spec.keep_record else None,
    )


def game_specs(
    games: int, bots: Sequence[str], seed: int, max_rounds: int | None, keep_records: bool
) -> list[GameSpec]:
    """The games of a run, the bots rotated one seat further each game."""
    n = len(bots)
    return [
        GameSpec(
            index=i,
            seed=seed * 1_000_003 + i,
            bots=tuple(bots[(seat + i) % n] for seat in range(n)),
            max_rounds=max_rounds,
            keep_record=keep_records,
        )
        for i in range(games)
    ]


def simulate(
    specs: Sequence[GameSpec],
    *,
    workers: int = 1,
    scheduler: str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> list[GameSummary]:
    """Play every game of ``specs``; the summaries in game order.

    ``workers`` local processes (1: in this process), or the Dask cluster
    whose scheduler is at ``scheduler``.
    """
    total = len(specs)
    results: list[GameSummary] = []

    def tick(summary: GameSummary) -> None:
        results.append(summary)
        if progress is not None:
            progress(len(results), total)

    if scheduler is not None:
        for summary in _on_dask(specs, scheduler):
            tick(summary)
    elif workers <= 1:
        for spec in specs:
            tick(run_game(spec))
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            chunk = max(1, total // (workers * 8))
            for summary in pool.map(run_game, specs, chunksize=chunk):
                tick(summary)
    results.sort(key=lambda summary: summary.index)
    return results


def _on_dask(specs: Sequence[GameSpec], scheduler: str) -> Iterator[GameSummary]:
    try:
        from distributed import Client, as_completed  # noqa: PLC0415 - optional
    except ImportError:
        raise ConfigurationError(
            "--scheduler needs Dask distributed: pip install 'troedler[dask]'"
        ) from None
    try:
        client = Client(scheduler, timeout="10s")
    except OSError as error:
        raise ConfigurationError(
            f"cannot reach the Dask scheduler at {scheduler}: {error}"
        ) from None
    with client:
        futures = client.map(run_game, specs, pure=False)
        for future in as_completed(futures):
            yield future.result()


def wilson_interval(wins: float, n: int) -> tuple[float, float]:
    """The 95% Wilson score interval of a share of ``wins`` in ``n``."""
    if n == 0:
        return 0.0, 0.0
    z = 1.959963984540054
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def summarize(results: Sequence[GameSummary]) -> dict[str, Any]:
    """Per bot and per seat figures of a run's finished games."""
    finished = [r for r in results if r.finished]
    names = sorted({name for r in results for name in r.bots})
    players = len(results[0].bots) if results else 0
    bots: dict[str, Any] = {}
    for name in names:
        seats = [(r, s) for r in finished for s, bot in enumerate(r.bots) if bot == name]
        n = len(seats)
        wins = sum(1 for r, s in seats if s in r.winners)
        low, high = wilson_interval(wins, n)
        bots[name] = {
            "seat_games": n,
            "wins": wins,
            "win_share": wins / n if n else 0.0,
            "win_share_95": [low, high],
            "mean_points": sum(r.points[s] for r, s in seats) / n if n else 0.0,
            "mean_damage": sum(r.damage[s] for r, s in seats) / n if n else 0.0,
            "total_damage_rate": sum(1 for r, s in seats if s in r.totally_damaged) / n
            if n
            else 0.0,
        }
    return {
        "games": len(results),
        "finished": len(finished),
        "unfinished": len(results) - len(finished),
        "players": players,
        "mean_rounds": sum(r.rounds for r in finished) / len(finished) if finished else 0.0,
        "bots": bots,
        "seat_win_share": [
            sum(1 for r in finished if seat in r.winners) / len(finished) if finished else 0.0
            for seat in range(players)
        ],
    }


def write_summary(summary: dict[str, Any], out: TextIO = sys.stdout) -> None:
    """The summary as a table for people."""
    out.write(
        f"{summary['games']} games of {summary['players']} players: "
        f"{summary['finished']} finished, {summary['unfinished']} unfinished (round cap); "
        f"mean rounds {summary['mean_rounds']:.1f}\n"
    )
    out.write(
        f"{'bot':<10} {'seat games':>10} {'win share':>10} {'95% interval':>15} "
        f"{'points':>7} {'damage':>7} {'total dmg':>9}\n"
    )
    for name, row in summary["bots"].items():
        low, high = row["win_share_95"]
        out.write(
            f"{name:<10} {row['seat_games']:>10} {row['win_share']:>10.1%} "
            f"{f'{low:.1%}-{high:.1%}':>15} {row['mean_points']:>7.1f} "
            f"{row['mean_damage']:>7.1f} {row['total_damage_rate']:>9.1%}\n"
        )
    shares = "  ".join(
        f"seat {i}: {share:.1%}" for i, share in enumerate(summary["seat_win_share"])
    )
    out.write(f"win share per seat: {shares}\n")


def progress_bar(stream: TextIO = sys.stderr) -> Callable[[int, int], None]:
    """A one-line progress bar on a terminal; a line per tenth of the games elsewhere."""
    width = 30
    terminal = stream.isatty()
    shown = -1

    def show(done: int, total: int) -> None:
        nonlocal shown
        steps = width if terminal else 10
        reached = steps * done // total if total else steps
        if reached == shown and done != total:
            return
        shown = reached
        if terminal:
            filled = width * done // total if total else width
            bar = f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{total} games"
            stream.write(bar + ("\n" if done == total else ""))
        else:
            stream.write(f"{done}/{total} games\n")
        stream.flush()

    return show


def default_workers() -> int:
    """All the cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on every platform
        return os.cpu_count() or 1


def write_records(results: Iterable[GameSummary], path: str) -> None:
    """Every game record of a run, one JSON object per line."""
    with open(path, "w", encoding="utf-8") as out:
        for summary in results:
            if summary.record is not None:
                out.write(json.dumps(json.loads(summary.record)) + "\n")
