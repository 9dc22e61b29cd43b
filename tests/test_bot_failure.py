"""A bot that fails in a person's game is described, not raised: seat, bot,
what it did, and how to go on from the saved game."""

from __future__ import annotations

import random
import shlex
import time
from collections.abc import Sequence

import pytest

from troedler import legal_moves, new_game, observe
from troedler.bots import GreedyBot, RandomBot
from troedler.bots.base import BotFailed
from troedler.bots.failure import BotFailure, ask_bot, failure_message, resume_hint
from troedler.core.moves import Move
from troedler.seat import Observation


class Raising:
    name = "raiser"

    def choose(self, observation: Observation, legal: Sequence[Move], rng: random.Random) -> Move:
        raise ValueError("boom\nwith a second line")


class Cheating:
    name = "cheat"

    def choose(self, observation: Observation, legal: Sequence[Move], rng: random.Random) -> Move:
        return "take 99"  # type: ignore[return-value]


class Failing:
    name = "program"

    def choose(self, observation: Observation, legal: Sequence[Move], rng: random.Random) -> Move:
        raise BotFailed("slow", "did not answer its move within 5 s")


class Exiting:
    name = "exiter"

    def choose(self, observation: Observation, legal: Sequence[Move], rng: random.Random) -> Move:
        raise SystemExit(3)


def _to_move() -> Observation:
    state = new_game(3, seed=5)
    assert state.current_player is not None
    return observe(state, state.current_player)


def _asked(bot: object, **options: float) -> Move | BotFailure:
    seen = _to_move()
    return ask_bot(bot, seen, random.Random(1), move=4, **options)  # type: ignore[arg-type]


def test_a_working_bot_gives_its_legal_move() -> None:
    seen = _to_move()
    chosen = ask_bot(GreedyBot(), seen, random.Random(1), move=0)
    assert chosen in legal_moves(seen)


@pytest.mark.parametrize(
    ("bot", "kind", "words"),
    [
        (Raising(), "raised", "ValueError: boom with a second line"),
        (Cheating(), "illegal", "'take 99', which is not legal"),
        (Failing(), "slow", "did not answer its move within 5 s"),
        (Exiting(), "raised", "SystemExit: 3"),
    ],
)
def test_every_failure_is_described_in_one_line_naming_seat_bot_and_what_it_did(
    bot: object, kind: str, words: str
) -> None:
    failure = _asked(bot)
    assert isinstance(failure, BotFailure)
    assert (failure.seat, failure.move, failure.round, failure.kind) == (1, 4, 1, kind)
    assert failure.bot == bot.name  # type: ignore[attr-defined]
    line = failure_message(failure)
    assert "\n" not in line and "Traceback" not in line
    assert line.startswith(f"The bot of seat 1, {failure.bot}, ")
    assert "at move 5 (round 1)" in line
    assert words in line


def test_a_move_over_the_time_limit_is_a_failure() -> None:
    class Slow(RandomBot):
        def choose(
            self, observation: Observation, legal: Sequence[Move], rng: random.Random
        ) -> Move:
            time.sleep(0.05)
            return super().choose(observation, legal, rng)

    failure = _asked(Slow(), move_time_limit=0.01)
    assert isinstance(failure, BotFailure)
    assert failure.kind == "slow"
    assert "over the limit of 0.01 s" in failure_message(failure)


def test_ctrl_c_in_a_bot_is_not_a_failure() -> None:
    class Interrupted(RandomBot):
        def choose(
            self, observation: Observation, legal: Sequence[Move], rng: random.Random
        ) -> Move:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        _asked(Interrupted())


def test_the_resume_hint_replaces_only_the_failed_seats_bot() -> None:
    hint = resume_hint("my game.json", ["exec:./bot --x", None, "random", "greedy"], 0, "random")
    command = hint.split(": ", 1)[1]
    assert shlex.split(command) == [
        "troedler", "play", "--resume", "my game.json", "--bots", "random,random,greedy"
    ]  # fmt: skip
    assert "seat 0" in hint
