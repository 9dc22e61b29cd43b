"""What a run shows: per bot and per seat figures over its finished games.

Win shares, points and damage are taken over the finished games only: a
game stopped at the round cap, or forfeited by a bot's failure, has no
winner. Both kinds are counted, and every failure is listed with its game
and move. A second win share counts each forfeit as a loss for the bot
that forfeited (:attr:`BotSummary.win_share_with_forfeits`). A figure over
no games is None (``null`` in JSON, a dash in tables), never a misleading
zero.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import attrs

from troedler.simulation.games import GameReport

__all__ = ["BotSummary", "Forfeit", "Summary", "summarize", "wilson_interval"]


def wilson_interval(wins: float, n: int) -> tuple[float, float] | None:
    """The 95% Wilson score interval of a share of ``wins`` in ``n``; None for no games."""
    if n == 0:
        return None
    z = 1.959963984540054
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    # At no wins (all wins) the bound is 0 (1) exactly; rounding would leave 2.8e-17.
    low = 0.0 if wins <= 0 else max(0.0, centre - half)
    high = 1.0 if wins >= n else min(1.0, centre + half)
    return low, high


@attrs.frozen
class BotSummary:
    """One bot's figures; a bot in several seats of a game counts once per seat."""

    name: str
    seat_games: int
    """Seats it held in finished games."""
    wins: int
    """Of those, the ones it won (tied winners each count a win)."""
    win_share: float | None
    win_share_95: tuple[float, float] | None
    """The 95% Wilson interval of the win share."""
    mean_points: float | None
    mean_damage: float | None
    total_damage_rate: float | None
    """Share of its seat games ending in total damage."""
    forfeits: int
    """Games it forfeited by a failure."""
    win_share_with_forfeits: float | None = None
    """Its wins over its seat games and its forfeits together: each game it
    forfeited counts as a loss (so that failing when losing does not raise
    a share); None over no games."""

    def to_dict(self) -> dict[str, Any]:
        """The figures as JSON data."""
        data = attrs.asdict(self)
        del data["name"]
        data["win_share_95"] = list(self.win_share_95) if self.win_share_95 else None
        return data


@attrs.frozen
class Forfeit:
    """A game a bot's failure stopped: which game, and the failure."""

    game: int
    seat: int
    bot: str
    """The bot's label in the line-up."""
    move: int
    """The number of the move it failed to make, from 0."""
    round: int
    kind: str
    """``raised``, ``illegal``, ``slow`` or ``crashed``."""
    detail: str

    def __str__(self) -> str:
        return (
            f"game {self.game}, move {self.move} (round {self.round}): {self.bot} in seat "
            f"{self.seat} {_KIND_WORDS.get(self.kind, self.kind)}: {self.detail}"
        )


_KIND_WORDS = {
    "raised": "raised",
    "illegal": "made an illegal move",
    "slow": "was too slow",
    "crashed": "crashed",
}


@attrs.frozen
class Summary:
    """The figures of a run (the same as ``troedler simulate --json``)."""

    games: int
    """Games played (finished, capped and forfeited)."""
    players: int
    finished: int
    capped: int
    """Stopped at the round cap."""
    forfeited: int
    """Stopped by a bot's failure."""
    max_rounds: int | None
    mean_rounds: float | None
    """Over the finished games."""
    bots: tuple[BotSummary, ...]
    """In order of name."""
    seat_win_share: tuple[float | None, ...]
    """Per seat, over the finished games."""
    failures: tuple[Forfeit, ...]
    """In game order."""

    def bot(self, name: str) -> BotSummary:
        """The figures of the bot ``name``."""
        for row in self.bots:
            if row.name == name:
                return row
        raise KeyError(name)

    def to_dict(self) -> dict[str, Any]:
        """The summary as JSON data."""
        return {
            "games": self.games,
            "players": self.players,
            "finished": self.finished,
            "capped": self.capped,
            "forfeited": self.forfeited,
            "max_rounds": self.max_rounds,
            "mean_rounds": self.mean_rounds,
            "bots": {row.name: row.to_dict() for row in self.bots},
            "seat_win_share": list(self.seat_win_share),
            "failures": [attrs.asdict(failure) for failure in self.failures],
        }


def summarize(
    reports: Iterable[GameReport], players: int, max_rounds: int | None = None
) -> Summary:
    """The summary of ``reports`` (in any order: they are taken in game order)."""
    games = sorted(reports, key=lambda report: report.index)
    finished = [r for r in games if r.finished]
    names = sorted({name for r in games for name in r.seats})
    rows = []
    for name in names:
        seats = [(r, s) for r in finished for s, bot in enumerate(r.seats) if bot == name]
        n = len(seats)
        wins = sum(1 for r, s in seats if s in r.winners)
        forfeits = sum(
            1 for r in games if r.failure is not None and r.seats[r.failure.seat] == name
        )
        rows.append(
            BotSummary(
                name=name,
                seat_games=n,
                wins=wins,
                win_share=wins / n if n else None,
                win_share_95=wilson_interval(wins, n),
                mean_points=_mean([r.points[s] for r, s in seats]),
                mean_damage=_mean([r.damage[s] for r, s in seats]),
                total_damage_rate=_mean([float(s in r.totally_damaged) for r, s in seats]),
                forfeits=forfeits,
                win_share_with_forfeits=wins / (n + forfeits) if n + forfeits else None,
            )
        )
    failures = tuple(
        Forfeit(
            game=r.index,
            seat=r.failure.seat,
            bot=r.seats[r.failure.seat],
            move=r.failure.move,
            round=r.failure.round,
            kind=r.failure.kind,
            detail=r.failure.detail,
        )
        for r in games
        if r.failure is not None
    )
    return Summary(
        games=len(games),
        players=players,
        finished=len(finished),
        capped=sum(1 for r in games if r.ending == "capped"),
        forfeited=sum(1 for r in games if r.ending == "forfeited"),
        max_rounds=max_rounds,
        mean_rounds=_mean([r.rounds for r in finished]),
        bots=tuple(rows),
        seat_win_share=tuple(
            _mean([float(seat in r.winners) for r in finished]) for seat in range(players)
        ),
        failures=failures,
    )


def _mean(values: list[float] | list[int]) -> float | None:
    return sum(values) / len(values) if values else None
