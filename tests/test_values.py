"""Goods, cards, piles and shuffles: the value types behave as values."""

from __future__ import annotations

import copy
import inspect
import itertools
from collections import Counter

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from troedler import (
    SPECIAL_FEED,
    ConfigurationError,
    GameState,
    Good,
    Goods,
    PlayerState,
    RequestCard,
    Turn,
    new_game,
    parse_card,
)
from troedler.core.cards import card_sort_key, hand_count, hand_index, hand_without, sort_hand
from troedler.core.pile import Pile
from troedler.core.shuffle import shuffled
from troedler.core.state import next_state, with_player

goods_lists = st.lists(st.sampled_from(list(Good)), max_size=12)


@given(goods_lists, goods_lists)
def test_goods_arithmetic_is_multiset_arithmetic(a: list[Good], b: list[Good]) -> None:
    x, y = Goods.of(a), Goods.of(b)
    assert Counter(x + y) == Counter(a) + Counter(b)
    assert Counter(x - y) == Counter(a) - Counter(b)
    assert Counter(x | y) == Counter(a) | Counter(b)
    assert (x <= y) == (not (Counter(a) - Counter(b)))
    assert len(x) == len(a) and bool(x) == bool(a)
    assert x.kinds() == tuple(sorted(set(a)))
    for good in Good:
        assert x.add(good).count(good) == x.count(good) + 1
        if x.count(good):
            assert x.remove(good).count(good) == x.count(good) - 1


@given(goods_lists)
def test_equal_goods_are_equal_however_made(a: list[Good]) -> None:
    made = Goods(Goods.of(a).counts)  # built directly, not shared
    assert made == Goods.of(reversed(a)) == Goods.parse(str(Goods.of(a)))
    assert hash(made) == hash(Goods.of(a))
    assert copy.deepcopy(made) == made and copy.copy(made) is made


def test_goods_refuse_bad_counts() -> None:
    for bad in ((1, 2, 3), (0, 0, 0, 0, 0, -1), (49, 0, 0, 0, 0, 0), (True, 0, 0, 0, 0, 0)):
        with pytest.raises(ConfigurationError, match="six ints 0 to 48"):
            Goods(bad)  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="not enough anvil"):
        Goods.parse("B").remove(Good.ANVIL)


requests = st.builds(
    RequestCard,
    st.builds(Goods.of, st.lists(st.sampled_from(list(Good)), min_size=1, max_size=6)),
    st.integers(0, 20),
)
cards = st.one_of(
    st.sampled_from([parse_card(w) for w in ["trail", "bridge", "ferry", "moor", "extra", "feed"]]),
    requests,
)


@given(st.lists(cards, max_size=10))
def test_hand_order_and_search_by_sort_key(hand_cards: list[object]) -> None:
    hand = sort_hand(hand_cards)  # type: ignore[arg-type]
    keys = [card_sort_key(card) for card in hand]
    assert keys == sorted(keys)
    for card in hand:
        assert hand[hand_index(hand, card)] == card
        assert hand_count(hand, card) == hand_cards.count(card)


@given(cards, cards)
def test_sort_keys_tell_cards_apart(a: object, b: object) -> None:
    assert (a == b) == (card_sort_key(a) == card_sort_key(b))  # type: ignore[arg-type]


def test_request_cards_refuse_impossible_values() -> None:
    with pytest.raises(ValueError, match="0 to 999 points"):
        RequestCard(Goods.parse("AA"), -1)
    with pytest.raises(ValueError, match="at most 16 of a kind"):
        RequestCard("AA", 3)  # type: ignore[arg-type]


@given(st.lists(st.lists(cards, max_size=4), max_size=8))
def test_pile_is_its_cards_bottom_to_top(handfuls: list[list[object]]) -> None:
    pile = Pile()
    for handful in handfuls:
        pile = pile.add(handful)  # type: ignore[arg-type]
    flat = tuple(card for handful in handfuls for card in handful)
    assert pile.cards == flat and len(pile) == len(flat) and tuple(pile) == flat
    assert pile.top == (flat[-1] if flat else None)
    assert pile == Pile.of(flat)  # compared by cards, however they were added
    assert hash(pile) == hash(Pile.of(flat))


def test_shuffles_are_permutations_fixed_by_seed_and_number() -> None:
    items = list(range(40))
    one = shuffled(items, 5, 0)
    assert sorted(one) == items
    assert shuffled(items, 5, 0) == one
    assert shuffled(items, 5, 1) != one and shuffled(items, 6, 0) != one
    assert shuffled([], 1, 1) == () and shuffled([7], 1, 1) == (7,)
    many = list(range(300))  # longer than any pile of the game
    assert sorted(shuffled(many, 5, 0)) == many != list(shuffled(many, 5, 0))


def test_shuffles_never_change_between_versions() -> None:
    # Saved games replay from their seed, so these permutations are a promise:
    # a change here breaks every record made before it.
    assert shuffled(range(12), 2024, 0) == (6, 9, 4, 7, 1, 8, 2, 0, 3, 5, 10, 11)
    assert shuffled("abcdef", 7, 3) == tuple("aebfcd")


def test_shuffles_are_uniform() -> None:
    # Every order of four items, 24000 shuffles: about 1000 each. The bound is
    # the chi-square value that a fair shuffle exceeds once in a million.
    counts = Counter(shuffled("abcd", 2026, n) for n in range(24_000))
    assert set(counts) == set(itertools.permutations("abcd"))
    chi_square = sum((c - 1000) ** 2 / 1000 for c in counts.values())
    assert chi_square < 71.0


@given(st.lists(cards, max_size=10), cards, st.integers(0, 3))
def test_hand_without_takes_out_exactly_that_many(
    hand_cards: list[object], card: object, count: int
) -> None:
    hand = sort_hand(hand_cards)  # type: ignore[arg-type]
    held = hand_count(hand, card)  # type: ignore[arg-type]
    if count > held:
        with pytest.raises(ConfigurationError, match="holds fewer than"):
            hand_without(hand, card, count)  # type: ignore[arg-type]
    else:
        rest = hand_without(hand, card, count)  # type: ignore[arg-type]
        assert len(rest) == len(hand) - count
        assert Counter(hand) - Counter(rest) == Counter({card: count} if count else {})


def test_the_hot_path_builds_states_and_players_as_their_own_init_does() -> None:
    # next_state and with_player set each field through its slot, skipping
    # attrs' __init__: they must build exactly what it builds, every field.
    state = new_game(3, seed=4)
    turn = Turn(played=(parse_card("trail"),), delivered_to=("Rothes",))
    built = next_state(state, current_player=2, turn=turn, round_number=3, shuffles=7)
    expected = attrs.evolve(state, current_player=2, turn=turn, round=3, shuffles=7)
    assert type(built) is GameState and built == expected and hash(built) == hash(expected)
    for field in attrs.fields(GameState):
        assert getattr(built, field.name) is getattr(expected, field.name), field.name
    players = with_player(state.players, 1, hand=(), cart="Rothes", value_pile=(SPECIAL_FEED,))
    player = players[1]
    assert type(player) is PlayerState and players[0] is state.players[0]
    assert player == attrs.evolve(
        state.players[1], hand=(), cart="Rothes", value_pile=(SPECIAL_FEED,)
    )
    # A field added to either record is set there too, or this fails.
    for function, record in ((next_state, GameState), (with_player, PlayerState)):
        source = inspect.getsource(function)
        for field in attrs.fields(record):
            assert f"_set_{field.name}(" in source, (function.__name__, field.name)
