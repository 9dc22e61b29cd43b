"""A ladder: a round robin of bots in 2-, 3- and 4-player games, rated with openskill.

Every set of 2, 3 and 4 distinct bots of the pool plays ``--games-N`` games
of N players, seats rotated every game as every tournament does (a bot with
no network for N players, as ``neural`` has none for 3, sits those out), on
local processes (``--workers``) or a Dask cluster (``--scheduler``). Each
finished game then updates the bots' ratings with openskill's
Plackett-Luce model, in a fixed order (player count, line-up, game), so the
same arguments give the same table. A game ranks its winners first, then
the other players by points, then the totally damaged; a forfeited game
ranks the bot that failed last and the others tied; a capped game is not
rated. A rating is ``mu`` with its uncertainty ``sigma``; the table is
sorted by ``mu - 3 sigma`` (openskill's ordinal, a conservative estimate).

Any bot text can enter, a program among them::

    .venv/bin/pip install -e '.[ladder]'
    .venv/bin/python benchmarks/ladder.py --workers 2
    .venv/bin/python benchmarks/ladder.py --bots 'random,greedy,exec:./mybot' --games-2 40

The last line printed is the result as JSON; ``--save`` appends it to
``benchmarks/results/ladder.jsonl``, which the documentation's plot reads.
"""

from __future__ import annotations

import argparse
import itertools
import json
import shutil
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from troedler.core.errors import ConfigurationError
from troedler.simulation import GameReport, Tournament
from troedler.simulation.lineup import entrant

RESULTS = Path(__file__).resolve().parent / "results" / "ladder.jsonl"
DEFAULT_BOTS = (
    "random",
    "greedy",
    "ismcts:25",
    "neural",
    f"exec:python3 {Path('examples') / 'delivery_bot.py'}",
    *([f"exec:node {Path('examples') / 'collector_bot.js'}"] if shutil.which("node") else []),
)
"""The bundled bots, and the example programs (the Node.js one where node is installed)."""


def plays(bot: str, players: int) -> bool:
    """Whether ``bot`` plays games of ``players``: a bot made for other player
    counts (``neural`` has no three-player network) sits out those line-ups.
    A bot that cannot be made at all is refused, whatever the count."""
    entrant(bot)
    try:
        entrant(bot, players)
    except ConfigurationError:
        return False
    return True


def ranks(report: GameReport) -> list[int] | None:
    """The rank of each seat in a game (0 best, ties equal), or None for a game not rated."""
    seats = range(len(report.seats))
    if report.failure is not None:
        return [1 if seat == report.failure.seat else 0 for seat in seats]
    if not report.finished:
        return None

    def standing(seat: int) -> tuple[int, int]:
        if seat in report.winners:
            return (0, 0)
        if seat in report.totally_damaged:
            return (2, 0)
        return (1, -report.points[seat])

    order = sorted(set(map(standing, seats)))
    return [order.index(standing(seat)) for seat in seats]


def play_ladder(
    bots: Sequence[str],
    games: dict[int, int],
    *,
    seed: int,
    workers: int,
    scheduler: str | None,
    max_rounds: int,
) -> list[tuple[int, tuple[str, ...], GameReport]]:
    """Every game of the round robin: (player count, line-up, report), in a fixed order."""
    played = []
    for players, count in sorted(games.items()):
        seated = [bot for bot in bots if plays(bot, players)]
        for line_up in itertools.combinations(seated, players):
            run = Tournament(list(line_up), seed=seed, max_rounds=max_rounds)
            reports = list(run.play(count, workers=workers, scheduler=scheduler))
            reports.sort(key=lambda report: report.index)
            played += [(players, line_up, report) for report in reports]
    return played


def rate(bots: Sequence[str], played: Sequence[tuple[int, tuple[str, ...], GameReport]]) -> Any:
    """Each bot's openskill rating after every rated game, in order."""
    from openskill.models import PlackettLuce  # noqa: PLC0415 - the ladder extra

    model = PlackettLuce()
    ratings = {bot: model.rating(name=bot) for bot in bots}
    for _, _, report in played:
        order = ranks(report)
        if order is None:
            continue
        teams = [[ratings[label]] for label in report.seats]
        rated = model.rate(teams, ranks=[float(rank) for rank in order])
        for label, [after] in zip(report.seats, rated, strict=True):
            ratings[label] = after
    return ratings


def table(
    bots: Sequence[str], played: Sequence[tuple[int, tuple[str, ...], GameReport]]
) -> list[dict[str, Any]]:
    """One row a bot: rating, games and win shares by player count, forfeits."""
    ratings = rate(bots, played)
    rows = []
    for bot in bots:
        row: dict[str, Any] = {
            "bot": bot,
            "mu": round(ratings[bot].mu, 2),
            "sigma": round(ratings[bot].sigma, 2),
            "ordinal": round(ratings[bot].ordinal(), 2),
            "forfeits": 0,
        }
        for players in sorted({players for players, _, _ in played}):
            seat_games = wins = 0.0
            for count, _, report in played:
                if count != players or bot not in report.seats:
                    continue
                seat = report.seats.index(bot)
                seat_games += 1
                if report.winners and seat in report.winners:
                    wins += 1 / len(report.winners)
                if report.failure is not None and report.failure.seat == seat:
                    row["forfeits"] += 1
            row[f"games_{players}p"] = int(seat_games)
            row[f"win_share_{players}p"] = round(wins / seat_games, 3) if seat_games else None
        rows.append(row)
    rows.sort(key=lambda row: -row["ordinal"])
    return rows


def markdown(rows: Sequence[dict[str, Any]], counts: Sequence[int]) -> str:
    """The table as Markdown, as docs/bots.md shows it."""
    head = "| bot | rating mu ± sigma | mu - 3 sigma |"
    rule = "|---|---|---|"
    for players in counts:
        head += f" {players}-player games, win share |"
        rule += "---|"
    lines = [head + " forfeits |", rule + "---|"]
    for row in rows:
        line = f"| `{row['bot']}` | {row['mu']:.1f} ± {row['sigma']:.1f} | {row['ordinal']:.1f} |"
        for players in counts:
            share = row[f"win_share_{players}p"]
            shown = "\u2013" if share is None else f"{100 * share:.0f}%"
            line += f" {row[f'games_{players}p']}, {shown} |"
        lines.append(line + f" {row['forfeits']} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", default=",".join(DEFAULT_BOTS), help="comma-separated bots")
    parser.add_argument("--games-2", type=int, default=8, help="games per pair")
    parser.add_argument("--games-3", type=int, default=6, help="games per set of three")
    parser.add_argument("--games-4", type=int, default=4, help="games per set of four")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-rounds", type=int, default=100)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--scheduler", default=None, help="a Dask scheduler's address")
    parser.add_argument("--save", action="store_true", help=f"append the result to {RESULTS}")
    args = parser.parse_args(argv)
    bots = [bot.strip() for bot in args.bots.split(",") if bot.strip()]
    games = {
        players: count
        for players, count in ((2, args.games_2), (3, args.games_3), (4, args.games_4))
        if count > 0 and players <= len(bots)
    }
    started = time.perf_counter()
    played = play_ladder(
        bots,
        games,
        seed=args.seed,
        workers=args.workers,
        scheduler=args.scheduler,
        max_rounds=args.max_rounds,
    )
    took = time.perf_counter() - started
    rows = table(bots, played)
    print(markdown(rows, sorted(games)))
    result = {
        "bots": bots,
        "games_per_line_up": {str(players): count for players, count in games.items()},
        "games": {
            str(players): sum(1 for count, _, _ in played if count == players) for players in games
        },
        "seed": args.seed,
        "seconds": round(took, 1),
        "table": rows,
    }
    line = json.dumps(result, ensure_ascii=False)
    if args.save:
        with RESULTS.open("a", encoding="utf-8") as file:
            file.write(line + "\n")
    print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
