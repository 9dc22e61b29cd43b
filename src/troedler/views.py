"""What each player may know (I1-I3), and full states consistent with it.

:func:`observe` strips a state down to what one seat knows: with
``recall="perfect"`` everything that seat ever saw (I1), with
``recall="table"`` only what lies visible now (I3). Neither ever includes the
order of the face-down game-round pile or of a freshly shuffled pile (I2), or
the game's seed, which would give both away.

:func:`determinize` deals the unknown cards of an observation at random into
a full state, as an information-set search bot needs:
``observe(determinize(o, rng), o.seat, recall=o.recall) == o`` always.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Literal

import attrs

from troedler.board import Board
from troedler.cards import (
    Card,
    CardCatalogue,
    RequestCard,
    SpecialFeedCard,
    sort_hand,
)
from troedler.errors import ConfigurationError, TroedlerError
from troedler.goods import Goods
from troedler.legal import legal_moves
from troedler.moves import Move
from troedler.pile import Pile
from troedler.rules import Rules
from troedler.setup import SETUP_SHUFFLES
from troedler.state import GameState, Phase, PlayerState, Turn, cards_in_play

__all__ = ["Observation", "Recall", "determinize", "observe"]

Recall = Literal["perfect", "table"]


# repr=False: the generated repr lists every card and legal move.
@attrs.frozen(repr=False)
class Observation:
    """What one seat knows of a game at one moment.

    Stacks whose order matters (dealer piles, the discard pile) are given
    card by card, bottom to top, with None for a card the seat does not
    know; hands and value piles are given whole when known, else None, with
    their sizes always.
    """

    seat: int
    recall: Recall
    rules: Rules
    board: Board
    cards: CardCatalogue
    round: int
    dealer: int
    phase: Phase
    current_player: int | None
    shuffles: int
    village_goods: tuple[Goods, ...]
    carts: tuple[str, ...]
    goods: tuple[Goods, ...]
    """Each player's goods: they lie in front of the players for all to see."""
    played: tuple[Card, ...]
    """Cards played this turn: they lie on the table until it ends."""
    delivered_to: tuple[str, ...]
    discards_due: int
    """Cards the current player must still discard down to the hand limit (T7):
    all see the turn end and the cards go onto the discard pile face up."""
    last_discard: Card | None
    """The card discarded last while discards are due; the next one comes at
    or after it in hand order."""
    hands: tuple[tuple[Card, ...] | None, ...]
    hand_sizes: tuple[int, ...]
    value_piles: tuple[tuple[Card, ...] | None, ...]
    value_pile_sizes: tuple[int, ...]
    dealer_piles: tuple[tuple[Card | None, ...] | None, ...]
    """None for a pile that is gone."""
    discard_pile: tuple[Card | None, ...]
    game_round_pile_size: int
    legal_moves: tuple[Move, ...]
    """The seat's legal moves when the decision is theirs; else empty."""

    @property
    def is_over(self) -> bool:
        """Whether the game has ended."""
        return self.phase is Phase.GAME_OVER

    def __repr__(self) -> str:
        to_move = "" if self.current_player is None else f", seat {self.current_player} to move"
        return (
            f"<Observation of seat {self.seat} ({self.recall} recall): {len(self.carts)} players, "
            f"round {self.round}, {self.phase.value}{to_move}>"
        )

    def _repr_svg_(self) -> str:
        """What the seat knows as a picture, for Jupyter: nothing more is drawn."""
        # Imported here, not at the top: the core never imports the pictures
        # package, which sits on top of it (python-chess does the same).
        from troedler.svg import board  # noqa: PLC0415

        return board(self, size=900)


def _setup_portion(state: GameState) -> int:
    """How many cards at the bottom of the discard pile are still the set-up's."""
    if state.phase is Phase.SET_UP:  # chance is still laying it
        return len(state.discard_pile)
    portion = state.rules.setup_requests + state.rules.setup_feed
    # A state built by hand may lack the set-up pile: then nothing is hidden.
    if state.shuffles != SETUP_SHUFFLES or len(state.discard_pile) < portion:
        return 0
    return portion


def observe(state: GameState, seat: int, *, recall: Recall = "perfect") -> Observation:
    """What ``seat`` knows of ``state``, with perfect recall or from the table alone.

    >>> from troedler import new_game
    >>> seen = observe(new_game(3, seed=1), 0, recall="table")
    >>> seen.hands[0] is not None, seen.hands[1], seen.hand_sizes
    (True, None, (3, 3, 3))
    """
    if type(seat) is not int or not 0 <= seat < state.num_players:
        raise ConfigurationError(f"seat must be 0 to {state.num_players - 1}, not {seat!r}")
    if recall not in ("perfect", "table"):
        raise ConfigurationError(f"recall is 'perfect' or 'table', not {recall!r}")
    perfect = recall == "perfect"
    pile = state.discard_pile
    if perfect:
        piles: tuple[tuple[Card | None, ...] | None, ...] = state.dealer_piles
        discard: tuple[Card | None, ...] = pile.cards
        hidden = _setup_portion(state)
        if hidden:
            # The set-up pile was seen only from above (I2): all but its top.
            discard = (None,) * (hidden - 1) + discard[hidden - 1 :]
    else:
        piles = tuple(
            None if dealt is None else (None,) * (len(dealt) - 1) + dealt[-1:]
            for dealt in state.dealer_piles
        )
        # Only the top lies visible: the pile need not be walked.
        discard = (None,) * (len(pile) - 1) + (pile.top,) if pile else ()
    carts, goods, hands, hand_sizes, value_piles, value_pile_sizes = [], [], [], [], [], []
    for other, player in enumerate(state.players):
        known = perfect or other == seat
        carts.append(player.cart)
        goods.append(player.goods)
        hands.append(player.hand if known else None)
        hand_sizes.append(len(player.hand))
        value_piles.append(player.value_pile if known else None)
        value_pile_sizes.append(len(player.value_pile))
    turn = state.turn
    return Observation(
        seat=seat,
        recall=recall,
        rules=state.rules,
        board=state.board,
        cards=state.cards,
        round=state.round,
        dealer=state.dealer,
        phase=state.phase,
        current_player=state.current_player,
        shuffles=state.shuffles,
        village_goods=state.village_goods,
        carts=tuple(carts),
        goods=tuple(goods),
        played=turn.played,
        delivered_to=turn.delivered_to,
        discards_due=turn.discards_due,
        last_discard=turn.last_discard,
        hands=tuple(hands),
        hand_sizes=tuple(hand_sizes),
        value_piles=tuple(value_piles),
        value_pile_sizes=tuple(value_pile_sizes),
        dealer_piles=piles,
        discard_pile=discard,
        game_round_pile_size=len(state.game_round_pile),
        legal_moves=legal_moves(state) if state.current_player == seat else (),
    )


def determinize(observation: Observation, rng: random.Random) -> GameState:
    """A full game state consistent with ``observation``, the unknown cards dealt at random.

    Every card the seat does not know is placed uniformly at random among the
    places consistent with what it knows: value piles hold only special feed
    and goods requests, and with perfect recall the hidden part of the
    set-up discard pile holds exactly its remaining requests and feed. The
    seed of the state is drawn from ``rng`` too, since the real one is not
    known. :class:`TroedlerError` if the observation is not consistent.
    """
    o = observation
    n = o.rules.num_players
    unknown = cards_in_play(o.cards, o.board, n)
    known: Counter[Card] = Counter(o.played)
    for hand in o.hands:
        known.update(hand or ())
    for pile in o.value_piles:
        known.update(pile or ())
    for dealer_pile in o.dealer_piles:
        known.update(card for card in dealer_pile or () if card is not None)
    known.update(card for card in o.discard_pile if card is not None)
    if known - unknown:
        raise TroedlerError("the observation holds cards the game does not have")
    unknown -= known
    pool = list(unknown.elements())
    rng.shuffle(pool)

    def take(eligible: type | tuple[type, ...], count: int) -> list[Card]:
        chosen = [card for card in pool if isinstance(card, eligible)][:count]
        if len(chosen) < count:
            raise TroedlerError("the observation leaves too few cards for its stacks")
        for card in chosen:
            pool.remove(card)
        return chosen

    discard = list(o.discard_pile)
    hidden_setup = [i for i, card in enumerate(discard) if card is None]
    if o.recall == "perfect" and hidden_setup:
        # Known from the rules: the set-up pile held so many feed and requests.
        hidden_count = o.rules.setup_requests + o.rules.setup_feed - 1
        # They must be exactly the bottom cards, under a known top card.
        bottom = len(hidden_setup) == hidden_count and hidden_setup[-1] == hidden_count - 1
        if not bottom or len(discard) <= hidden_count:
            raise TroedlerError("the observation hides other cards than the set-up pile's")
        top = discard[hidden_count]
        feed = o.rules.setup_feed - (1 if isinstance(top, SpecialFeedCard) else 0)
        requests = o.rules.setup_requests - (1 if isinstance(top, RequestCard) else 0)
        fill = take(SpecialFeedCard, feed) + take(RequestCard, requests)
        rng.shuffle(fill)
        for i, card in zip(hidden_setup, fill, strict=True):
            discard[i] = card
    value_piles = []
    for pile, size in zip(o.value_piles, o.value_pile_sizes, strict=True):
        value_piles.append(
            pile if pile is not None else tuple(take((SpecialFeedCard, RequestCard), size))
        )
    # Everything left is dealt, in random order, into the remaining places.
    hands = []
    for hand, size in zip(o.hands, o.hand_sizes, strict=True):
        hands.append(hand if hand is not None else tuple(_deal(pool, size)))
    dealer_piles: list[tuple[Card, ...] | None] = []
    for dealer_pile in o.dealer_piles:
        if dealer_pile is None:
            dealer_piles.append(None)
        else:
            dealer_piles.append(
                tuple(card if card is not None else _deal(pool, 1)[0] for card in dealer_pile)
            )
    discard_cards = tuple(card if card is not None else _deal(pool, 1)[0] for card in discard)
    game_round_pile = tuple(_deal(pool, o.game_round_pile_size))
    if o.rules.explicit_chance:
        # Explicit chance orders the pile only card by card, as it turns
        # them up: until then it is held in hand order (R2).
        game_round_pile = sort_hand(game_round_pile)
    if pool:
        raise TroedlerError("the observation leaves cards with no place")
    return GameState(
        rules=o.rules,
        board=o.board,
        cards=o.cards,
        seed=rng.getrandbits(64),
        shuffles=o.shuffles,
        round=o.round,
        dealer=o.dealer,
        phase=o.phase,
        current_player=o.current_player,
        game_round_pile=game_round_pile,
        dealer_piles=tuple(dealer_piles),
        discard_pile=Pile.of(discard_cards),
        village_goods=o.village_goods,
        players=tuple(
            PlayerState(cart, sort_hand(hand), goods, sort_hand(value_pile))
            for cart, hand, goods, value_pile in zip(
                o.carts, hands, o.goods, value_piles, strict=True
            )
        ),
        turn=Turn(o.played, o.delivered_to, o.discards_due, o.last_discard),
    )


def _deal(pool: list[Card], count: int) -> list[Card]:
    """The next ``count`` cards of the shuffled ``pool``, taken out of it."""
    if len(pool) < count:
        raise TroedlerError("the observation has more places than unknown cards")
    dealt = pool[-count:] if count else []
    del pool[len(pool) - count :]
    return dealt
