"""Text pictures of a game for the terminal: what a seat sees, or everything."""

from __future__ import annotations

from collections.abc import Sequence

from troedler.cards import Card
from troedler.moves import Move
from troedler.views import Observation

__all__ = ["render_moves", "render_observation"]


def _cards(cards: Sequence[Card | None]) -> str:
    return " ".join("?" if card is None else str(card) for card in cards) or "-"


def render_observation(seen: Observation, names: Sequence[str]) -> str:
    """What seat ``seen.seat`` knows, as lines of text."""
    lines = [f"Round {seen.round}, dealer {names[seen.dealer]}, {seen.phase.value}"]
    carts: dict[str, list[str]] = {}
    for seat, cart in enumerate(seen.carts):
        carts.setdefault(cart, []).append(names[seat])
    lines.append("Villages (goods; carts):")
    for village, goods in zip(seen.board.villages, seen.village_goods, strict=True):
        here = ", ".join(carts.get(village.name, []))
        lines.append(f"  {village.name:<14} {goods!s:<8} {here}")
    if any(pile is not None for pile in seen.dealer_piles):
        lines.append("Dealer piles (bottom to top, ? unknown):")
        for i, pile in enumerate(seen.dealer_piles):
            lines.append(f"  pile {i}: " + ("gone" if pile is None else _cards(pile)))
    top = seen.discard_pile[-1] if seen.discard_pile else None
    lines.append(
        f"Discard pile: {len(seen.discard_pile)} cards, top {top if top else '-'}; "
        f"game-round pile: {seen.game_round_pile_size} cards"
    )
    lines.append("Players:")
    for seat, name in enumerate(names):
        hand = seen.hands[seat]
        shown = _cards(hand) if hand is not None else f"{seen.hand_sizes[seat]} cards"
        pile = seen.value_piles[seat]
        value = _cards(pile) if pile is not None else f"{seen.value_pile_sizes[seat]} cards"
        marker = "*" if seat == seen.current_player else " "
        lines.append(
            f" {marker}{name:<12} goods {seen.goods[seat]!s:<8} hand {shown}; value pile {value}"
        )
    if seen.played:
        lines.append(f"Played this turn: {_cards(seen.played)}")
    if seen.discards_due and seen.current_player is not None:
        lines.append(
            f"Over the hand limit: {names[seen.current_player]} must discard "
            f"{seen.discards_due} more"
        )
    return "\n".join(lines)


def render_moves(moves: Sequence[Move]) -> str:
    """The legal moves, numbered from 1, with their notation."""
    return "\n".join(f"  {i:>3}. {move}" for i, move in enumerate(moves, start=1))
