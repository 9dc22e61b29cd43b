"""The bot protocol, and how a bot's failure is told.

A bot is given what its seat knows (an :class:`~troedler.Observation`), the
legal moves and a random generator; never the game state. Playing a game
between bots is :mod:`troedler.bots.playing`.
"""

from __future__ import annotations

import random
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import Literal, Protocol, runtime_checkable

import attrs

from troedler.core.errors import ConfigurationError, TroedlerError
from troedler.core.moves import Move
from troedler.core.scoring import Outcome
from troedler.core.state import GameState, Phase
from troedler.io.records import MAX_SEAT_NAME
from troedler.seat import Observation

__all__ = [
    "Bot",
    "BotFailed",
    "BotFailure",
    "FailureKind",
    "bot_rng",
    "check_bot",
    "check_players",
    "limit_move_times",
    "rounds_played",
    "tell_game_over",
]


@runtime_checkable
class Bot(Protocol):
    """Anything that picks a move from what its seat knows."""

    @property
    def name(self) -> str:
        """A short name for tables and records."""
        ...

    def choose(
        self, observation: Observation, legal_moves: Sequence[Move], rng: random.Random
    ) -> Move:
        """One of ``legal_moves``, chosen knowing only ``observation``.

        All chance must come from ``rng``, so that games replay exactly.
        """
        ...


def bot_rng(seed: int, seat: int) -> random.Random:
    """The random generator of the bot at ``seat`` in the game of ``seed``."""
    return random.Random(f"troedler-bot/{seed}/{seat}")


FailureKind = Literal["raised", "illegal", "slow", "crashed"]
"""How a bot failed: its ``choose`` raised, returned a move that is not legal,
took longer than the time limit, or its process ended in the middle of a move."""


class BotFailed(TroedlerError):
    """Raised by a bot's ``choose`` that knows how it failed (a program bot
    whose program crashed or ran out of time): a forfeit of that ``kind``."""

    def __init__(self, kind: FailureKind, detail: str) -> None:
        super().__init__(detail)
        self.kind: FailureKind = kind


MAX_BOT_NAME = MAX_SEAT_NAME - 2
"""Records name a seat ``"<bot name> <seat>"`` in at most ``MAX_SEAT_NAME`` characters."""

MAX_DETAIL = 200


@attrs.frozen
class BotFailure:
    """A bot that could not make its move: the game stopped there (a forfeit)."""

    seat: int
    bot: str
    """The bot's name."""
    move: int
    """The number of the move it failed to make, from 0: the record holds the
    moves before it."""
    round: int
    kind: FailureKind
    detail: str
    """What went wrong, in a line of at most 200 characters."""

    def __str__(self) -> str:
        return (
            f"{self.bot} (seat {self.seat}) {self.kind} at move {self.move}, "
            f"round {self.round}: {self.detail}"
        )


def rounds_played(state: GameState) -> int:
    """The rounds played up to ``state``: a round whose dealer piles were just
    formed, with no move made in it yet, is not counted (games stopped at a
    round cap end there)."""
    fresh = state.phase is Phase.TAKE_PILES and None not in state.dealer_piles
    return state.round - 1 if fresh else state.round


def check_players(bot: object, num_players: int) -> None:
    """Refuse, before any game, a bot made for other player counts.

    A bot may define ``check_players(num_players)``, raising
    :class:`ConfigurationError` for a count it cannot play (a network
    trained for two players, say); every way of starting games asks it.
    """
    check = getattr(bot, "check_players", None)
    if callable(check):
        check(num_players)


def check_bot(bot: object, label: str | None = None) -> str:
    """The name of ``bot``, once it is known to be one; else a :class:`ConfigurationError`.

    A bot needs a ``name`` (printable text of 1 to 62 characters, which its
    seat in a record is called after) and a callable ``choose``. ``label``
    names the bot in the message (by default its ``repr``).
    """
    name = getattr(bot, "name", None)
    label = _bounded(repr(bot), 60) if label is None else repr(label)
    if not isinstance(name, str) or not 0 < len(name) <= MAX_BOT_NAME or not name.isprintable():
        raise ConfigurationError(
            f"bot {label} needs a name: printable text of 1 to {MAX_BOT_NAME} characters, "
            f"not {_bounded(repr(name), 40)}"
        )
    if not callable(getattr(bot, "choose", None)):
        raise ConfigurationError(f"bot {name!r} has no choose(observation, legal_moves, rng)")
    return name


def describe_error(error: BaseException) -> str:
    """An exception as one bounded line: its type, message and where it was raised."""
    text = " ".join(str(error).split())
    where = ""
    frames = [
        frame
        for frame in traceback.extract_tb(error.__traceback__)
        if not frame.filename.startswith("<")  # the import machinery's own frames
    ]
    if frames:
        last = frames[-1]
        where = f" ({Path(last.filename).name}:{last.lineno})"
    line = f"{type(error).__name__}: {text}" if text else type(error).__name__
    return _bounded(line, MAX_DETAIL - len(where)) + where


def _bounded(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def limit_move_times(bots: Sequence[Bot], seconds: float) -> None:
    """Give a game's move time limit to each bot that keeps its own time (a
    program bot: it stops waiting for its program then, and says so)."""
    for bot in bots:
        limit = getattr(bot, "limit_move_time", None)
        if callable(limit):
            limit(seconds)


def tell_game_over(bots: Sequence[Bot], result: Outcome | None, reason: str) -> None:
    """Call each bot's ``game_over(result, reason)``, where it has one (a program
    bot: its program is told and ends); what a bot raises there is ignored."""
    for bot in bots:
        game_over = getattr(bot, "game_over", None)
        if callable(game_over):
            try:
                game_over(result, reason)
            except Exception:  # noqa: S112 - the game is over: nothing a bot does now counts
                continue
