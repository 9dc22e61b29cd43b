"""The bundled bots, the bot protocol, and playing games between bots."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from troedler import (
    IllegalMoveError,
    Move,
    Observation,
    check_invariants,
    legal_moves,
    observe,
    replay,
)
from troedler.bots import BOTS, Bot, GreedyBot, ISMCTSBot, RandomBot, make_bot, play_game
from troedler.bots.greedy import best_discards, discard_evaluations, discard_paths, evaluations
from troedler.core.errors import ConfigurationError
from troedler.core.moves import PlayRequest
from troedler.core.state import Phase

from .helpers import position

# Every bundled bot, the searching one on a small budget to keep tests quick.
QUICK_BOTS = sorted(f"{name}:8" if name == "ismcts" else name for name in BOTS)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.sampled_from(QUICK_BOTS), min_size=2, max_size=4),
    st.integers(0, 2**32),
    st.sampled_from(["perfect", "table"]),
)
def test_bots_never_choose_an_illegal_move(names: list[str], seed: int, recall: str) -> None:
    # play_game refuses any move not in the legal moves, so finishing is the proof.
    played = play_game([make_bot(n) for n in names], seed=seed, recall=recall, max_rounds=12)  # type: ignore[arg-type]
    check_invariants(played.final)
    assert replay(played.record)[-1] == played.final


def test_same_seed_same_game() -> None:
    bots = [GreedyBot(), RandomBot(), ISMCTSBot(iterations=10)]
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


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_discard_changes_only_the_discarding_seat_s_evaluation(players: int) -> None:
    # discard_evaluations works out every other seat's value once for all the
    # ways to discard to the hand limit (T7): it must equal evaluating each
    # end in full. best_discards plays the first of the best of those ends.
    checked = 0
    for seed in range(3):
        played = play_game([RandomBot()] * players, seed=seed, max_rounds=60)
        for state in replay(played.record):
            if state.phase is not Phase.PLAY_TURNS or not state.turn.discards_due:
                continue
            seat = state.current_player
            assert seat is not None
            paths = discard_paths(state)
            ends = [end for _, end in paths]
            assert all(not end.turn.discards_due for end in ends)
            assert discard_evaluations(ends, seat) == [evaluations(end) for end in ends]
            values = [evaluations(end)[seat] for end in ends]
            first = values.index(max(values))
            assert best_discards(state, seat) == (values[first], paths[first][0])
            checked += 1
    assert checked >= 5
    assert discard_evaluations([], 0) == []


@pytest.mark.parametrize(("players", "seed"), [(3, 1), (3, 7), (4, 7)])
def test_greedy_bots_break_a_damage_stand_off(players: int, seed: int) -> None:
    # Without a fading fear of leading the damage table, these games stall:
    # nobody takes a good or spends feed, and nobody can deliver.
    played = play_game([GreedyBot()] * players, seed=seed, max_rounds=100)
    assert played.finished
    assert played.final.round > 20  # the stand-off lasted


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
    assert all(isinstance(bot(), Bot) for bot in BOTS.values())
    assert isinstance(make_bot(" Greedy "), GreedyBot)
    with pytest.raises(ConfigurationError, match="no bot called 'wizard'"):
        make_bot("wizard")
    with pytest.raises(ConfigurationError, match="S1: 2 to 4 bots"):
        play_game([RandomBot()], seed=1)


def test_ismcts_bot_beats_random_bots() -> None:
    wins = 0
    for game in range(4):
        bots: list[Bot] = [RandomBot()] * 4
        bots[game % 4] = ISMCTSBot(iterations=30)
        played = play_game(bots, seed=200 + game, max_rounds=60)
        assert played.finished and played.record.result is not None
        wins += game % 4 in played.record.result.winners
    assert wins >= 3


def test_ismcts_bot_delivers_a_complete_request() -> None:
    # The cart stands in an empty village with the goods of a 7-point request.
    state = position(cart="Aberlour", hand="trail AAAB:7", goods="AAAB", villages={"Aberlour": ""})
    seen = observe(state, 0)
    move = ISMCTSBot(iterations=60).choose(seen, legal_moves(seen), random.Random(3))
    assert isinstance(move, PlayRequest) and move.feed_cost == 0


def test_ismcts_bot_budget_by_time_returns_a_legal_move() -> None:
    state = position(cart="Aberlour", hand="trail moor extra ABC:4")
    seen = observe(state, 0)
    bot = ISMCTSBot(iterations=10**9, seconds=0.05)
    assert bot.choose(seen, legal_moves(seen), random.Random(1)) in legal_moves(seen)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"iterations": 0}, "at least 1 iteration"),
        ({"seconds": 0.0}, "positive time budget"),
        ({"exploration": -1.0}, "positive exploration"),
        ({"temperature": 0.0}, "positive temperature"),
        ({"playout_rounds": 0}, "at least 1 round"),
    ],
)
def test_ismcts_bot_refuses_a_senseless_budget(arguments: dict[str, float], message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        ISMCTSBot(**arguments)  # type: ignore[arg-type]


def test_bots_by_name_with_a_budget() -> None:
    assert make_bot("ismcts:25") == ISMCTSBot(iterations=25)
    assert make_bot("ismcts") == ISMCTSBot()
    for bad in ("greedy:5", "ismcts:many", "ismcts:-3"):
        with pytest.raises(ConfigurationError, match="only ismcts takes a budget"):
            make_bot(bad)
