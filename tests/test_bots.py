"""The bundled bots, the bot protocol, and playing games between bots."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from troedler import IllegalMoveError, Move, Observation, check_invariants, replay
from troedler.bots import BOTS, Bot, GreedyBot, RandomBot, make_bot, play_game
from troedler.errors import ConfigurationError


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.sampled_from(sorted(BOTS)), min_size=2, max_size=4),
    st.integers(0, 2**32),
    st.sampled_from(["perfect", "table"]),
)
def test_bots_never_choose_an_illegal_move(names: list[str], seed: int, recall: str) -> None:
    # play_game refuses any move not in the legal moves, so finishing is the proof.
    played = play_game([make_bot(n) for n in names], seed=seed, recall=recall, max_rounds=12)  # type: ignore[arg-type]
    check_invariants(played.final)
    assert replay(played.record)[-1] == played.final


def test_same_seed_same_game() -> None:
    bots = [GreedyBot(), RandomBot(), RandomBot()]
    one = play_game(bots, seed=5, max_rounds=10)
    two = play_game(bots, seed=5, max_rounds=10)
    assert one.record == two.record and one.final == two.final
    assert play_game(bots, seed=6, max_rounds=10).record != one.record


def test_greedy_bot_finishes_games_and_beats_random_bots() -> None:
    wins = 0
    for game in range(8):
        bots: list[Bot] = [RandomBot()] * 4
        bots[game % 4] = GreedyBot()
        played = play_game(bots, seed=100 + game, max_rounds=60)
        assert played.finished
        assert played.record.result is not None
        wins += game % 4 in played.record.result.winners
    assert wins >= 7


def test_two_greedy_bots_end_their_game() -> None:
    played = play_game([GreedyBot()] * 2, seed=2, max_rounds=150)
    assert played.finished


class _Cheat:
    name = "cheat"

    def choose(
        self, observation: Observation, legal_moves: Sequence[Move], rng: random.Random
    ) -> Move:
        return object()  # type: ignore[return-value]


def test_a_bot_that_picks_an_illegal_move_is_refused() -> None:
    with pytest.raises(IllegalMoveError, match="bot 'cheat' chose"):
        play_game([_Cheat(), RandomBot()], seed=1)


def test_the_protocol_and_the_registry() -> None:
    assert isinstance(GreedyBot(), Bot) and isinstance(RandomBot(), Bot)
    assert isinstance(make_bot(" Greedy "), GreedyBot)
    with pytest.raises(ConfigurationError, match="no bot called 'wizard'"):
        make_bot("wizard")
    with pytest.raises(ConfigurationError, match="S1: 2 to 4 bots"):
        play_game([RandomBot()], seed=1)
