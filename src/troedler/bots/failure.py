"""A bot that fails in a person's game: asking it safely, and what to say then.

A game a person plays (in the terminal or the browser) must survive its
bots: a bot that raises, answers a move that is not legal, does not answer
in time, or whose program dies, stops the game at that move with a
:class:`~troedler.bots.base.BotFailure`. :func:`ask_bot` turns every such
failure into that description instead of an exception;
:func:`failure_message` says it in one line that names the seat, the bot
and what it did, and :func:`resume_hint` says how to go on from the saved
game with another bot in that seat.

>>> failure = BotFailure(2, "mybot", 14, 3, "raised", "ValueError: boom (mybot.py:7)")
>>> failure_message(failure)
'The bot of seat 2, mybot, raised an error at move 15 (round 3): ValueError: boom (mybot.py:7)'
>>> resume_hint("game.json", ["greedy", None, "mybot:MyBot"], 2).split(": ", 1)[1]
'troedler play --resume game.json --bots greedy,greedy'
"""

from __future__ import annotations

import random
import shlex
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import cast

from troedler.bots.base import (
    MAX_DETAIL,
    Bot,
    BotFailed,
    BotFailure,
    FailureKind,
    _bounded,
    describe_error,
)
from troedler.core.legal import legal_moves
from troedler.core.moves import Move
from troedler.seat import Observation

__all__ = [
    "BotFailure",
    "FailureKind",
    "ask_bot",
    "failure_message",
    "resume_advice",
    "resume_hint",
]

WHAT_IT_DID: dict[FailureKind, str] = {
    "raised": "raised an error",
    "illegal": "gave an answer that is not a legal move",
    "slow": "did not answer in time",
    "crashed": "stopped running",
}
"""Each kind of failure in the words of :func:`failure_message`."""


def ask_bot(
    bot: Bot,
    observation: Observation,
    rng: random.Random,
    *,
    move: int,
    move_time_limit: float | None = None,
    stop_waiting: bool = False,
) -> Move | BotFailure:
    """The move ``bot`` chooses for the seat of ``observation``, or how it failed.

    ``move`` is the number of the move asked for (from 0), for the failure's
    description. A bot that raises (a :class:`~troedler.bots.base.BotFailed`
    says how), that returns something that is not one of the legal moves, or
    that takes longer than ``move_time_limit`` seconds gives a
    :class:`BotFailure`; Ctrl-C is passed on.

    The time is measured after the bot returns, unless ``stop_waiting`` is
    true: then the bot chooses in a thread of its own and is not waited for
    past the limit, so that a person's game ends at once even when a bot
    never returns (that thread is left behind, to end with the program,
    since Python cannot stop a thread). A bot that keeps the limit itself
    (one with ``limit_move_time``, as a program bot, which says how it
    failed) is always asked in this thread.
    """
    seat = observation.seat
    name = _bounded(str(getattr(bot, "name", "bot")), 62)

    def fail(kind: FailureKind, detail: str) -> BotFailure:
        return BotFailure(seat, name, move, observation.round, kind, _bounded(detail, MAX_DETAIL))

    allowed = legal_moves(observation)
    started = time.perf_counter()
    keeps_time = hasattr(bot, "limit_move_time")
    wait = move_time_limit if stop_waiting and not keeps_time else None
    answered = _choose_within(bot, observation, rng, wait)
    if answered is None:
        return fail("slow", f"did not answer its move within {move_time_limit:g} s")
    chosen, raised = answered
    if isinstance(raised, BotFailed):  # a bot that says how it failed (a program bot)
        return fail(raised.kind, str(raised))
    if raised is not None:  # a bot's bug stops its game, not the program
        return fail("raised", describe_error(raised))
    took = time.perf_counter() - started
    if move_time_limit is not None and took > move_time_limit:
        return fail("slow", f"took {took:.3g} s, over the limit of {move_time_limit:g} s")
    try:
        legal = chosen in allowed
    except Exception as error:  # a returned object whose == raises
        return fail("illegal", describe_error(error))
    if not legal:
        return fail("illegal", f"chose {_bounded(repr(chosen), 80)}, which is not legal")
    return cast(Move, chosen)


def _choose_within(
    bot: Bot, observation: Observation, rng: random.Random, seconds: float | None
) -> tuple[object, BaseException | None] | None:
    """What ``bot.choose`` returned or raised; None if it did not return
    within ``seconds`` (None: waited for as long as it takes, in this thread)."""
    answer: list[tuple[object, BaseException | None]] = []
    allowed = legal_moves(observation)
    # In this thread Ctrl-C is passed on; in a thread of the bot's own it
    # cannot be the person's, so whatever the bot raises is its failure.
    caught = (Exception, SystemExit) if seconds is None else BaseException

    def choose() -> None:
        try:
            answer.append((bot.choose(observation, allowed, rng), None))
        except caught as error:
            answer.append((None, error))

    if seconds is None:
        choose()
        return answer[0]
    thread = threading.Thread(target=choose, name="troedler-bot", daemon=True)
    thread.start()
    thread.join(seconds)
    return answer[0] if answer else None


def failure_message(failure: BotFailure) -> str:
    """One line for a person: which seat's bot failed, at which move, and how.

    The move is counted from 1, as the game's history shows it.
    """
    line = (
        f"The bot of seat {failure.seat}, {failure.bot}, {WHAT_IT_DID[failure.kind]} "
        f"at move {failure.move + 1} (round {failure.round}): {failure.detail}"
    )
    return " ".join(line.split())


def resume_hint(
    path: str | Path, bots: Sequence[str | None], seat: int, replacement: str = "greedy"
) -> str:
    """How to go on with the game saved in ``path``, ``replacement`` in ``seat``.

    ``bots`` are the texts of the game's bots by seat (``None`` for a
    person's seat), as ``troedler play --bots`` takes them; the command
    names the others' bots in seat order, the failed one replaced.
    """
    intro, command = resume_advice(path, bots, seat, replacement)
    return f"{intro} {shlex.join(command)}"


def resume_advice(
    path: str | Path, bots: Sequence[str | None], seat: int, replacement: str = "greedy"
) -> tuple[str, list[str]]:
    """:func:`resume_hint` in two parts, for a screen that lays them out:
    the sentence, and the command's words.

    >>> resume_advice("my game.json", [None, "greedy"], 1)[1]
    ['troedler', 'play', '--resume', 'my game.json', '--bots', 'greedy']
    """
    others = [
        replacement if number == seat else text
        for number, text in enumerate(bots)
        if text is not None
    ]
    return (
        f"The game is saved with every move before it; to go on with another bot in seat {seat}:",
        ["troedler", "play", "--resume", str(path), "--bots", ",".join(others)],
    )
