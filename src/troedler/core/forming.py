"""Forming the dealer piles (R2, R3): the cards chance turns up, laid in layers.

At the start of every round the game waits in :attr:`Phase.FORM_PILES
<troedler.Phase.FORM_PILES>` while chance turns up cards from the face-down
game-round pile: one on each of the (players + 1) dealer piles, then the
next layer, up to four. When that pile runs out, the discard pile becomes
the new one (R3): at the start of forming, and while forming unless
``rules.reshuffle_mid_forming`` is off. Forming ends when the piles are full
or no card is left; then the first player takes a pile (R4).

These are the rules of forming; which cards chance turns up, and in what
order a pile turned face down lies, is :mod:`troedler.core.chance`'s.
"""

from __future__ import annotations

from typing import NoReturn, cast

from troedler.core import rulebook
from troedler.core.cards import Card, hand_counts, is_card, sort_hand
from troedler.core.errors import ConfigurationError, IllegalMoveError, quote
from troedler.core.pile import Pile
from troedler.core.rulebook import next_to_take, pile_count, round_cards
from troedler.core.state import NO_TURN, GameState, Phase, PlayerState, next_state

__all__ = [
    "end_forming",
    "forming_outcomes",
    "reshuffle_due",
    "reshuffled",
    "start_forming",
    "turn_up",
    "turn_up_top",
    "verify_turn_up",
]

_Piles = tuple[tuple[Card, ...] | None, ...]


def _fail(message: str) -> NoReturn:
    raise IllegalMoveError("R2", message)


def _check_forming(state: object) -> GameState:
    if not isinstance(state, GameState):
        raise ConfigurationError(f"expected a GameState, got {quote(state)}")
    if state.phase is not Phase.FORM_PILES:
        _fail(f"no dealer pile is being formed (now: {state.phase.value})")
    return state


def start_forming(
    state: GameState,
    *,
    players: tuple[PlayerState, ...] | None = None,
    discard_pile: Pile | None = None,
    round_number: int | None = None,
    dealer: int | None = None,
) -> GameState:
    """``state``, with what else changed, at the start of a round's forming:
    empty dealer piles, and chance to turn up the first card (R2)."""
    return next_state(
        state,
        current_player=None,
        turn=NO_TURN,
        phase=Phase.FORM_PILES,
        dealer_piles=((),) * pile_count(state.num_players),
        players=players,
        discard_pile=discard_pile,
        round_number=round_number,
        dealer=dealer,
    )


def forming_outcomes(state: GameState) -> tuple[tuple[Card, int], ...]:
    """The cards chance may turn up next, each once in hand order, with how
    many of each the game-round pile holds (R2)."""
    return hand_counts(sort_hand(_check_forming(state).game_round_pile))


def verify_turn_up(state: GameState, card: Card) -> Card:
    """The game-round pile's own ``card``, if chance may turn it up now (R2): a
    dealer pile is being formed and the game-round pile holds it; else
    :class:`IllegalMoveError`."""
    deck = _check_forming(state).game_round_pile
    return deck[_place(deck, card)]


def _place(deck: tuple[Card, ...], card: object) -> int:
    """Where ``card`` lies nearest the top of ``deck``; else :class:`IllegalMoveError`."""
    if not is_card(card):
        _fail(f"{quote(card)} is not a card")
    key = cast(Card, card).sort_key
    for at in range(len(deck) - 1, -1, -1):
        if deck[at].sort_key == key:
            return at
    _fail(f"the game-round pile holds no {card} card")


def turn_up(state: GameState, card: Card) -> GameState:
    """Chance turns up ``card`` from the game-round pile and lays it on the
    next dealer pile: one card on each pile, then the next layer (R2).
    Checked by :func:`verify_turn_up`. Forming is over once the piles are
    full, or the pile is used up with no reshuffle due (R3); then the first
    player takes a pile."""
    own = verify_turn_up(state, card)
    deck = state.game_round_pile
    at = _place(deck, own)
    return _turned_up(state, deck[:at] + deck[at + 1 :], (own,))


def turn_up_top(state: GameState, count: int) -> GameState:
    """Chance turns up the top ``count`` cards of the game-round pile, one
    after another, as :func:`turn_up` turns up each: the seed's answer,
    whose pile lies in the order its shuffle gave it (R2)."""
    deck = _check_forming(state).game_round_pile
    room = round_cards(state.num_players) - _laid(state.dealer_piles)
    if type(count) is not int or not 0 <= count <= min(room, len(deck)):
        _fail(f"{quote(count)} cards cannot be turned up: the piles take {room} more")
    return _turned_up(state, deck[: len(deck) - count], deck[len(deck) - count :][::-1])


def _turned_up(state: GameState, deck: tuple[Card, ...], cards: tuple[Card, ...]) -> GameState:
    """``state`` with ``cards``, turned up in this order, laid on the dealer
    piles, the game-round pile left as ``deck``."""
    piles = state.dealer_piles
    laid = _laid(piles)
    piles = _lay(piles, laid, cards)
    laid += len(cards)
    need = round_cards(state.num_players)
    if laid == need or not (deck or _reshuffle_due(state, laid, len(deck), need)):
        return next_state(
            state,
            current_player=_first_to_take(state),
            turn=state.turn,
            phase=Phase.TAKE_PILES,
            game_round_pile=deck,
            dealer_piles=piles,
        )
    return next_state(
        state, current_player=None, turn=state.turn, game_round_pile=deck, dealer_piles=piles
    )


def _laid(piles: _Piles) -> int:
    return sum(map(len, piles))  # type: ignore[arg-type] # forming: no pile is gone yet


def _lay(piles: _Piles, laid: int, cards: tuple[Card, ...]) -> _Piles:
    """``piles`` with ``cards``, turned up in this order after ``laid`` others,
    laid on them: one card on each pile, then the next layer (R2)."""
    n = len(piles)
    grown = [list(pile or ()) for pile in piles]
    for i, card in enumerate(cards, laid):
        grown[i % n].append(card)
    return tuple(map(tuple, grown))


def reshuffle_due(state: GameState) -> bool:
    """Whether the discard pile now becomes the game-round pile (R3), as
    :func:`troedler.core.rulebook.reshuffle_due` says of the piles as they lie."""
    return _reshuffle_due(
        state,
        _laid(state.dealer_piles),
        len(state.game_round_pile),
        round_cards(state.num_players),
    )


def _reshuffle_due(state: GameState, laid: int, left: int, need: int) -> bool:
    rules = state.rules
    return rulebook.reshuffle_due(
        laid, left, len(state.discard_pile), need, rules.reshuffle_mid_forming
    )


def reshuffled(state: GameState, pile: tuple[Card, ...]) -> GameState:
    """``state`` with the discard pile turned face down as the new game-round
    pile, lying as ``pile`` (R3): one more shuffle."""
    return next_state(
        state,
        current_player=None,
        turn=state.turn,
        game_round_pile=pile,
        discard_pile=Pile(),
        shuffles=state.shuffles + 1,
    )


def end_forming(state: GameState) -> GameState:
    """``state`` with forming over, where nothing is left to turn up and no
    reshuffle is due at the start of forming (R3)."""
    return next_state(
        state, current_player=_first_to_take(state), turn=state.turn, phase=Phase.TAKE_PILES
    )


def _first_to_take(state: GameState) -> int:
    """Who decides first once the piles lie: the dealer discarding (two players)
    or the dealer's left neighbour taking (R4)."""
    return cast(int, next_to_take(state.rules, state.dealer, 0))  # nobody has taken yet
