"""Stand-in for the core's ``move.card`` and ``move.feed_cost`` until every
move carries them; removed once the core's moves do."""

from __future__ import annotations

from troedler.core.cards import Card, ExtraGoodCard, RouteCard, SpecialFeedCard
from troedler.core.moves import (
    DiscardCard,
    Move,
    PlayExtraGood,
    PlayFeedExtraGood,
    PlayFeedMove,
    PlayRequest,
    PlayRoute,
)

__all__ = ["card_of", "feed_cost_of"]


def card_of(move: Move) -> Card | None:
    """``move.card``."""
    if hasattr(move, "card") and not isinstance(move, DiscardCard):
        return move.card  # type: ignore[no-any-return,unused-ignore]
    if isinstance(move, PlayRoute):
        return RouteCard(move.kind)
    if isinstance(move, PlayFeedMove | PlayFeedExtraGood):
        return SpecialFeedCard()
    if isinstance(move, PlayExtraGood):
        return ExtraGoodCard()
    if isinstance(move, PlayRequest):
        return move.request
    if isinstance(move, DiscardCard):
        return move.card
    return None


def feed_cost_of(move: Move) -> int:
    """``move.feed_cost``."""
    if isinstance(move, PlayFeedMove | PlayFeedExtraGood):
        return 1
    if isinstance(move, PlayRequest):
        return move.feed_cost
    return int(getattr(move, "feed_cost", 0))
