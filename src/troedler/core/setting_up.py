"""Setting up a game (S1-S6): the table, then the goods and the set-up pile.

:func:`set_table` seats the players with their carts and starting sets on a
table where nothing is dealt yet (S1-S3); the whole deck lies face down and
chance deals from it (:mod:`troedler.core.chance`): first a good onto each
place of the numbered villages, in board order (S4), then the face-up
set-up discard pile, bottom to top (S5). Then the rest of the deck is the
game-round pile (S6), and round 1's piles are formed.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import cast

import attrs

from troedler.core.board import Board, default_board
from troedler.core.cards import (
    CARD_TYPES,
    EXTRA_GOOD,
    SPECIAL_FEED,
    Card,
    CardCatalogue,
    RequestCard,
    default_cards,
    hand_counts,
    hand_index,
    sort_hand,
)
from troedler.core.datafile import describe
from troedler.core.errors import ConfigurationError, IllegalMoveError, quote
from troedler.core.goods import GOOD_KINDS, GOODS_PER_KIND, Good, Goods
from troedler.core.pile import Pile
from troedler.core.rulebook import (
    SETUP_SHUFFLES,
    Rules,
    setup_pile_left,
    setup_portion,
    setup_problem,
    starting_sets,
)
from troedler.core.state import NO_TURN, GameState, Phase, PlayerState

__all__ = [
    "deal",
    "finish_setup",
    "set_table",
    "setup_complete",
    "setup_outcomes",
    "verify_deal",
]


def set_table(
    num_players: int,
    starting_dealer: int,
    board: Board | None,
    rules: Rules | None,
    cards: CardCatalogue | None,
    *,
    seed: int,
) -> GameState:
    """The table of a new game before chance: the players seated with their
    carts on their start villages and their starting sets in hand (S1-S3),
    no goods dealt, no card laid, the whole deck face down (S4-S6); waiting
    at the set-up's first chance node.

    ``board`` and ``cards`` default to troedler's own, ``rules`` to the
    rulebook's for ``num_players``; each is checked.
    """
    rules = Rules.for_players(num_players) if rules is None else rules
    if not isinstance(rules, Rules) or rules.num_players != num_players:
        raise ConfigurationError(
            f"S1: the rules must be a Rules for {quote(num_players)} players, got {quote(rules)}"
        )
    if type(starting_dealer) is not int or not 0 <= starting_dealer < num_players:
        raise ConfigurationError(
            f"S3: the starting dealer must be a seat 0 to {num_players - 1}, "
            f"not {quote(starting_dealer)}"
        )
    board = default_board() if board is None else board
    cards = default_cards() if cards is None else cards
    if not isinstance(board, Board) or not isinstance(cards, CardCatalogue):
        raise ConfigurationError("board must be a Board and cards a CardCatalogue")
    problem = setup_problem(rules, cards)
    if problem is not None:
        raise ConfigurationError(problem)
    seats = starting_sets(board, cards, num_players)
    deck = (
        cards.routes
        + cards.requests
        + (SPECIAL_FEED,) * cards.special_feed
        + (EXTRA_GOOD,) * cards.extra_goods
    )
    return GameState(
        rules=rules,
        board=board,
        cards=cards,
        shuffles=0,
        round=1,
        dealer=starting_dealer,
        phase=Phase.SET_UP,
        current_player=None,
        # Face down and not yet in any order: chance orders it card by card.
        game_round_pile=sort_hand(deck),
        dealer_piles=(),
        discard_pile=Pile(),
        village_goods=(Goods(),) * len(board.villages),
        players=tuple(
            PlayerState(cart=seat.village, hand=sort_hand(seat.cards), goods=Goods())
            for seat in seats
        ),
        turn=NO_TURN,
        seed=seed,
    )


def _next_village(board: Board, village_goods: tuple[Goods, ...]) -> int | None:
    """The numbered village that gets the next good at set-up (S4), if any."""
    for i, (village, goods) in enumerate(zip(board.villages, village_goods, strict=True)):
        if len(goods) < village.number:
            return i
    return None


def setup_outcomes(state: GameState) -> tuple[tuple[Good | Card, int], ...]:
    """What chance may deal next at set-up, each with its weight.

    First the goods (S4): the next numbered village, in board order, gets a
    good of a kind still in the bag, weighted by how many of it are left.
    Then the set-up discard pile (S5), bottom to top: a special feed or a
    goods request, in proportion to those still to be laid, the request
    weighted by how many of it the deck holds.
    """
    if state.phase is not Phase.SET_UP:
        raise IllegalMoveError("S4", f"the game is set up already (now: {state.phase.value})")
    if _next_village(state.board, state.village_goods) is not None:
        left = [GOODS_PER_KIND] * GOOD_KINDS
        for goods in state.village_goods:
            for kind, n in enumerate(goods.counts):
                left[kind] -= n
        return tuple((good, left[good]) for good in Good if left[good] > 0)
    pool = [
        (card, n) for card, n in hand_counts(state.game_round_pile) if type(card) is RequestCard
    ]
    # A state being set up holds only the set-up pile's cards (its invariants).
    feed_left, requests_left = setup_pile_left(state.rules, state.discard_pile.cards) or (0, 0)
    pool_size = sum(n for _card, n in pool)
    outcomes: list[tuple[Good | Card, int]] = []
    if feed_left > 0:
        # Feed and requests in the proportion still to be laid; the common
        # factor keeps the weights whole numbers.
        outcomes.append((SPECIAL_FEED, feed_left * (pool_size if requests_left > 0 else 1)))
    if requests_left > 0:
        outcomes.extend((card, requests_left * n) for card, n in pool)
    return tuple(outcomes)


def verify_deal(state: GameState, outcome: object) -> Good | Card:
    """``outcome``, if chance may deal it now (S4, S5): one of
    :func:`setup_outcomes`; else :class:`IllegalMoveError`."""
    weights = dict(setup_outcomes(state))
    if not isinstance(outcome, (Good, *CARD_TYPES)) or outcome not in weights:
        raise IllegalMoveError("S4", f"{describe(outcome)} cannot be dealt now")
    return outcome


def deal(state: GameState, outcomes: Sequence[Good | Card]) -> GameState:
    """``state`` after chance dealt ``outcomes`` in order: each good to the
    next numbered village short of its number (S4), then each card onto the
    set-up discard pile (S5). Each is an outcome of :func:`setup_outcomes`
    (:func:`verify_deal` checks one)."""
    goods = [outcome for outcome in outcomes if type(outcome) is Good]
    laid = cast("tuple[Card, ...]", tuple(o for o in outcomes if type(o) is not Good))
    village_goods = state.village_goods
    if goods:
        dealt = list(village_goods)
        villages = state.board.villages
        at = 0
        for good in goods:
            while at < len(dealt) and len(dealt[at]) >= villages[at].number:
                at += 1
            if at == len(dealt):
                raise IllegalMoveError("S4", "every numbered village has its goods")
            dealt[at] = dealt[at].add(good)
        village_goods = tuple(dealt)
    deck, discard = state.game_round_pile, state.discard_pile
    if laid:
        deck = _without(deck, laid)
        discard = discard.add(laid)
    return attrs.evolve(
        state, village_goods=village_goods, game_round_pile=deck, discard_pile=discard
    )


def setup_complete(state: GameState) -> bool:
    """Whether chance has dealt every good (S4) and laid the set-up pile (S5)."""
    return _next_village(state.board, state.village_goods) is None and len(
        state.discard_pile
    ) >= setup_portion(state.rules)


def finish_setup(state: GameState, game_round_pile: tuple[Card, ...]) -> GameState:
    """``state`` once set up: the rest of the deck lies face down as
    ``game_round_pile`` (S6), after as many shuffles as a seeded set-up makes,
    so that views know the set-up pile still lies at the bottom of the
    discard pile (I2)."""
    if sort_hand(game_round_pile) != sort_hand(state.game_round_pile):
        raise ConfigurationError("S6: the game-round pile must hold the cards left")
    return attrs.evolve(state, game_round_pile=game_round_pile, shuffles=SETUP_SHUFFLES)


def _without(deck: tuple[Card, ...], cards: Sequence[Card]) -> tuple[Card, ...]:
    """The sorted ``deck`` with ``cards`` taken out, one each (S5)."""
    kept: list[tuple[Card, ...]] = []
    start = 0
    for card, count in hand_counts(sort_hand(cards)):
        i = hand_index(deck, card)
        if i < 0 or i + count > len(deck) or deck[i + count - 1].sort_key != card.sort_key:
            raise ConfigurationError(f"S5: the deck holds fewer than {count} {card} cards")
        kept.append(deck[start:i])
        start = i + count
    kept.append(deck[start:])
    return tuple(itertools.chain.from_iterable(kept))
