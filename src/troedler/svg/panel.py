"""The side panel: the round, the last move, a row of scores per seat, the
hands, the dealer piles and the discard pile."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence

from troedler.core import scoring
from troedler.core.cards import (
    UNKNOWN,
    Card,
    ExtraGoodCard,
    RequestCard,
    RouteCard,
    SpecialFeedCard,
)
from troedler.core.state import Phase, Position
from troedler.svg.elements import done, el, text, token
from troedler.svg.style import (
    CARD_FILL,
    FAINT,
    HIGHLIGHT,
    INK,
    ROUTE_STYLES,
    seat_colour,
)

__all__ = ["PANEL_W", "Panel"]

PANEL_W = 560.0
CARD_H = 22.0


def _card_label(card: Card) -> tuple[str, str]:
    if card is UNKNOWN:
        return "?", "unknown"
    if isinstance(card, RouteCard):
        return card.kind.code, "route"
    if isinstance(card, ExtraGoodCard):
        return "+1 extra", "extra"
    if isinstance(card, SpecialFeedCard):
        return "feed", "feed"
    return str(card), "request"


def _card_width(card: Card) -> float:
    label, kind = _card_label(card)
    if kind == "request":
        assert isinstance(card, RequestCard)
        return 12 + len(card.goods) * 13 + 22
    return 14 + 7.4 * len(label)


def _card_face(card: Card, width: float) -> ET.Element:
    """The face of ``card`` with its top-left corner at (0, 0)."""
    label, kind = _card_label(card)
    face = el(None, "g", id=f"troedler-card-{_slug(card)}")
    el(
        face,
        "rect",
        width=width,
        height=CARD_H,
        rx=4.0,
        fill=CARD_FILL[kind],
        stroke=FAINT if card is UNKNOWN else INK,
        stroke_width=1.0,
    )
    if isinstance(card, RequestCard):
        for k, good in enumerate(card.goods):
            token(face, 6 + k * 13, 5, good, small=True)
        text(
            face,
            width - 8,
            15.5,
            str(card.points),
            size=12,
            text_anchor="end",
            font_weight="bold",
            fill=INK,
        )
        return face
    if isinstance(card, RouteCard):
        el(face, "rect", width=5.0, height=CARD_H, fill=ROUTE_STYLES[card.kind].colour)
    offset = 2 if isinstance(card, RouteCard) else 0
    text(face, width / 2 + offset, 15.5, label, size=12, text_anchor="middle", fill=INK)
    return face


def _slug(card: Card) -> str:
    return "unknown" if card is UNKNOWN else str(card).replace(":", "-")


def _card(parent: ET.Element, x: float, y: float, card: Card, faces: dict[str, str]) -> float:
    """Draw ``card`` with its left edge at ``x``; its width.

    Each card face is defined once per picture (in ``faces``) and used where
    it lies: a replay then stores a hand as a few short references.
    """
    _, kind = _card_label(card)
    width = _card_width(card)
    slug = _slug(card)
    if slug not in faces:
        faces[slug] = done(_wrap_defs(_card_face(card, width)))
    el(
        parent,
        "use",
        href=f"#troedler-card-{slug}",
        x=float(x),
        y=float(y),
        class_=f"card {kind}-card",
        data_card=None if card is UNKNOWN else str(card),
    )
    return width


def _wrap_defs(element: ET.Element) -> ET.Element:
    defs = el(None, "defs")
    defs.append(element)
    return defs


def _card_row(
    parent: ET.Element,
    x: float,
    y: float,
    cards: Sequence[Card],
    right: float,
    faces: dict[str, str],
) -> float:
    """Draw ``cards`` from ``x``, wrapping before ``right``; the y below them."""
    cx = x
    for card in cards:
        width = _card_width(card)
        if cx + width > right and cx > x:
            cx, y = x, y + CARD_H + 5
        cx += _card(parent, cx, y, card, faces) + 5
    return y + CARD_H


class Panel:
    """The side panel, drawn top to bottom as separate parts."""

    def __init__(self, position: Position, names: Sequence[str], x: float) -> None:
        self.position = position
        self.names = names
        self.x = x
        self.right = x + PANEL_W - 12
        self.y = 20.0
        self.parts: list[str] = []
        self.faces: dict[str, str] = {}
        """The definition of each card face drawn, by name."""

    def section(self, css: str, heading: str | None) -> ET.Element:
        """A new part of the panel, with its heading drawn."""
        group = el(None, "g", class_=f"panel {css}")
        if heading:
            self.y += 10
            text(group, self.x, self.y + 12, heading, size=14, font_weight="bold", fill=INK)
            self.y += 20
        return group

    def close(self, group: ET.Element) -> None:
        """Finish a section: each of its rows becomes a part of its own, so
        that a replay stores a row that did not change only once."""
        self.parts.extend(done(row) for row in group)

    def header(self, caption: str | None) -> None:
        """The round, whose decision it is, whose knowledge is shown, the last move."""
        v = self.position
        group = self.section("status", None)
        if v.phase is Phase.GAME_OVER:
            status = "game over"
        else:
            mover = self.names[v.current_player] if v.current_player is not None else "-"
            doing = "takes a dealer pile" if v.phase is Phase.TAKE_PILES else "plays"
            due = v.turn.discards_due
            if due:
                doing = f"discards {due} more"
            status = f"{mover} {doing}"
        text(group, self.x, self.y + 18, f"Round {v.round}", size=20, font_weight="bold", fill=INK)
        text(
            group,
            self.x + 110,
            self.y + 18,
            f"dealer {self.names[v.dealer]} · {status}",
            size=14,
            fill=INK,
            class_="status-line",
        )
        self.y += 28
        seat, recall = v.viewer, v.recall
        who = (
            "everything in the game"
            if seat is None
            else f"what {self.names[seat]} knows ({recall} recall)"
        )
        text(group, self.x, self.y + 14, f"Showing {who}", size=12, fill=FAINT)
        self.y += 20
        if caption:
            el(
                group,
                "rect",
                x=self.x - 4,
                y=self.y + 1,
                width=PANEL_W - 8,
                height=24.0,
                rx=5.0,
                fill=HIGHLIGHT,
                opacity=0.6,
            )
            text(
                group,
                self.x + 4,
                self.y + 18,
                caption[:70],
                size=14,
                fill=INK,
                class_="last-move-caption",
            )
            self.y += 28
        self.close(group)

    def seats(self) -> None:
        """A row per seat: goods, fulfilled requests, feed used, damage and points so far."""
        v = self.position
        group = self.section("seats", "Players")
        cols = (150, 250, 320, 390, 460, 520)
        heads = ("goods", "requests", "feed used", "damage", "points")
        for col, head in zip(cols[1:], heads, strict=True):
            text(group, self.x + col, self.y + 10, head, size=11, fill=FAINT, text_anchor="middle")
        self.y += 16
        you = v.viewer
        for seat in range(v.num_players):
            row = el(group, "g", class_=f"seat seat-{seat}", data_seat=seat)
            top = self.y
            if seat == you:
                el(
                    row,
                    "rect",
                    x=self.x - 4,
                    y=top,
                    width=PANEL_W - 8,
                    height=26.0,
                    rx=5.0,
                    fill="#efe9da",
                )
            el(
                row,
                "rect",
                x=self.x,
                y=top + 5,
                width=16.0,
                height=16.0,
                rx=3.0,
                fill=seat_colour(v, seat),
                stroke=INK,
                stroke_width=0.8,
            )
            text(
                row,
                self.x + 8,
                top + 17.5,
                str(seat),
                size=11,
                text_anchor="middle",
                font_weight="bold",
                fill="#ffffff",
            )
            marker = "▶ " if seat == v.current_player else ""
            text(
                row,
                self.x + 22,
                top + 18,
                f"{marker}{self.names[seat]}"[:18],
                size=13,
                fill=INK,
                font_weight="bold" if seat == you else None,
            )
            goods = v.players[seat].goods
            gx = self.x + cols[1] - min(len(goods), 6) * 6.5
            for k, good in enumerate(list(goods)[:6]):
                token(row, gx + k * 13, top + 7, good, small=True)
            if len(goods) > 6:
                text(row, gx + 80, top + 17, f"+{len(goods) - 6}", size=10, fill=INK)
            tally = scoring.tally(v, seat) if v.knows_hand(seat) else None
            fulfilled = None if tally is None else len(tally.request_points)
            cells = (
                "?" if fulfilled is None else str(fulfilled),
                "?" if tally is None else str(tally.feed_used),
                "?" if tally is None else str(tally.damage),
                "?" if tally is None else str(tally.points),
            )
            for col, cell, key in zip(
                cols[2:], cells, ("requests", "feed", "damage", "points"), strict=True
            ):
                text(
                    row,
                    self.x + col,
                    top + 18,
                    cell,
                    size=14,
                    text_anchor="middle",
                    fill=INK,
                    class_=key,
                )
            self.y += 28
        text(
            group,
            self.x,
            self.y + 10,
            "damage = feed used + half the goods held, rounded up;"
            " points = requests' points + goods held",
            size=10.5,
            fill=FAINT,
        )
        self.y += 14
        self.close(group)

    def hands(self) -> None:
        """Each hand the viewer knows, else its size; and the cards played this turn."""
        v = self.position
        group = self.section("hands", "Hands")
        order = list(range(v.num_players))
        you = v.viewer
        if you is not None:
            order.remove(you)
            order.insert(0, you)
        for seat in order:
            row = el(group, "g", class_=f"hand seat-{seat}", data_seat=seat)
            text(row, self.x, self.y + 15, self.names[seat][:14], size=12, fill=INK)
            hand = v.players[seat].hand
            if not v.knows_hand(seat):
                text(
                    row,
                    self.x + 110,
                    self.y + 15,
                    f"{len(hand)} cards, not known",
                    size=12,
                    fill=FAINT,
                    class_="hidden",
                )
                self.y += CARD_H + 6
            elif not hand:
                text(row, self.x + 110, self.y + 15, "no cards", size=12, fill=FAINT)
                self.y += CARD_H + 6
            else:
                self.y = _card_row(row, self.x + 110, self.y, hand, self.right, self.faces) + 6
        played = v.turn.played
        if played:
            text(group, self.x, self.y + 15, "played now", size=12, fill=INK)
            self.y = _card_row(group, self.x + 110, self.y, played, self.right, self.faces) + 6
        self.close(group)

    def piles(self) -> None:
        """The dealer piles as far as known, the discard pile's top, the game-round pile."""
        v = self.position
        group = self.section("piles", "Piles")
        if v.dealer_piles:
            for k, pile in enumerate(v.dealer_piles):
                row = el(group, "g", class_="dealer-pile", data_pile=k)
                text(row, self.x, self.y + 15, f"dealer pile {k}", size=12, fill=INK)
                if pile is None:
                    text(row, self.x + 110, self.y + 15, "gone", size=12, fill=FAINT)
                    self.y += CARD_H + 6
                elif not pile:
                    text(row, self.x + 110, self.y + 15, "empty", size=12, fill=FAINT)
                    self.y += CARD_H + 6
                else:
                    self.y = _card_row(row, self.x + 110, self.y, pile, self.right, self.faces) + 6
            text(
                group,
                self.x + 110,
                self.y + 10,
                "bottom to top; ? a card not known",
                size=10.5,
                fill=FAINT,
            )
            self.y += 16
        top, size = v.discard_pile.top, len(v.discard_pile)
        row = el(group, "g", class_="discard-pile", data_size=size)
        text(row, self.x, self.y + 15, "discard pile", size=12, fill=INK)
        if top is not None:
            width = _card(row, self.x + 110, self.y, top, self.faces)
            text(
                row,
                self.x + 118 + width,
                self.y + 15,
                f"on top of {size} cards",
                size=12,
                fill=FAINT,
            )
        else:
            text(row, self.x + 110, self.y + 15, "empty", size=12, fill=FAINT)
        self.y += CARD_H + 8
        text(group, self.x, self.y + 15, "game-round pile", size=12, fill=INK)
        text(
            group,
            self.x + 110,
            self.y + 15,
            f"{len(v.game_round_pile)} cards face down",
            size=12,
            fill=FAINT,
            class_="game-round-pile",
        )
        self.y += CARD_H + 8
        self.close(group)
