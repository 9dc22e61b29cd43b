"""Chance's nodes, and who answers them: the seed, or the caller.

Every event of chance is a chance node with its outcomes: each good dealt
onto a village at set-up (S4), each card laid on the set-up discard pile
(S5), each card turned up to form the dealer piles (R2), and the order of
each pile turned face down (S6, R3). While chance decides, a game waits in
the set-up or forming phase with no player to move.

There is one path through them. A seeded game (:func:`new_game`) answers
every node from its seed, at once, through the same functions:
:func:`settle` deals its goods in the order of the seed's first shuffle,
lays its set-up pile in the order of its second and third, and turns up the
top cards of each face-down pile, which lies in the order of the seed's
shuffles (:func:`face_down`). A game with explicit chance
(:func:`new_explicit_game`, ``rules.explicit_chance``) stops at every node
instead, for the caller to answer with :func:`apply_chance`, as
game-theory tools need: :func:`chance_outcomes` lists the outcomes with
their weights. A pile turned face down then lies in hand order, its order
left to the cards chance turns up one by one. Every player decision is the
same, so both kinds of game play alike.

>>> from troedler import legal_moves
>>> state = new_explicit_game(2)
>>> while is_chance_node(state):
...     outcome, _weight = chance_outcomes(state)[0]
...     state = apply_chance(state, outcome)
>>> state.phase.value, [str(move) for move in legal_moves(state)]
('take piles', ['discard 0', 'discard 1', 'discard 2'])
"""

from __future__ import annotations

from collections.abc import Sequence

from troedler.core.board import Board
from troedler.core.cards import (
    CARD_TYPES,
    EXTRA_GOOD,
    SPECIAL_FEED,
    Card,
    CardCatalogue,
    sort_hand,
)
from troedler.core.datafile import describe
from troedler.core.errors import ConfigurationError, IllegalMoveError
from troedler.core.forming import (
    end_forming,
    forming_outcomes,
    reshuffle_due,
    reshuffled,
    start_forming,
    turn_up,
    turn_up_top,
)
from troedler.core.goods import GOODS_PER_KIND, Good
from troedler.core.limits import check_seed
from troedler.core.rulebook import SETUP_SHUFFLES, Rules, round_cards, setup_piles
from troedler.core.setting_up import (
    deal,
    finish_setup,
    set_table,
    setup_complete,
    setup_outcomes,
    verify_deal,
)
from troedler.core.shuffle import shuffled
from troedler.core.state import GameState, Phase

__all__ = [
    "ChanceOutcome",
    "apply_chance",
    "chance_outcomes",
    "chance_probabilities",
    "face_down",
    "form_piles",
    "is_chance_node",
    "new_explicit_game",
    "new_game",
    "seed_answers",
    "settle",
]

ChanceOutcome = Good | Card
"""What chance turns up: a good at set-up, or a card."""


def seed_answers(rules: Rules) -> bool:
    """Whether a game of ``rules`` takes its chance from its seed; with
    ``rules.explicit_chance`` the caller answers each chance node."""
    return not rules.explicit_chance


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
    (or, with two players, the dealer's pile to discard). ``seed`` answers
    every chance node of the game. ``board`` and ``cards`` default to the
    reconstructed ones shipped with troedler; ``rules`` to the rulebook's
    for ``num_players``.

    >>> state = new_game(4, seed=1)
    >>> state.round, state.dealer, state.current_player, len(state.dealer_piles)
    (1, 0, 1, 5)
    """
    table = set_table(num_players, starting_dealer, board, rules, cards, seed=check_seed(seed))
    if not seed_answers(table.rules):
        raise ConfigurationError(
            "rules.explicit_chance: a seeded game takes its chance from the seed; "
            "start a game with explicit chance with new_explicit_game"
        )
    return settle(table)


def new_explicit_game(
    num_players: int,
    *,
    starting_dealer: int = 0,
    board: Board | None = None,
    rules: Rules | None = None,
    cards: CardCatalogue | None = None,
) -> GameState:
    """A new game whose chance is answered by the caller: a state at its first chance node.

    The set-up (S4-S6) and forming the dealer piles (R2, R3) then wait, good
    by good and card by card, for :func:`apply_chance`. ``rules`` default
    to the rulebook's with ``explicit_chance`` on.

    >>> state = new_explicit_game(3)
    >>> state.phase.value, len(chance_outcomes(state))
    ('set up', 6)
    """
    if rules is None:
        rules = Rules.for_players(num_players, explicit_chance=True)
    table = set_table(num_players, starting_dealer, board, rules, cards, seed=0)
    if seed_answers(table.rules):
        raise ConfigurationError("rules.explicit_chance must be on for a game with explicit chance")
    return table


def is_chance_node(state: GameState) -> bool:
    """Whether chance, not a player, decides next in ``state``."""
    return state.phase.is_chance


def chance_outcomes(state: GameState) -> tuple[tuple[ChanceOutcome, int], ...]:
    """Every outcome chance may give next, each once, with a whole-number weight.

    Goods come in their order (anvil first), cards in hand order. The
    probability of an outcome is its weight over the sum of the weights.
    :class:`IllegalMoveError` if ``state`` is not a chance node.
    """
    if state.phase is Phase.SET_UP:
        return setup_outcomes(state)
    if state.phase is Phase.FORM_PILES:
        return forming_outcomes(state)
    raise IllegalMoveError("R1", f"no chance node: the game is in the {state.phase.value} phase")


def chance_probabilities(state: GameState) -> tuple[tuple[ChanceOutcome, float], ...]:
    """:func:`chance_outcomes` with probabilities that sum to 1."""
    outcomes = chance_outcomes(state)
    total = sum(weight for _outcome, weight in outcomes)
    return tuple((outcome, weight / total) for outcome, weight in outcomes)


def apply_chance(state: GameState, outcome: ChanceOutcome) -> GameState:
    """The state after chance gave ``outcome``, one of :func:`chance_outcomes`.

    :class:`IllegalMoveError` (naming the rule) for anything else.
    """
    if state.phase is Phase.SET_UP:
        return _after_chance(deal(state, (verify_deal(state, outcome),)))
    if state.phase is Phase.FORM_PILES:
        if type(outcome) not in CARD_TYPES:
            raise IllegalMoveError("R2", f"chance turns up a card, not {describe(outcome)}")
        return _after_chance(turn_up(state, outcome))  # type: ignore[arg-type]
    raise IllegalMoveError("R1", f"no chance node: the game is in the {state.phase.value} phase")


def face_down(state: GameState, cards: Sequence[Card], number: int) -> tuple[Card, ...]:
    """How ``cards`` lie once turned face down as the game-round pile (S6, R3),
    top card last: in a seeded game, as the seed's shuffle ``number`` orders
    them; with explicit chance in hand order, since chance names each card
    as it is turned up."""
    if seed_answers(state.rules):
        return shuffled(cards, state.seed, number)
    return sort_hand(cards)


_GOODS, _REQUESTS, _SETUP_PILE, _SETUP_DECK = range(SETUP_SHUFFLES)
"""The set-up's shuffles of a seeded game, by number: the goods (S4), the
goods requests and the set-up pile (S5), and last the rest of the deck,
which lays the game-round pile (S6)."""


def _after_chance(state: GameState) -> GameState:
    """``state`` with what follows from chance's last answer done: a set-up
    that is complete turns the rest of the deck face down and starts forming
    (S6); while forming, a used-up game-round pile is replaced by the
    discard pile (R3), turned face down as chance orders it; and where
    nothing is left to turn up, forming ends."""
    if state.phase is Phase.SET_UP:
        if not setup_complete(state):
            return state
        deck = face_down(state, state.game_round_pile, _SETUP_DECK)
        state = start_forming(finish_setup(state, deck))
    if state.phase is Phase.FORM_PILES and not state.game_round_pile:
        if not reshuffle_due(state):
            return end_forming(state)
        state = reshuffled(state, face_down(state, state.discard_pile.cards, state.shuffles))
    return state


def settle(state: GameState) -> GameState:
    """``state`` with chance's nodes answered from its seed until a player
    decides, in a seeded game; a game with explicit chance is left at its
    node, for :func:`apply_chance`."""
    if not seed_answers(state.rules):
        return _after_chance(state)
    while state.phase.is_chance:
        state = _after_chance(_seed_answer(state))
    return state


def _seed_answer(state: GameState) -> GameState:
    """``state`` after the seed answered its chance node: the whole set-up at
    once (S4, S5), or the top cards of the game-round pile, as many as the
    dealer piles take or the pile holds (R2)."""
    if state.phase is Phase.SET_UP:
        rules, cards, seed = state.rules, state.cards, state.seed
        goods = shuffled([good for good in Good for _ in range(GOODS_PER_KIND)], seed, _GOODS)
        # The set-up pile: the requests the second shuffle picks, mixed with
        # the special feed by the third (S5).
        requests = shuffled(cards.requests, seed, _REQUESTS)
        setup_pile, listing = setup_piles(
            rules, cards, requests, cards.routes, SPECIAL_FEED, EXTRA_GOOD, _repeat, _join
        )
        state = deal(state, (*goods, *shuffled(setup_pile, seed, _SETUP_PILE)))
        # The fourth shuffle orders the cards left as seeded set-ups have
        # always listed them, not in hand order: in any other order every
        # old seed would deal another game, and old records would no
        # longer replay.
        return start_forming(finish_setup(state, face_down(state, listing, _SETUP_DECK)))
    deck = state.game_round_pile
    if not deck:  # a reshuffle or the end of forming, which need no answer
        return state
    room = round_cards(state.num_players) - sum(map(len, state.dealer_piles))  # type: ignore[arg-type]
    return turn_up_top(state, min(room, len(deck)))


def _repeat(card: Card, count: int) -> tuple[Card, ...]:
    return (card,) * count


def _join(*piles: tuple[Card, ...]) -> tuple[Card, ...]:
    return tuple(card for pile in piles for card in pile)


def form_piles(state: GameState) -> GameState:
    """Form the round's dealer piles of a state at the start of a round, with
    no piles yet, answering chance from the seed (R2, R3).

    The engine does this at the start of every round; it is public for
    tools that build positions.
    """
    if not isinstance(state, GameState):
        raise ConfigurationError(f"expected a GameState, got {describe(state)}")
    if state.phase is not Phase.TAKE_PILES or state.dealer_piles:
        raise IllegalMoveError(
            "R1",
            f"dealer piles are formed once, at the start of a round (now: {state.phase.value})",
        )
    return settle(start_forming(state))
