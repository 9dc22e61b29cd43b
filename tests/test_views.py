"""I1-I3 views: what a seat knows, and states consistent with it."""

from __future__ import annotations

import random
from collections import Counter

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers import position
from tests.test_properties import reachable_states
from troedler import (
    EXTRA_GOOD,
    SPECIAL_FEED,
    UNKNOWN,
    ConfigurationError,
    DiscardCard,
    EndTurn,
    GameState,
    Position,
    RequestCard,
    SpecialFeedCard,
    TroedlerError,
    apply_move,
    check_invariants,
    determinize,
    legal_moves,
    new_game,
    observe,
)
from troedler.core.invariants import cards_in_play, cards_in_state
from troedler.core.pile import Pile
from troedler.core.shuffle import shuffled

RECALLS = ("perfect", "table")
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(reachable_states(), st.integers(0, 3), st.sampled_from(RECALLS), st.integers(0, 2**32))
def test_determinized_states_observe_as_the_observation(
    state: GameState, seat: int, recall: str, rng_seed: int
) -> None:
    seat %= state.num_players
    seen = observe(state, seat, recall=recall)  # type: ignore[arg-type]
    guess = determinize(seen, random.Random(rng_seed))
    check_invariants(guess)
    assert observe(guess, seat, recall=recall) == seen  # type: ignore[arg-type]
    # The guess agrees with everything the seat knows, and the seat's own cards are its own.
    assert guess.players[seat].hand == state.players[seat].hand
    assert guess.players[seat].value_pile == state.players[seat].value_pile
    assert legal_moves(guess) == legal_moves(state) or state.current_player != seat


@SETTINGS
@given(reachable_states(), st.integers(0, 3), st.sampled_from(RECALLS), st.integers(0, 2**32))
def test_states_differing_only_in_the_unknown_look_the_same(
    state: GameState, seat: int, recall: str, rng_seed: int
) -> None:
    seat %= state.num_players
    # Reorder the face-down game-round pile and change the seed: nobody can tell (I2).
    other = attrs.evolve(
        state,
        seed=state.seed + 1,
        game_round_pile=shuffled(state.game_round_pile, rng_seed, 0),
    )
    assert observe(other, seat, recall=recall) == observe(state, seat, recall=recall)  # type: ignore[arg-type]
    # Two random completions of one observation look the same to the seat.
    seen = observe(state, seat, recall=recall)  # type: ignore[arg-type]
    one = determinize(seen, random.Random(rng_seed))
    two = determinize(seen, random.Random(rng_seed + 1))
    assert observe(one, seat, recall=recall) == observe(two, seat, recall=recall)  # type: ignore[arg-type]


def test_I1_perfect_recall_knows_every_hand_and_pile() -> None:
    state = new_game(4, seed=5)
    state = apply_move(state, legal_moves(state)[0])
    seen = observe(state, 2, recall="perfect")
    assert seen.players == state.players
    assert all(seen.knows_hand(seat) for seat in range(4))
    assert seen.dealer_piles == state.dealer_piles
    # The face-down pile keeps its size, but no card of it is known; the seed is not there.
    assert seen.game_round_pile == (UNKNOWN,) * len(state.game_round_pile)
    assert not hasattr(seen, "seed")


def test_I1_a_view_has_the_state_s_shape_and_knows_the_same_public_fields() -> None:
    state = new_game(3, seed=8)
    for recall in RECALLS:
        seen = observe(state, 1, recall=recall)  # type: ignore[arg-type]
        assert isinstance(seen, Position) and not isinstance(seen, GameState)
        assert (seen.viewer, seen.recall, seen.num_players) == (1, recall, 3)
        for name in ("rules", "board", "cards", "shuffles", "round", "dealer", "phase"):
            assert getattr(seen, name) == getattr(state, name), name
        assert (seen.current_player, seen.village_goods, seen.turn) == (
            state.current_player,
            state.village_goods,
            state.turn,
        )
        assert [(p.cart, p.goods, len(p.hand)) for p in seen.players] == [
            (p.cart, p.goods, len(p.hand)) for p in state.players
        ]
        assert len(seen.discard_pile) == len(state.discard_pile)
    assert (state.viewer, state.recall, state.knows_hand(2)) == (None, None, True)


def test_a_view_cannot_be_played_on_but_lists_its_seat_s_own_moves() -> None:
    state = new_game(3, seed=8)
    mover = state.current_player
    assert mover is not None
    mine = observe(state, mover, recall="table")
    assert legal_moves(mine) == legal_moves(state)
    assert legal_moves(observe(state, (mover + 1) % 3, recall="perfect")) == ()
    with pytest.raises(ConfigurationError, match="expected a GameState"):
        apply_move(mine, legal_moves(state)[0])  # type: ignore[arg-type]


def test_I2_setup_discard_pile_is_known_only_from_above() -> None:
    state = new_game(3, seed=5)
    seen = observe(state, 0, recall="perfect")
    setup = state.rules.setup_requests + state.rules.setup_feed
    assert seen.discard_pile.cards[: setup - 1] == (UNKNOWN,) * (setup - 1)
    assert seen.discard_pile.cards[setup - 1] == state.discard_pile.cards[setup - 1]
    # Reordering the hidden part of it cannot be seen.
    cards = state.discard_pile.cards
    reordered = attrs.evolve(
        state, discard_pile=Pile.of(shuffled(cards[: setup - 1], 9, 9) + cards[setup - 1 :])
    )
    assert observe(reordered, 0, recall="perfect") == seen
    # A completion keeps the set-up pile's make-up: its requests and feed, nothing else.
    guess = determinize(seen, random.Random(3)).discard_pile.cards[:setup]
    assert Counter(type(card) for card in guess) == {
        RequestCard: state.rules.setup_requests,
        SpecialFeedCard: state.rules.setup_feed,
    }


def test_I3_the_table_shows_only_what_lies_visible() -> None:
    state = new_game(4, seed=5)
    assert state.current_player == 1
    seen = observe(state, 2, recall="table")
    assert seen.players[2] == state.players[2]
    for seat in (0, 1, 3):
        assert not seen.knows_hand(seat)
        assert seen.players[seat].hand == (UNKNOWN,) * len(state.players[seat].hand)
    for pile, shown in zip(state.dealer_piles, seen.dealer_piles, strict=True):
        assert shown == (UNKNOWN,) * (len(pile) - 1) + (pile[-1],)  # type: ignore[arg-type]
    assert seen.discard_pile.top == state.discard_pile.top
    assert set(seen.discard_pile.cards[:-1]) == {UNKNOWN}
    assert legal_moves(seen) == ()
    assert legal_moves(observe(state, 1, recall="table")) == legal_moves(state)


def test_determinize_deals_unknown_cards_uniformly() -> None:
    # At the table, the bottom card of dealer pile 0 is unknown: over many
    # completions special feed should land there as often as its share of
    # the unknown cards outside the set-up pile, whose make-up everyone
    # knows (I2). Value piles are empty at the start, so any other unknown
    # card may go anywhere.
    state = new_game(4, seed=11)
    seen = observe(state, 0, recall="table")
    known = cards_in_state(seen)
    del known[UNKNOWN]
    unknown = cards_in_play(state.cards, state.board, 4) - known
    setup = state.rules.setup_requests + state.rules.setup_feed
    assert len(seen.discard_pile) == setup  # its top is known
    feed_in_setup = state.rules.setup_feed - (seen.discard_pile.top == SPECIAL_FEED)
    expected = (unknown[SPECIAL_FEED] - feed_in_setup) / (sum(unknown.values()) - (setup - 1))
    trials = 3000
    landed = Counter(
        determinize(seen, random.Random(i)).dealer_piles[0][0]  # type: ignore[index]
        for i in range(trials)
    )
    # 0.04 is more than four standard deviations of the share over 3000 trials.
    assert abs(landed[SPECIAL_FEED] / trials - expected) < 0.04


def test_observe_refuses_bad_seats_and_modes() -> None:
    state = new_game(2, seed=1)
    with pytest.raises(ConfigurationError, match="seat must be 0 to 1"):
        observe(state, 2)
    with pytest.raises(ConfigurationError, match="recall is 'perfect' or 'table'"):
        observe(state, 0, recall="photographic")  # type: ignore[arg-type]


@pytest.mark.parametrize("recall", RECALLS)
def test_I2_a_state_without_the_set_up_pile_hides_nothing(recall: str) -> None:
    # Scenario positions are built by hand with an empty discard pile, as
    # after a reshuffle, so there is no set-up pile to hide (I2).
    state = position(cart="Aberlour", hand="trail AAAB:7", goods="AAAB")
    seen = observe(state, 0, recall=recall)  # type: ignore[arg-type]
    assert not seen.discard_pile
    for seed in range(5):
        dealt = determinize(seen, random.Random(seed))
        check_invariants(dealt)
        assert observe(dealt, 0, recall=recall) == seen  # type: ignore[arg-type]


def test_I2_determinize_refuses_a_set_up_pile_of_the_wrong_size() -> None:
    seen = observe(new_game(3, seed=4), 0)
    shrunk = attrs.evolve(seen, discard_pile=Pile.of(seen.discard_pile.cards[3:]))
    with pytest.raises(TroedlerError, match=r"\(S5, I2\)"):
        determinize(shrunk, random.Random(0))


def test_I2_determinize_refuses_unknown_cards_above_the_set_up_pile() -> None:
    seen = observe(new_game(3, seed=4), 0)
    known = [card for card in seen.discard_pile if card is not UNKNOWN]
    hidden = len(seen.discard_pile) - len(known)
    # As many unknown cards as the set-up pile hides, but not at the bottom.
    moved = attrs.evolve(seen, discard_pile=Pile.of((known[0], *([UNKNOWN] * hidden), *known[1:])))
    with pytest.raises(TroedlerError, match="discard_pile does not show what seat 0 knows"):
        determinize(moved, random.Random(0))


@pytest.mark.parametrize("recall", RECALLS)
def test_I3_a_pending_discard_is_seen_by_everyone(recall: str) -> None:
    from troedler.text.render import render_observation

    state = position(hand="trail bridge extra AA:4 BB:4 feed", others={1: "trail"})
    state = apply_move(state, EndTurn())
    state = apply_move(state, DiscardCard(EXTRA_GOOD))
    for seat in range(state.num_players):
        seen = observe(state, seat, recall=recall)  # type: ignore[arg-type]
        assert (seen.turn.discards_due, seen.turn.last_discard) == (1, EXTRA_GOOD)
        assert seen.discard_pile.top == EXTRA_GOOD
        names = [f"seat {s}" for s in range(state.num_players)]
        assert "Over the hand limit: seat 0 must discard 1 more" in render_observation(seen, names)
        again = determinize(seen, random.Random(seat))
        assert again.turn == state.turn
        if seat == 0 or recall == "perfect":  # the hand is known
            assert legal_moves(again) == legal_moves(state)


def test_I3_the_stacks_show_every_seat_the_same_and_only_their_tops_from_the_table() -> None:
    state = new_game(3, seed=5)
    for _ in range(40):
        state = apply_move(state, random.Random(len(state.discard_pile)).choice(legal_moves(state)))
    for recall in ("perfect", "table"):
        first = observe(state, 0, recall=recall)
        for seat in range(3):
            seen = observe(state, seat, recall=recall)
            assert (seen.dealer_piles, seen.discard_pile) == (
                first.dealer_piles,
                first.discard_pile,
            )
    seen = observe(state, 1, recall="table")
    discard = seen.discard_pile.cards
    assert discard[-1] == state.discard_pile.top and set(discard[:-1]) <= {UNKNOWN}
    for dealt, shown in zip(state.dealer_piles, seen.dealer_piles, strict=True):
        assert (dealt is None) == (shown is None)
        if dealt is not None and shown is not None:
            assert shown[-1] == dealt[-1] and set(shown[:-1]) <= {UNKNOWN}
