"""What a picture reads of a position: a state and its observations read alike."""

from __future__ import annotations

import random

import pytest

from tests.helpers import cards, play, position
from troedler import apply_move, legal_moves, new_game, observe
from troedler import position_facts as facts
from troedler.core.errors import ConfigurationError
from troedler.core.scoring import Tally, tally, value_pile_tally
from troedler.core.state import GameState
from troedler.text.render import render_screen


def _states(players: int, seed: int) -> list[GameState]:
    """Every state of one random game."""
    state = new_game(players, seed=seed)
    rng = random.Random(seed)
    states = [state]
    while not state.is_over:
        state = apply_move(state, rng.choice(legal_moves(state)))
        states.append(state)
    return states


@pytest.mark.parametrize("players", [2, 4])
def test_an_observation_reads_as_its_state_in_all_that_its_seat_knows(players: int) -> None:
    for state in _states(players, seed=players)[::3]:
        for seat in range(players):
            seen = observe(state, seat, recall="table")
            assert facts.num_players(seen) == facts.num_players(state) == players
            for read in (facts.carts, facts.goods, facts.discard, facts.turn):
                assert read(seen) == read(state), read.__name__  # type: ignore[operator]
            assert facts.round_pile_size(seen) == facts.round_pile_size(state)
            assert facts.viewer(seen) == (seat, "table")
            assert facts.viewer(state) == (None, None)
            for other in range(players):
                assert facts.hand_size(seen, other) == facts.hand_size(state, other)
                # A seat knows its own hand and value pile, no other hand.
                known = facts.hand(seen, other)
                assert known == (facts.hand(state, other) if other == seat else None)
                pile = facts.value_pile(seen, other)
                assert pile is None or pile == facts.value_pile(state, other)
                assert facts.tally(seen, other) in (None, tally(state, other))
            assert facts.tally(seen, seat) == facts.tally(state, seat) == tally(state, seat)


def test_a_tally_counts_the_feed_and_the_requests_of_a_value_pile_only() -> None:
    pile = cards("feed AB:4 feed ACU:7")
    assert value_pile_tally(pile, 3) == Tally(2, 3, (4, 7))
    # Cards played this turn join the pile: route and extra-good cards count for nothing.
    assert value_pile_tally((*pile, *cards("ferry extra")), 0) == Tally(2, 0, (4, 7))


def test_the_cards_a_turn_played_reach_the_tally_only_with_the_value_pile() -> None:
    state = position(
        players=2, seat=0, hand="AA:4 feed", goods="AAU", villages={"Knockando": ""},
        cart="Knockando",
    )  # fmt: skip
    state = play(state, "deliver AA:4 with AU")
    # Not yet on the value pile: the turn has not ended (T6).
    assert facts.tally(state, 0) == tally(state, 0) == Tally(0, 1, ())
    played, _, _ = facts.turn(state)
    assert value_pile_tally(facts.value_pile(state, 0) or (), 1) == Tally(0, 1, ())
    assert value_pile_tally(played, 1) == Tally(1, 1, (4,))


@pytest.mark.parametrize("thing", ["a state", None, 3])
def test_the_screen_refuses_what_is_neither_a_state_nor_an_observation(thing: object) -> None:
    with pytest.raises(ConfigurationError, match="expected a GameState or an Observation"):
        render_screen(thing, ("Ada", "Bo"))  # type: ignore[arg-type]
