"""The bot protocol, and playing a game between bots.

A bot is given what its seat knows (an :class:`~troedler.seat.observation.Observation`),
the legal moves and a random generator; never the game state.
"""

from __future__ import annotations

import random
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Literal, Protocol, runtime_checkable

import attrs

from troedler.core.cards import fingerprint
from troedler.core.chance import new_game
from troedler.core.errors import ConfigurationError, IllegalMoveError, TroedlerError
from troedler.core.legal import apply_move, legal_moves
from troedler.core.moves import Move
from troedler.core.rulebook import Rules
from troedler.core.scoring import Outcome, outcome
from troedler.core.state import GameState, Phase
from troedler.io.records import MAX_SEAT_NAME, GameRecord
from troedler.seat import Observation, Recall, observe

__all__ = [
    "Bot",
    "BotFailed",
    "BotFailure",
    "FailureKind",
    "PlayedGame",
    "bot_rng",
    "check_bot",
    "limit_move_times",
    "play_game",
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


@attrs.frozen
class PlayedGame:
    """A game played between bots: its record and last state."""

    record: GameRecord
    final: GameState
    finished: bool
    """False when the game was stopped at a round cap, or by a failure, before it ended."""
    failure: BotFailure | None = None
    """The bot failure that stopped the game (only with ``forfeit=True``)."""

    @property
    def rounds(self) -> int:
        """The rounds played: the last round begun, not counting a round that
        was only dealt when a round cap stopped the game."""
        return rounds_played(self.final)


def rounds_played(state: GameState) -> int:
    """The rounds played up to ``state``: a round whose dealer piles were just
    formed, with no move made in it yet, is not counted (games stopped at a
    round cap end there)."""
    fresh = state.phase is Phase.TAKE_PILES and None not in state.dealer_piles
    return state.round - 1 if fresh else state.round


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


def play_game(
    bots: Sequence[Bot],
    *,
    seed: int,
    starting_dealer: int = 0,
    rules: Rules | None = None,
    recall: Recall = "perfect",
    max_rounds: int | None = None,
    forfeit: bool = False,
    move_time_limit: float | None = None,
    on_move: Callable[[Move, GameState], None] | None = None,
) -> PlayedGame:
    """Play one game between ``bots`` (one per seat, in seat order).

    Each bot sees only :func:`~troedler.observe` of its seat with ``recall``
    and draws its chance from its own generator, seeded from ``seed`` and its
    seat, so the same arguments always give the same game. With
    ``max_rounds`` the game stops after that round and is not finished.

    A bot without a name is refused before the first move
    (:class:`ConfigurationError`). A bot that picks a move that is not legal
    raises :class:`IllegalMoveError`, and an exception from a bot's
    ``choose`` is passed on, unless ``forfeit`` is true: then the game stops
    at that move, unfinished, and :attr:`PlayedGame.failure` says who failed,
    where and how. With ``forfeit``, ``move_time_limit`` (seconds) also
    forfeits a move that took longer; it is measured after ``choose``
    returns, so a bot that never returns must be stopped from outside (as
    :func:`troedler.simulation.tournament` does). ``on_move`` is called with
    each move and the state it led to.
    """
    if not 2 <= len(bots) <= 4:
        raise ConfigurationError(f"S1: 2 to 4 bots, not {len(bots)}")
    for bot in bots:
        if isinstance(bot, str):  # texts are for tournament(); play_game takes bot objects
            raise ConfigurationError(
                "play_game takes bot objects such as RandomBot(), not the text "
                f"{_bounded(repr(bot), 40)}; make one with troedler.bots.make_bot"
            )
    names = [check_bot(bot) for bot in bots]
    if max_rounds is not None and (type(max_rounds) is not int or max_rounds < 1):
        raise ConfigurationError(
            f"max_rounds must be a whole number of at least 1, not {_bounded(repr(max_rounds), 40)}"
        )
    if move_time_limit is not None and not forfeit:
        raise ConfigurationError("a move time limit needs forfeit=True")
    if move_time_limit is not None and not move_time_limit > 0:
        raise ConfigurationError(f"a move time limit must be positive, not {move_time_limit}")
    if move_time_limit is not None:
        limit_move_times(bots, move_time_limit)
    first = new_game(len(bots), seed=seed, starting_dealer=starting_dealer, rules=rules)
    rngs = [bot_rng(seed, seat) for seat in range(len(bots))]
    state = first
    moves: list[Move] = []
    failure: BotFailure | None = None

    try:
        while not state.is_over and (max_rounds is None or state.round <= max_rounds):
            seat = state.current_player
            assert seat is not None  # a game that is not over has a player to move
            seen = observe(state, seat, recall=recall)
            if not forfeit:
                allowed = legal_moves(state)
                move = bots[seat].choose(seen, allowed, rngs[seat])
                if move not in allowed:
                    raise IllegalMoveError(
                        "T1",
                        f"bot {names[seat]!r} chose {_bounded(repr(move), 80)}, which is not legal",
                    )
            else:
                from troedler.bots.failure import ask_bot  # noqa: PLC0415 - it builds on this module

                answer = ask_bot(
                    bots[seat], seen, rngs[seat], move=len(moves), move_time_limit=move_time_limit
                )
                if isinstance(answer, BotFailure):
                    failure = answer
                    break
                move = answer
            moves.append(move)
            state = apply_move(state, move)
            if on_move is not None:
                on_move(move, state)
    except BaseException:
        tell_game_over(bots, None, "stopped")
        raise
    if state.is_over:
        tell_game_over(bots, outcome(state), "finished")
    else:
        tell_game_over(bots, None, "capped" if failure is None else "forfeited")
    record = GameRecord(
        rules=first.rules,
        fingerprint=fingerprint(first.board, first.cards),
        seed=seed,
        starting_dealer=starting_dealer,
        seats=tuple(f"{name} {seat}" for seat, name in enumerate(names)),
        moves=tuple(str(move) for move in moves),
        result=outcome(state) if state.is_over else None,
    )
    return PlayedGame(record, state, state.is_over, failure)


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
