"""The derived facts of the rules, each named once in troedler.core.rulebook (C, S, R, T, E).

Each test checks a fact against the rules' own numbers and against what the
engine does with it, so that a change of the fact shows in both.
"""

from __future__ import annotations

from typing import Any

import attrs
import pytest

from troedler import (
    EXTRA_GOOD,
    SPECIAL_FEED,
    UNKNOWN,
    ConfigurationError,
    DiscardPile,
    RouteKind,
    Rules,
    Tally,
    check_invariants,
    default_board,
    default_cards,
    legal_moves,
    new_game,
    parse_card,
    score,
)
from troedler.core import rulebook
from troedler.core.errors import TroedlerError
from troedler.core.limits import MAX_ROUNDS, MAX_SHUFFLES
from troedler.core.rulebook import (
    HAND_LIMIT,
    MAX_CARDS,
    PLAYER_COUNTS,
    TWO_PLAYER_DAMAGE_MARGIN,
    VALUE_PILE_TYPES,
    dealer_discards_first,
    end_threshold,
    ends_game,
    goes_to_value_pile,
    goods_problem,
    most_shuffles,
    next_to_take,
    pile_count,
    round_cards,
    setup_discards,
    setup_portion,
    taker,
)
from troedler.core.state import Turn


def test_S1_two_to_four_players() -> None:
    assert PLAYER_COUNTS == (2, 3, 4)
    for n in PLAYER_COUNTS:
        assert Rules.for_players(n).num_players == n
    for n in (1, 5):
        with pytest.raises(ConfigurationError, match="S1"):
            Rules.for_players(n)
    with pytest.raises(ConfigurationError, match="S1"):
        score([Tally(0, 0)] * 5)


def test_S5_set_up_pile_per_player_count() -> None:
    assert [setup_discards(n) for n in PLAYER_COUNTS] == [7, 9, 9]
    for n in PLAYER_COUNTS:
        rules = Rules.for_players(n)
        assert rules.setup_requests == rules.setup_feed == setup_discards(n)
        assert setup_portion(rules) == 2 * setup_discards(n)
        # Round 1's leftover pile has not gone yet: the discard pile is the set-up pile.
        assert len(new_game(n, seed=3).discard_pile) == setup_portion(rules)
    assert setup_portion(Rules.for_players(3, setup_requests=2, setup_feed=5)) == 7
    # Rules built field by field for 3 or 4 players get the rulebook's own
    # set-up pile and hand limit (S5, T7), as for_players gives them.
    for n in (3, 4):
        rules = Rules(num_players=n, end_threshold=end_threshold(n), two_player_rules=False)
        assert rules == Rules.for_players(n)


def test_R2_a_round_turns_up_four_cards_on_each_of_players_plus_one_piles() -> None:
    for n in PLAYER_COUNTS:
        assert pile_count(n) == n + 1
        assert round_cards(n) == 4 * (n + 1)
        state = new_game(n, seed=2)
        assert sum(len(pile or ()) for pile in state.dealer_piles) == round_cards(n)


def test_R3_at_most_two_shuffles_a_round() -> None:
    assert most_shuffles(1) == 6
    assert most_shuffles(7) == 4 + 14
    assert most_shuffles(MAX_ROUNDS) == MAX_SHUFFLES
    state = new_game(3, seed=1)
    check_invariants(attrs.evolve(state, round=2, shuffles=most_shuffles(2)))
    with pytest.raises(TroedlerError, match="at most two a round"):
        check_invariants(attrs.evolve(state, round=2, shuffles=most_shuffles(2) + 1))


def test_R4_the_two_player_dealer_discards_first_and_only_then() -> None:
    two, three = Rules.for_players(2), Rules.for_players(3)
    assert dealer_discards_first(two, 0)
    assert not dealer_discards_first(two, 1)
    assert not dealer_discards_first(three, 0)
    assert not dealer_discards_first(Rules.for_players(2, two_player_rules=False), 0)
    assert legal_moves(new_game(2, seed=1)) == (DiscardPile(0), DiscardPile(1), DiscardPile(2))


def test_R4_piles_are_taken_from_the_dealers_left_clockwise() -> None:
    assert [taker(2, 4, k) for k in range(4)] == [3, 0, 1, 2]
    rules = Rules.for_players(4)
    assert [next_to_take(rules, 2, gone) for gone in range(5)] == [3, 0, 1, 2, None]
    two = Rules.for_players(2)
    assert [next_to_take(two, 1, gone) for gone in range(4)] == [1, 0, 1, None]


def test_T6_played_feed_and_requests_go_to_the_value_pile() -> None:
    request = parse_card("AAB:5")
    assert goes_to_value_pile(SPECIAL_FEED)
    assert goes_to_value_pile(request)
    assert not goes_to_value_pile(EXTRA_GOOD)
    assert not goes_to_value_pile(parse_card("ferry"))
    assert {type(SPECIAL_FEED), type(request)} == set(VALUE_PILE_TYPES)


def test_T7_the_hand_limit_is_four_unless_the_rules_say_otherwise() -> None:
    assert HAND_LIMIT == 4
    for n in PLAYER_COUNTS:
        assert Rules.for_players(n).hand_limit == HAND_LIMIT
    assert Rules.for_players(2, hand_limit=6).hand_limit == 6


def test_E1_end_thresholds_per_player_count() -> None:
    assert [end_threshold(n) for n in PLAYER_COUNTS] == [7, 6, 5]
    for n in PLAYER_COUNTS:
        rules = Rules.for_players(n)
        assert rules.end_threshold == end_threshold(n)
        assert ends_game(rules, end_threshold(n))
        assert ends_game(rules, end_threshold(n) + 1)
        assert not ends_game(rules, end_threshold(n) - 1)
    assert ends_game(Rules.for_players(4, end_threshold=2), 3)


def test_E4_two_player_total_damage_at_a_margin_of_exactly_three() -> None:
    assert TWO_PLAYER_DAMAGE_MARGIN == 3
    # Seat 0 with exactly the margin more damage (feed 3, no goods) against none.
    result = score([Tally(TWO_PLAYER_DAMAGE_MARGIN, 0), Tally(0, 0, (3,))])
    assert result.totally_damaged == frozenset({0})
    assert result.winners == frozenset({1})
    result = score([Tally(0, 0, (3,)), Tally(TWO_PLAYER_DAMAGE_MARGIN, 0)])
    assert result.totally_damaged == frozenset({1})
    result = score([Tally(TWO_PLAYER_DAMAGE_MARGIN - 1, 0, (3,)), Tally(0, 0)])
    assert result.totally_damaged == frozenset()
    assert result.winners == frozenset({0})


def test_E3_two_tallies_without_two_player_rules_use_the_sole_highest_damage() -> None:
    # Two players with two-player rules off: damage 1 against 0 is total damage (E3).
    result = score([Tally(1, 0, (7,)), Tally(0, 0, (3,))], two_player_rules=False)
    assert result.totally_damaged == frozenset({0})
    assert result.winners == frozenset({1})
    result = score([Tally(1, 0, (7,)), Tally(0, 0, (3,))])
    assert result.totally_damaged == frozenset()
    assert result.winners == frozenset({0})


def test_C2_no_list_of_cards_beyond_the_card_bound() -> None:
    assert MAX_CARDS > 110  # the game's cards (C2)
    state = new_game(3, seed=1)
    with pytest.raises(TroedlerError, match=f"turn.discards_due must be an int 0 to {MAX_CARDS}"):
        check_invariants(attrs.evolve(state, turn=Turn(discards_due=MAX_CARDS + 1)))


def test_C1_goods_are_conserved_eight_of_each_kind() -> None:
    assert goods_problem([8] * 6, in_bag=False) is None
    # More than eight is wrong whether or not goods still wait in the bag (S4).
    for in_bag in (False, True):
        assert "9 anvils, not 8 (C1)" in (goods_problem([9] + [8] * 5, in_bag=in_bag) or "")
    # Fewer than eight only while chance still deals them at set-up.
    assert "7 vases, not 8 (C1)" in (goods_problem([8] * 5 + [7], in_bag=False) or "")
    assert goods_problem([8] * 5 + [7], in_bag=True) is None
    assert goods_problem([0] * 6, in_bag=True) is None


# --- the formulas, for Python integers and arrays alike ------------------------------

FORMULA_RANGE = range(-2, 12)


def test_E2_damage_is_the_feed_used_and_half_the_goods_rounded_up() -> None:
    for feed in range(6):
        for goods in range(12):
            assert rulebook.damage(feed, goods) == feed + -(-goods // 2)


def test_E3_E4_total_damage_by_the_sole_highest_or_a_margin_of_three() -> None:
    # E3: the only one with the highest damage, never a shared highest.
    assert rulebook.totally_damaged(5, 5, 1, 0, False)
    assert not rulebook.totally_damaged(5, 5, 2, 0, False)
    assert not rulebook.totally_damaged(4, 5, 1, 0, False)
    # E4: by three or more over the other player, whatever the highest.
    assert rulebook.totally_damaged(5, 5, 1, 2, True)
    assert not rulebook.totally_damaged(5, 5, 1, 3, True)
    assert not rulebook.totally_damaged(2, 5, 1, 5, True)


def test_T7_discards_owed_keep_special_feed_and_leave_the_hand_at_the_limit() -> None:
    for limit in range(6):
        for cards in range(12):
            for feed in range(cards + 1):
                discards, to_value_pile = rulebook.discards_owed(cards, feed, limit)
                kept_feed = feed - to_value_pile
                kept = cards - to_value_pile - discards
                # Nothing is owed at or under the limit; over it, the hand
                # keeps the limit, or only its feed where that is more.
                assert kept == (cards if cards <= limit else max(limit, min(feed, limit)))
                assert kept_feed == min(feed, limit) and discards <= cards - feed


def test_R3_a_reshuffle_is_due_once_the_pile_is_used_up_while_piles_take_cards() -> None:
    for mid in (True, False):
        for laid in range(0, 17):
            for left in (0, 1):
                for discarded in (0, 1, 5):  # one card is a pile to reshuffle
                    due = rulebook.reshuffle_due(laid, left, discarded, 16, mid)
                    expected = left == 0 and discarded > 0 and laid < 16 and (laid == 0 or mid)
                    assert bool(due) == expected, (mid, laid, left, discarded)


def test_I2_the_set_up_pile_is_hidden_until_the_first_reshuffle() -> None:
    rules = Rules.for_players(3)
    portion = rules.setup_requests + rules.setup_feed
    assert rulebook.setup_pile_hidden(rules, 4, portion) == portion
    assert rulebook.setup_pile_hidden(rules, 4, portion + 7) == portion
    assert rulebook.setup_pile_hidden(rules, 5, portion + 7) == 0
    assert rulebook.setup_pile_hidden(rules, 4, portion - 1) == 0


def test_the_formulas_are_plain_arithmetic_on_arrays_too() -> None:
    """Each formula gives, element by element on arrays, what it gives for
    integers: the vectorized engine calls the very same functions."""
    np = pytest.importorskip("numpy")
    values = np.array(list(FORMULA_RANGE))
    a, b, c = np.meshgrid(values, values, values, indexing="ij")
    rules = Rules.for_players(2)

    def same(formula: Any, *arrays: Any) -> None:
        vectorized = formula(*arrays)
        for index in np.ndindex(arrays[0].shape):
            one = formula(*(int(array[index]) for array in arrays))
            assert np.array_equal(np.asarray(vectorized)[index], one), (formula, index)

    same(rulebook.at_least_zero, a)
    same(rulebook.damage, a, b)
    same(lambda x, y, z: rulebook.discards_owed(x, y, z)[0], a, b, c)
    same(lambda x, y, z: rulebook.discards_owed(x, y, z)[1], a, b, c)
    same(lambda x, y, z: rulebook.reshuffle_due(x, y, z, 16, True), a, b, c)
    same(lambda x, y, z: rulebook.reshuffle_due(x, y, z, 16, False), a, b, c)
    same(lambda x, y: rulebook.setup_pile_hidden(rules, x, y), a, b)
    same(lambda x: rulebook.ends_game(rules, x), a)
    for two in (True, False):
        same(lambda x, y, z, two=two: rulebook.totally_damaged(x, y, z, y - 3, two), a, b, c)


def test_S5_the_set_up_pile_cannot_take_more_than_the_cards_hold() -> None:
    cards = default_cards()
    for every in ({"setup_requests": len(cards.requests)}, {"setup_feed": cards.special_feed}):
        assert rulebook.setup_problem(Rules.for_players(4, **every), cards) is None
    few_requests = attrs.evolve(cards, requests=cards.requests[:3])
    few_feed = attrs.evolve(cards, special_feed=3)
    for fewer in (few_requests, few_feed):
        problem = rulebook.setup_problem(Rules.for_players(4), fewer)
        assert problem is not None and problem.startswith("S5: the set-up takes 9 goods requests")
        with pytest.raises(ConfigurationError, match="^S5: the set-up takes 9"):
            new_game(4, seed=1, cards=fewer)


def test_S5_I2_the_set_up_pile_takes_its_own_cards_and_no_more() -> None:
    rules = Rules.for_players(2)  # 7 requests and 7 feed
    request = parse_card("AA:4")
    assert rulebook.setup_pile_left(rules, ()) == (7, 7)
    assert rulebook.setup_pile_left(rules, (SPECIAL_FEED, request, UNKNOWN)) == (6, 6)
    assert rulebook.setup_pile_left(rules, (SPECIAL_FEED,) * 7 + (request,) * 7) == (0, 0)
    for too_many in ((SPECIAL_FEED,) * 8, (request,) * 8, (EXTRA_GOOD,)):
        assert rulebook.setup_pile_left(rules, too_many) is None


def test_C3_each_seat_has_the_starting_set_of_its_village_whose_route_leaves_it() -> None:
    board, cards = default_board(), default_cards()
    sets = rulebook.starting_sets(board, cards, 3)
    assert [s.village for s in sets] == [board.start_village(seat, 3) for seat in range(3)]
    without_first = attrs.evolve(cards, starting_sets=cards.starting_sets[1:])
    village = cards.starting_sets[0].village
    missing = f"^C3: the cards have no starting set for start village {village}$"
    with pytest.raises(ConfigurationError, match=missing):
        rulebook.starting_sets(board, without_first, 4)
    # Aberlour is left by trails and bridges only.
    aberlour = next(s for s in cards.starting_sets if s.village == "Aberlour")
    stuck = attrs.evolve(aberlour, route=RouteKind.MOOR_PATH)
    moved = attrs.evolve(
        cards,
        starting_sets=tuple(stuck if s is aberlour else s for s in cards.starting_sets),
    )
    leaves = "^C3: the starting set of Aberlour has a moor card, but no moor leaves Aberlour$"
    with pytest.raises(ConfigurationError, match=leaves):
        rulebook.starting_sets(board, moved, 4)


@pytest.mark.parametrize("switch", ["two_player_rules", "reshuffle_mid_forming", "explicit_chance"])
def test_S1_every_switch_of_the_rules_is_true_or_false(switch: str) -> None:
    for look_alike in (1, 0, "yes", None):
        with pytest.raises(ConfigurationError, match=f"^rules.{switch} must be True or False"):
            attrs.evolve(Rules.for_players(2), **{switch: look_alike})
