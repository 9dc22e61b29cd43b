"""Reading moves from their notation; :mod:`troedler.core.moves` writes it.

``parse_move(str(move), state) == move`` for every move, and
``str(parse_move(text, state)) == text`` for every move written as
:func:`str` writes it. Words and letters may be typed in any case.
"""

from __future__ import annotations

from troedler.core.board import RouteKind
from troedler.core.cards import RequestCard, parse_card
from troedler.core.errors import NotationError, quote
from troedler.core.goods import Good, Goods
from troedler.core.invariants import cards_in_play
from troedler.core.moves import (
    DiscardCard,
    DiscardPile,
    EndTurn,
    Move,
    PlayExtraGood,
    PlayFeedExtraGood,
    PlayFeedMove,
    PlayRequest,
    PlayRoute,
    TakePile,
)
from troedler.core.rulebook import MAX_PLAYERS, pile_count
from troedler.core.state import GameState

__all__ = ["parse_move"]

MAX_TEXT = 200

_PILE_DIGITS = len(str(pile_count(MAX_PLAYERS) - 1))
"""Digits of the highest dealer pile number."""

_EXAMPLES = (
    "take 2, discard 1, bridge Knockando +V, feed Knockando, extra +A, feed +A, "
    "deliver AAA:6, deliver AAA:6 with AAP, end, discard ferry"
)


def parse_move(text: str, state: GameState) -> Move:
    """The move written as ``text``; :class:`NotationError` if it is not one.

    ``state`` supplies the board, so village names may be typed in any case.
    Whether the move is legal is :func:`troedler.is_legal`'s question.

    >>> from troedler import new_game
    >>> parse_move("bridge knockando +v", new_game(4, seed=1))
    PlayRoute(kind=<RouteKind.BRIDGE: 1>, to='Knockando', take=<Good.VASE: 5>)
    """
    if not isinstance(text, str):
        raise NotationError(f"expected move text, got {type(text).__name__}")
    if len(text) > MAX_TEXT:
        raise NotationError(f"expected a move of at most {MAX_TEXT} characters, got {len(text)}")
    words = text.split()
    if not words:
        raise NotationError(f"expected a move such as {_EXAMPLES}; got nothing")
    head, rest = words[0].lower(), words[1:]
    if head == "discard" and len(rest) == 1 and not rest[0].isdecimal():
        return DiscardCard(parse_card(rest[0]))
    if head in ("take", "discard"):
        if len(rest) != 1 or not rest[0].isdecimal() or len(rest[0]) > _PILE_DIGITS:
            what = "a pile number" if head == "take" else "a pile number or a card"
            raise NotationError(f"expected '{head} N' with {what}, got {quote(text)}")
        return TakePile(int(rest[0])) if head == "take" else DiscardPile(int(rest[0]))
    if head == "end":
        if rest:
            raise NotationError(
                f"expected 'end' alone, got {quote(text)}; cards over the hand limit are "
                "discarded one at a time afterwards, as 'discard CARD'"
            )
        return EndTurn()
    if head == "deliver":
        return _parse_delivery(text, rest, state)
    if head == "extra":
        return PlayExtraGood(_parse_take(text, rest))
    if head == "feed":
        if len(rest) == 1 and rest[0].startswith("+"):
            return PlayFeedExtraGood(_parse_take(text, rest))
        to, take = _parse_destination(text, rest, state)
        return PlayFeedMove(to, take)
    try:
        kind = RouteKind.parse(head)
    except NotationError:
        raise NotationError(f"expected a move such as {_EXAMPLES}; got {quote(text)}") from None
    to, take = _parse_destination(text, rest, state)
    return PlayRoute(kind, to, take)


def _parse_take(text: str, words: list[str]) -> Good:
    if len(words) != 1 or not words[0].startswith("+") or words[0] == "+":
        raise NotationError(f"expected one good to take, like +V, in {quote(text)}")
    return Good.parse(words[0][1:])


def _parse_destination(text: str, words: list[str], state: GameState) -> tuple[str, Good | None]:
    village, *take = words or [""]
    if len(take) > 1 or not village:
        raise NotationError(
            f"expected a village and maybe a good to take, like 'Knockando +V', in {quote(text)}"
        )
    return state.board.village_named(village), _parse_take(text, take) if take else None


def _parse_delivery(text: str, words: list[str], state: GameState) -> PlayRequest:
    code, *how = words or [""]
    if not code or (how and (len(how) != len(("with", "ABP")) or how[0].lower() != "with")):
        raise NotationError(
            f"expected 'deliver AAB:5' or 'deliver AAB:5 with ABP', got {quote(text)}"
        )
    request = parse_card(code)
    if not isinstance(request, RequestCard):
        raise NotationError(f"expected a goods request like AAB:5, got {quote(code)}")
    if request not in cards_in_play(state.cards, state.board, state.num_players):
        raise NotationError(f"no goods request {quote(code)} among this game's cards")
    delivered = Goods.parse(how[1]) if how else request.goods
    return PlayRequest(request, delivered)
