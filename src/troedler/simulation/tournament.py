"""A tournament: a line-up of bots, the games it plays, and their summary."""

from __future__ import annotations

import os
from collections.abc import Callable, Generator, Iterable, Sequence

from troedler.core.errors import ConfigurationError
from troedler.core.rulebook import PLAYER_COUNTS
from troedler.simulation.games import GameReport, GameSpec, game_specs
from troedler.simulation.lineup import BotLike, line_up
from troedler.simulation.runners import run_games
from troedler.simulation.summary import Summary, summarize

__all__ = ["Tournament", "TournamentInterrupted", "default_workers", "tournament"]


class TournamentInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped a tournament; ``summary`` has the games that had finished."""

    def __init__(self, summary: Summary) -> None:
        super().__init__(f"interrupted after {summary.games} games")
        self.summary = summary


def _check_workers(workers: object) -> None:
    """Refuse a count of worker processes that is not a whole number of at least 1."""
    if type(workers) is not int or workers < 1:
        raise ConfigurationError(
            f"workers must be a whole number of at least 1, not {str(workers)[:20]!r}"
        )


def default_workers() -> int:
    """All the cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on every platform
        return os.cpu_count() or 1


class Tournament:
    """Bots in seat order and the rules of a run.

    With fewer bots than ``players`` the line-up is repeated to fill the
    seats; more bots than seats are refused. Game ``i`` turns the seats
    ``i`` places further and is seeded from ``seed`` and ``i``, so the same
    arguments give the same games whoever plays them, in whatever order.
    ``max_rounds`` stops a game (as capped) after that round;
    ``move_time_limit`` (seconds) forfeits a game whose bot takes longer
    for a move.
    """

    def __init__(
        self,
        bots: Sequence[BotLike],
        *,
        players: int | None = None,
        seed: int = 1,
        max_rounds: int | None = 100,
        move_time_limit: float | None = None,
    ) -> None:
        seats = len(bots) if players is None else players
        # A bot made for other player counts is refused here, before any game.
        labels, makers = line_up(bots, seats if seats in PLAYER_COUNTS else None)
        if not labels:
            raise ConfigurationError("a tournament needs at least one bot")
        players = seats
        if players not in PLAYER_COUNTS:
            raise ConfigurationError(f"S1: a game has 2 to 4 players, not {players}")
        if len(labels) > players:
            raise ConfigurationError(
                f"{len(labels)} bots given for {players} seats: at most one bot a seat"
            )
        if max_rounds is not None and max_rounds < 1:
            raise ConfigurationError(f"the round cap must be at least 1, not {max_rounds}")
        if move_time_limit is not None and not move_time_limit > 0:
            raise ConfigurationError(f"the move time limit must be positive, not {move_time_limit}")
        self.seats = tuple(labels[seat % len(labels)] for seat in range(players))
        """The label of each seat's bot in game 0."""
        self.makers = makers
        self.players = players
        self.seed = seed
        self.max_rounds = max_rounds
        self.move_time_limit = move_time_limit

    def specs(self, indices: Iterable[int], keep_records: bool = False) -> list[GameSpec]:
        """The games ``indices`` of this tournament."""
        return game_specs(list(indices), self.seats, self.seed, self.max_rounds, keep_records)

    def play(
        self,
        games: int | Iterable[int],
        *,
        workers: int = 1,
        scheduler: str | None = None,
        keep_records: bool = False,
    ) -> Generator[GameReport, None, None]:
        """Play ``games`` (a count from game 0, or the game numbers); each
        report as its game ends, which is not game order with several workers."""
        _check_workers(workers)
        indices = range(games) if isinstance(games, int) else games
        yield from run_games(
            self.specs(indices, keep_records),
            self.makers,
            workers=workers,
            scheduler=scheduler,
            move_time_limit=self.move_time_limit,
        )

    def summarize(self, reports: Iterable[GameReport]) -> Summary:
        """The summary of ``reports`` of this tournament."""
        return summarize(reports, self.players, self.max_rounds)


def tournament(
    bots: Sequence[BotLike],
    *,
    games: int = 300,
    players: int | None = None,
    seed: int = 1,
    workers: int = 1,
    scheduler: str | None = None,
    max_rounds: int | None = 100,
    move_time_limit: float | None = None,
    on_game: Callable[[GameReport], None] | None = None,
) -> Summary:
    """Play ``games`` games between ``bots`` and summarize them.

    ``bots`` are bot objects (copied for every game), factories (a class or
    function called for every game) or texts (``"greedy"``, ``"ismcts:50"``,
    ``"mybots:MyBot"``); see :class:`Tournament` for the seats, seeds and
    limits. The games run in this process, in ``workers`` local processes,
    or on the Dask cluster whose scheduler is at ``scheduler`` (bots from
    your own modules must be importable there). ``on_game`` is called with
    each game's report as it ends. Ctrl-C raises
    :class:`TournamentInterrupted` with the summary of the finished games.

    >>> summary = tournament(["greedy", "random"], games=4, seed=7)
    >>> summary.games, summary.bot("greedy").seat_games == summary.finished
    (4, True)
    """
    if type(games) is not int or games < 1:  # as simulate --games: a run plays a game at least
        raise ConfigurationError(
            f"games must be a whole number of at least 1, not {repr(games)[:40]}"
        )
    _check_workers(workers)
    run = Tournament(
        bots, players=players, seed=seed, max_rounds=max_rounds, move_time_limit=move_time_limit
    )
    reports: list[GameReport] = []
    try:
        for report in run.play(games, workers=workers, scheduler=scheduler):
            reports.append(report)
            if on_game is not None:
                on_game(report)
    except KeyboardInterrupt:
        raise TournamentInterrupted(run.summarize(reports)) from None
    return run.summarize(reports)
