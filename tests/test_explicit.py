"""Explicit chance: every good dealt and card turned up as a chance node (S4-S6, R2, R3)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from troedler import (
    UNKNOWN,
    IllegalMoveError,
    Phase,
    Rules,
    TakePile,
    apply_move,
    check_invariants,
    determinize,
    legal_moves,
    new_game,
    observe,
    outcome,
    state_from_json,
    state_to_json,
)
from troedler.core.cards import ExtraGoodCard, RequestCard, RouteCard, SpecialFeedCard
from troedler.core.chance import (
    apply_chance,
    chance_outcomes,
    chance_probabilities,
    is_chance_node,
    new_explicit_game,
)
from troedler.core.errors import ConfigurationError
from troedler.core.goods import Good
from troedler.core.state import GameState


def _chance(state: GameState, rng: random.Random) -> GameState:
    outcomes = chance_outcomes(state)
    picked = rng.choices([o for o, _ in outcomes], weights=[w for _, w in outcomes])[0]
    return apply_chance(state, picked)


def _to_first_decision(state: GameState, rng: random.Random) -> GameState:
    while is_chance_node(state):
        state = _chance(state, rng)
    return state


@pytest.mark.parametrize("players", [2, 3, 4])
def test_explicit_games_play_to_the_end_with_every_state_sound(players: int) -> None:
    rng = random.Random(players)
    state = new_explicit_game(players)
    nodes = decisions = 0
    while not state.is_over and state.round <= 60:
        check_invariants(state)
        if is_chance_node(state):
            assert state.current_player is None
            assert legal_moves(state) == ()
            assert abs(sum(p for _, p in chance_probabilities(state)) - 1) < 1e-9
            state = _chance(state, rng)
            nodes += 1
        else:
            moves = legal_moves(state)
            state = apply_move(state, moves[rng.randrange(len(moves))])
            decisions += 1
    # 48 goods, the set-up pile and at least one round of piles.
    assert nodes > 48 + 18 + 4 * (players + 1)
    assert decisions > 0
    if state.is_over:
        outcome(state)


def test_S4_goods_are_dealt_village_by_village_weighted_by_the_bag() -> None:
    state = new_explicit_game(4)
    assert chance_outcomes(state) == tuple((good, 8) for good in Good)
    first = next(v for v in state.board.villages if v.number)
    for _ in range(first.number):
        state = apply_chance(state, Good.VASE)
    assert state.goods_in(first.name).counts[Good.VASE] == first.number
    assert dict(chance_outcomes(state))[Good.VASE] == 8 - first.number


def test_S5_the_set_up_pile_holds_its_feed_and_requests() -> None:
    rng = random.Random(5)
    state = new_explicit_game(3)
    while state.phase is Phase.SET_UP:
        state = _chance(state, rng)
    setup = Counter(type(card) for card in state.discard_pile.cards)
    assert setup == {SpecialFeedCard: 9, RequestCard: 9}
    assert state.shuffles == 4
    # Only the top of the set-up pile is seen (I2), even with perfect recall.
    seen = observe(state, 0, recall="perfect")
    assert seen.discard_pile.cards[:-1] == (UNKNOWN,) * 17


def test_chance_outcomes_are_refused_where_they_do_not_apply() -> None:
    state = new_explicit_game(2)
    with pytest.raises(IllegalMoveError, match="S4: .* cannot be dealt now"):
        apply_chance(state, 1)  # type: ignore[arg-type]
    with pytest.raises(IllegalMoveError, match="R1: .*chance moves"):
        apply_move(state, TakePile(0))
    rng = random.Random(2)
    while state.phase is Phase.SET_UP:
        state = _chance(state, rng)
    assert state.phase is Phase.FORM_PILES
    with pytest.raises(IllegalMoveError, match="R2: chance turns up a card, not Good"):
        apply_chance(state, Good.ANVIL)
    decided = _to_first_decision(state, rng)
    with pytest.raises(IllegalMoveError, match="R1: no chance node"):
        chance_outcomes(decided)
    with pytest.raises(IllegalMoveError, match="R1: no chance node"):
        apply_chance(decided, Good.ANVIL)


def test_explicit_states_round_trip_through_json_and_views() -> None:
    rng = random.Random(9)
    state = new_explicit_game(4)
    for _ in range(30):
        state = _chance(state, rng)
    assert state_from_json(state_to_json(state)) == state
    state = _to_first_decision(state, rng)
    assert state_from_json(state_to_json(state)) == state
    seen = observe(state, 1, recall="table")
    assert observe(determinize(seen, rng), 1, recall="table") == seen


def test_seeded_games_refuse_explicit_rules_and_the_other_way_round() -> None:
    with pytest.raises(ConfigurationError, match="explicit_chance"):
        new_game(2, seed=1, rules=Rules.for_players(2, explicit_chance=True))
    with pytest.raises(ConfigurationError, match="explicit_chance"):
        new_explicit_game(2, rules=Rules.for_players(2))


def _category(card: object) -> str:
    if isinstance(card, RouteCard):
        return card.kind.code
    if isinstance(card, ExtraGoodCard):
        return "extra"
    if isinstance(card, SpecialFeedCard):
        return "feed"
    return "request"


def _chi_square(counts: Counter[str], probabilities: dict[str, float], total: int) -> float:
    return sum((counts[k] - total * p) ** 2 / (total * p) for k, p in probabilities.items())


# 99.9% points of the chi-square distribution, by degrees of freedom.
_CHI_SQUARE_999 = {5: 20.52, 6: 22.46}


def test_R2_seeded_and_explicit_chance_give_the_same_first_round_piles() -> None:
    """The first card laid in round 1 over 3,000 seeds, by kind, against the
    probabilities of the explicit game's first forming node."""
    rng = random.Random(1)
    state = new_explicit_game(4)
    while state.phase is Phase.SET_UP:
        state = _chance(state, rng)
    expected: Counter[str] = Counter()
    for card, p in chance_probabilities(state):
        expected[_category(card)] += p
    total = 3000
    seen = Counter(
        _category(new_game(4, seed=seed).dealer_piles[0][0])  # type: ignore[index]
        for seed in range(total)
    )
    assert _chi_square(seen, dict(expected), total) < _CHI_SQUARE_999[6]
    # The same check on the explicit game's own draws, weighted as chance says.
    drawn: Counter[str] = Counter()
    for i in range(total):
        laid = _chance(state, random.Random(i)).dealer_piles[0]
        drawn[_category(laid[0])] += 1  # type: ignore[index]
    assert _chi_square(drawn, dict(expected), total) < _CHI_SQUARE_999[6]


def test_S4_seeded_and_explicit_chance_deal_the_same_goods() -> None:
    state = new_explicit_game(3)
    expected = {good.name: p for good, p in chance_probabilities(state)}
    first = next(v for v in state.board.villages if v.number)
    total = 2000
    kinds: Counter[str] = Counter()
    for seed in range(total):
        goods = new_game(3, seed=seed).goods_in(first.name)
        for good in Good:
            kinds[good.name] += goods.counts[good]
    assert _chi_square(kinds, expected, total * first.number) < _CHI_SQUARE_999[5]


def test_R2_determinized_explicit_states_list_each_kind_of_card_once() -> None:
    """With explicit chance the game-round pile's order plays no part: chance
    names each card turned up. A determinized state holds its pile in the
    order it was dealt, and its forming outcomes still name each kind of card
    once, with its count."""
    rng = random.Random(11)
    state = _to_first_decision(new_explicit_game(3), rng)
    for recall in ("perfect", "table"):
        dealt = determinize(observe(state, 0, recall=recall), rng)  # type: ignore[arg-type]
        check_invariants(dealt)
    # Played on to the next forming, its outcomes name each kind once.
    while not is_chance_node(dealt):
        moves = legal_moves(dealt)
        dealt = apply_move(dealt, moves[rng.randrange(len(moves))])
    kinds = [card for card, _ in chance_outcomes(dealt)]
    assert len(kinds) == len({card.sort_key for card in kinds})  # type: ignore[union-attr]
