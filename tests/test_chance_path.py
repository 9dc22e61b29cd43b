"""One chance path: a seeded game answers the explicit-chance nodes from its seed (R2, R3, S4)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import attrs
import pytest

from troedler import GameRecord, Phase, Rules, form_piles, new_game, replay, state_from_json
from troedler.core.cards import sort_hand
from troedler.core.chance import apply_chance, chance_outcomes, is_chance_node, new_explicit_game
from troedler.core.goods import GOODS_PER_KIND, Good
from troedler.core.shuffle import shuffled
from troedler.core.state import GameState


def _before_forming(players: int, seed: int) -> GameState:
    """An explicit-chance game at the start of round 1, before any card is turned up."""
    rng = random.Random(seed)
    state = new_explicit_game(players)
    while state.phase is Phase.SET_UP:
        outcomes = chance_outcomes(state)
        state = apply_chance(
            state, rng.choices([o for o, _ in outcomes], [w for _, w in outcomes])[0]
        )
    assert state.phase is Phase.FORM_PILES and not any(state.dealer_piles)
    return state


@pytest.mark.parametrize(("players", "seed"), [(2, 1), (3, 2), (4, 3)])
def test_R2_seeded_forming_is_the_explicit_nodes_answered_with_the_top_cards(
    players: int, seed: int
) -> None:
    explicit = _before_forming(players, seed)
    # An order for the game-round pile, top card last, as a seed would give it.
    order = shuffled(explicit.game_round_pile, seed, 99)
    state = explicit
    for card in reversed(order):
        if not is_chance_node(state):
            break
        state = apply_chance(state, card)
    seeded_rules = attrs.evolve(explicit.rules, explicit_chance=False)
    before = attrs.evolve(
        explicit,
        rules=seeded_rules,
        phase=Phase.TAKE_PILES,
        dealer_piles=(),
        game_round_pile=order,
    )
    formed = form_piles(before)
    assert formed.dealer_piles == state.dealer_piles
    assert formed.current_player == state.current_player
    assert sorted(map(str, formed.game_round_pile)) == sorted(map(str, state.game_round_pile))


@pytest.mark.parametrize("mid", [True, False])
def test_R3_seeded_forming_reshuffles_where_the_explicit_nodes_do(mid: bool) -> None:
    """A game-round pile too short for the piles: the rest comes from the
    discard pile shuffled by the seed's next shuffle, or piles stay short."""
    base = new_game(3, seed=5, rules=Rules.for_players(3, reshuffle_mid_forming=mid))
    cards = list(base.game_round_pile)
    for pile in base.dealer_piles:
        cards.extend(pile or ())
    short, rest = tuple(cards[:5]), cards[5:]
    start = attrs.evolve(
        base,
        dealer_piles=(),
        game_round_pile=short,
        discard_pile=base.discard_pile.add(rest),
    )
    formed = form_piles(start)
    laid = [card for layer in range(4) for pile in formed.dealer_piles if len(pile or ()) > layer
            for card in [pile[layer]]]  # fmt: skip
    assert laid[:5] == list(reversed(short))
    if mid:
        again = shuffled(start.discard_pile.cards, 5, start.shuffles)
        assert laid[5:] == list(reversed(again))[: 16 - 5]
        assert formed.shuffles == start.shuffles + 1
        assert len(formed.discard_pile) == 0
    else:
        assert len(laid) == 5 and formed.shuffles == start.shuffles
        assert formed.discard_pile == start.discard_pile


def test_S4_seeded_goods_are_the_explicit_deal_answered_by_the_bag() -> None:
    state = new_explicit_game(4)
    bag = shuffled([good for good in Good for _ in range(GOODS_PER_KIND)], 7, 0)
    for good in bag:
        state = apply_chance(state, good)
    assert state.village_goods == new_game(4, seed=7).village_goods


VERSION_2 = sorted(
    path
    for path in (Path(__file__).parent / "data" / "v2").glob("*.json")
    if not path.name.endswith(".final-state.json")
)
"""Version-2 records written before seeded games went through the chance
nodes: long games among them reshuffle at the start of rounds and, where
the rules allow, while piles are formed."""


@pytest.mark.parametrize("path", VERSION_2, ids=lambda path: path.name)
def test_R3_records_written_before_keep_their_results_and_positions(path: Path) -> None:
    assert json.loads(path.read_text())["version"] == 2
    record = GameRecord.from_json(path.read_text())  # checks the stored result
    assert record.result is not None and record.movers is not None
    final = replay(record)[-1]
    assert final == state_from_json(path.with_suffix(".final-state.json").read_text())


def test_the_version_2_records_are_there_and_reshuffle() -> None:
    assert len(VERSION_2) >= 4
    shuffles = [
        json.loads(p.with_suffix(".final-state.json").read_text())["shuffles"] for p in VERSION_2
    ]
    assert max(shuffles) > 10


@pytest.mark.parametrize(("players", "seed"), [(2, 4), (3, 5), (4, 6), (4, 7)])
def test_S5_S6_a_seeded_set_up_is_the_explicit_nodes_answered_from_the_seed(
    players: int, seed: int
) -> None:
    """Every answer the seed gives is an outcome the explicit node offers, and
    the explicit game answered so, card by card, is the seeded game."""
    seeded = new_game(players, seed=seed)
    # What the seed dealt, read off the seeded game: each village's goods (in
    # any order within the village), the set-up pile bottom to top, and the
    # cards laid on the dealer piles, layer by layer.
    goods = [good for village in seeded.village_goods for good in village]
    setup_pile = seeded.discard_pile.cards
    turned_up = [
        pile[layer]
        for layer in range(4)
        for pile in seeded.dealer_piles
        if pile is not None and len(pile) > layer
    ]
    state = new_explicit_game(players)
    for outcome in (*goods, *setup_pile):
        assert outcome in dict(chance_outcomes(state))
        state = apply_chance(state, outcome)
    assert state.phase is Phase.FORM_PILES
    # The seed ordered exactly the cards the set-up left face down (S6).
    assert state.game_round_pile == sort_hand((*seeded.game_round_pile, *turned_up))
    for card in turned_up:
        assert card in dict(chance_outcomes(state))
        state = apply_chance(state, card)
    assert state.village_goods == seeded.village_goods
    assert state.discard_pile == seeded.discard_pile
    assert state.dealer_piles == seeded.dealer_piles
    assert state.current_player == seeded.current_player
    assert state.shuffles == seeded.shuffles
    assert sort_hand(state.game_round_pile) == sort_hand(seeded.game_round_pile)
