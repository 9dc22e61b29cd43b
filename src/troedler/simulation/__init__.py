"""Tournaments between bots, yours or the bundled ones, on local processes or Dask.

>>> from troedler.simulation import tournament
>>> summary = tournament(["greedy", "random", "random"], games=3, seed=2)
>>> summary.finished + summary.capped + summary.forfeited
3

:func:`tournament` plays a run and returns its :class:`Summary`;
:class:`Tournament` gives the games one by one as they end. A bot that
raises, makes an illegal move or exceeds the move time limit forfeits its
game: the game stops there, does not count towards win shares, and is
listed in :attr:`Summary.failures` with its game and move.
"""

from troedler.bots.base import BotFailure
from troedler.simulation.games import GameReport, GameSpec, game_seed
from troedler.simulation.lineup import BotLike, bot_from_text
from troedler.simulation.runners import check_scheduler_address, connect
from troedler.simulation.summary import BotSummary, Forfeit, Summary, summarize, wilson_interval
from troedler.simulation.tournament import (
    Tournament,
    TournamentInterrupted,
    default_workers,
    tournament,
)

__all__ = [
    "BotFailure",
    "BotLike",
    "BotSummary",
    "Forfeit",
    "GameReport",
    "GameSpec",
    "Summary",
    "Tournament",
    "TournamentInterrupted",
    "bot_from_text",
    "check_scheduler_address",
    "connect",
    "default_workers",
    "game_seed",
    "summarize",
    "tournament",
    "wilson_interval",
]
