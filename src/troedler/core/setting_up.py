"""Setting up a game (S1-S6) and forming the first round's piles."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import cast

import attrs

from troedler.core.actions import form_piles, start_forming
from troedler.core.board import Board, default_board
from troedler.core.cards import (
    CARD_TYPES,
    EXTRA_GOOD,
    SPECIAL_FEED,
    Card,
    CardCatalogue,
    RequestCard,
    card_sort_key,
    default_cards,
    hand_counts,
    hand_index,
    sort_hand,
)
from troedler.core.datafile import describe
from troedler.core.errors import ConfigurationError, IllegalMoveError, quote
from troedler.core.goods import GOODS_PER_KIND, Good, Goods
from troedler.core.limits import check_seed
from troedler.core.pile import Pile
from troedler.core.rulebook import SETUP_SHUFFLES, Rules, setup_portion
from troedler.core.shuffle import shuffled
from troedler.core.state import NO_TURN, GameState, Phase, PlayerState

__all__ = ["SETUP_SHUFFLES", "deal", "new_explicit_game", "new_game", "setup_outcomes"]


def new_game(
    num_players: int,
    *,
    seed: int,
    starting_dealer: int = 0,
    board: Board | None = None,
    rules: Rules | None = None,
    cards: CardCatalogue | None = None,
) -> GameState:
    """A new game, set up (S1-S6) with round 1's dealer piles formed.

    The returned state waits for the first decision: the first pile to take
    (or, with two players, the dealer's pile to discard). ``seed`` fixes
    every shuffle of the game. ``board`` and ``cards`` default to the
    reconstructed ones shipped with troedler; ``rules`` to the rulebook's
    for ``num_players``.

    >>> state = new_game(4, seed=1)
    >>> state.round, state.dealer, state.current_player, len(state.dealer_piles)
    (1, 0, 1, 5)
    """
    rules, board, cards, players = _table(num_players, starting_dealer, board, rules, cards)
    if rules.explicit_chance:
        raise ConfigurationError(
            "rules.explicit_chance: a seeded game takes its chance from the seed; "
            "start a game with explicit chance with new_explicit_game"
        )
    check_seed(seed)
    # The explicit-chance set-up, its nodes answered from the seed's stream.
    goods_bag, setup_pile, game_round_pile = _seed_answers(rules, cards, seed)
    state = _unset(rules, board, cards, players, starting_dealer, seed)
    return _dealt(state, goods_bag, setup_pile, game_round_pile)


def _seed_answers(
    rules: Rules, cards: CardCatalogue, seed: int
) -> tuple[tuple[Good, ...], tuple[Card, ...], tuple[Card, ...]]:
    """The seed's answers to the set-up's chance nodes, worked out up front.

    The goods in the order they are dealt (S4: the seed's first shuffle of
    the bag); the set-up discard pile, bottom to top (S5: the seed's second
    shuffle picks the requests, its third mixes them with the special feed);
    and the game-round pile, top card last (S6: the fourth shuffle of the
    cards left). These are the four set-up shuffles every seeded game has
    made, in this order, since its first release.

    The fourth shuffle mixes the cards left as seeded set-ups have always
    listed them (the routes, the requests not chosen in the second shuffle's
    order, the special feed, the extra goods), not in hand order: in any
    other order every old seed would deal another game, and old records
    would no longer replay.
    """
    goods_bag = shuffled([good for good in Good for _ in range(GOODS_PER_KIND)], seed, 0)
    requests = shuffled(cards.requests, seed, 1)
    chosen, rest = requests[: rules.setup_requests], requests[rules.setup_requests :]
    setup_pile = shuffled(chosen + (SPECIAL_FEED,) * rules.setup_feed, seed, 2)
    feed_left = cards.special_feed - rules.setup_feed
    deck: tuple[Card, ...] = (
        cards.routes + rest + (SPECIAL_FEED,) * feed_left + (EXTRA_GOOD,) * cards.extra_goods
    )
    return goods_bag, setup_pile, shuffled(deck, seed, 3)


def _table(
    num_players: int,
    starting_dealer: int,
    board: Board | None,
    rules: Rules | None,
    cards: CardCatalogue | None,
) -> tuple[Rules, Board, CardCatalogue, tuple[PlayerState, ...]]:
    """The checked rules, board and cards of a new game, and its players with
    their carts and starting cards (S1-S3)."""
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
    if rules.setup_requests > len(cards.requests) or rules.setup_feed > cards.special_feed:
        raise ConfigurationError(
            f"S5: the set-up takes {rules.setup_requests} goods requests and "
            f"{rules.setup_feed} special feed; the cards have {len(cards.requests)} and "
            f"{cards.special_feed}"
        )
    starts = [board.start_village(seat, num_players) for seat in range(num_players)]
    for village in starts:
        _check_starting_set(board, cards, village)
    players = tuple(
        PlayerState(
            cart=village,
            hand=tuple(sorted(cards.starting_set(village).cards, key=card_sort_key)),
            goods=Goods(),
        )
        for village in starts
    )
    return rules, board, cards, players


# --- the set-up's chance nodes: good by good, card by card (S4-S6) -------


def new_explicit_game(
    num_players: int,
    *,
    starting_dealer: int = 0,
    board: Board | None = None,
    rules: Rules | None = None,
    cards: CardCatalogue | None = None,
) -> GameState:
    """A new game whose chance is dealt by the caller: a state at its first chance node.

    The set-up (S4-S6) and forming the dealer piles (R2, R3) then wait, good
    by good and card by card, for :func:`troedler.core.chance.apply_chance`.
    ``rules`` default to the rulebook's with ``explicit_chance`` on.

    >>> state = new_explicit_game(3)
    >>> state.phase.value, len(setup_outcomes(state))
    ('set up', 6)
    """
    if rules is None:
        rules = Rules.for_players(num_players, explicit_chance=True)
    rules, board, cards, players = _table(num_players, starting_dealer, board, rules, cards)
    if not rules.explicit_chance:
        raise ConfigurationError("rules.explicit_chance must be on for a game with explicit chance")
    return _unset(rules, board, cards, players, starting_dealer, seed=0)


def _unset(
    rules: Rules,
    board: Board,
    cards: CardCatalogue,
    players: tuple[PlayerState, ...],
    starting_dealer: int,
    seed: int,
) -> GameState:
    """The table before chance: no goods dealt, no card laid, the whole deck
    face down (S4-S6), waiting at the first chance node of the set-up."""
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
        seed=seed,
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
        players=players,
        turn=NO_TURN,
    )


def _next_village(board: Board, village_goods: tuple[Goods, ...]) -> int | None:
    """The numbered village that gets the next good at set-up (S4), if any."""
    for i, (village, goods) in enumerate(zip(board.villages, village_goods, strict=True)):
        if len(goods) < village.number:
            return i
    return None


def _deal_goods(
    board: Board, village_goods: tuple[Goods, ...], goods: Sequence[Good]
) -> tuple[Goods, ...]:
    """``village_goods`` after ``goods`` are dealt, one by one, each onto the
    next numbered village in board order that has fewer than its number (S4).

    The only code that deals goods: an explicit-chance set-up deals one good
    a chance node, a seeded one the whole shuffled bag at once.
    """
    dealt = list(village_goods)
    village = 0
    for good in goods:
        while village < len(dealt) and len(dealt[village]) >= board.villages[village].number:
            village += 1
        if village == len(dealt):
            raise ConfigurationError("S4: every numbered village has its goods")
        dealt[village] = dealt[village].add(good)
    return tuple(dealt)


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
        left = [GOODS_PER_KIND] * len(Good)
        for goods in state.village_goods:
            for kind, n in enumerate(goods.counts):
                left[kind] -= n
        return tuple((good, left[good]) for good in Good if left[good] > 0)
    pool = [
        (card, n) for card, n in hand_counts(state.game_round_pile) if type(card) is RequestCard
    ]
    laid = state.discard_pile.cards
    feed_left = state.rules.setup_feed - laid.count(SPECIAL_FEED)
    requests_left = min(state.rules.setup_requests, len(state.cards.requests)) - sum(
        1 for card in laid if type(card) is RequestCard
    )
    pool_size = sum(n for _card, n in pool)
    outcomes: list[tuple[Good | Card, int]] = []
    if feed_left > 0:
        # Feed and requests in the proportion still to be laid; the common
        # factor keeps the weights whole numbers.
        outcomes.append((SPECIAL_FEED, feed_left * (pool_size if requests_left > 0 else 1)))
    if requests_left > 0:
        outcomes.extend((card, requests_left * n) for card, n in pool)
    return tuple(outcomes)


def deal(state: GameState, outcome: Good | Card) -> GameState:
    """``state`` after chance dealt ``outcome`` at set-up: a good to the next
    village (S4), or a card onto the set-up discard pile (S5). Once the set-up
    is complete, the first round's piles are formed (S6, R2)."""
    weights = dict(setup_outcomes(state))
    if not isinstance(outcome, (Good, *CARD_TYPES)) or outcome not in weights:
        raise IllegalMoveError("S4", f"{describe(outcome)} cannot be dealt now")
    if _next_village(state.board, state.village_goods) is not None:
        return _dealt(state, (cast(Good, outcome),), (), None)
    return _dealt(state, (), (cast(Card, outcome),), None)


def _dealt(
    state: GameState,
    goods: Sequence[Good],
    setup_pile: Sequence[Card],
    game_round_pile: tuple[Card, ...] | None,
) -> GameState:
    """``state`` after chance dealt ``goods`` to the next villages (S4) and
    laid ``setup_pile`` on the set-up discard pile (S5), in that order.

    The only code that sets up: an explicit-chance game deals one good or
    card a chance node, a seeded one all the seed's answers at once. Once
    the set-up is complete, the rest of the deck is the game-round pile
    (S6): in hand order with explicit chance, whose order chance decides
    card by card while the piles are formed; in ``game_round_pile``'s
    order, the seed's, in a seeded game. Then round 1's piles are formed.
    """
    village_goods = state.village_goods
    if goods:
        village_goods = _deal_goods(state.board, village_goods, goods)
    deck, discard = state.game_round_pile, state.discard_pile
    if setup_pile:
        deck = _without(deck, setup_pile)
        discard = discard.add(setup_pile)
    if _next_village(state.board, village_goods) is not None or len(discard) < setup_portion(
        state.rules
    ):
        return attrs.evolve(
            state, village_goods=village_goods, game_round_pile=deck, discard_pile=discard
        )
    if state.rules.explicit_chance:
        game_round_pile = deck
    elif game_round_pile is None or len(game_round_pile) != len(deck):
        raise ConfigurationError("S6: the game-round pile must hold the cards left")
    state = attrs.evolve(
        state,
        village_goods=village_goods,
        game_round_pile=game_round_pile,
        discard_pile=discard,
        phase=Phase.TAKE_PILES,
        # As many shuffles as a seeded set-up makes, so that views know the
        # set-up pile still lies at the bottom of the discard pile (I2).
        shuffles=SETUP_SHUFFLES,
    )
    return start_forming(state) if state.rules.explicit_chance else form_piles(state)


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


def _check_starting_set(board: Board, cards: CardCatalogue, village: str) -> None:
    try:
        starting_set = cards.starting_set(village)
    except KeyError:
        raise ConfigurationError(
            f"C3: the cards have no starting set for start village {village}"
        ) from None
    if starting_set.route not in board.route_kinds(village):
        raise ConfigurationError(
            f"C3: the starting set of {village} has a {starting_set.route.code} card, "
            f"but no {starting_set.route.code} leaves {village}"
        )
