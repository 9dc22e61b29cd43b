"""The side panel as HTML: the round, a row of scores per seat, the hands and
the piles, in text that keeps its size whatever the width of the page.

The SVG panel (:mod:`troedler.svg.panel`) scales with the picture, so on a
narrow screen its text shrinks below reading size; pages that a person reads
(the HTML replay, the browser game) put this panel beside the map or below
it instead. Everything is plain markup with classes, styled by
:func:`panel_css`: no ``style`` attribute, so a strict content security
policy holds.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from troedler.core import scoring
from troedler.core.board import RouteKind
from troedler.core.cards import (
    UNKNOWN,
    Card,
    ExtraGoodCard,
    RequestCard,
    RouteCard,
    SpecialFeedCard,
)
from troedler.core.goods import Good, Goods
from troedler.core.state import Phase, Position
from troedler.svg.style import (
    CARD_FILL,
    FAINT,
    GOOD_COLOURS,
    GOOD_NAMES,
    HIGHLIGHT,
    INK,
    ROUTE_NAMES,
    ROUTE_STYLES,
    SEAT_COLOURS,
    seat_colour,
)

__all__ = ["card_html", "goods_html", "panel_css", "panel_html"]


def goods_html(goods: Goods) -> str:
    """Goods as letter tokens in their colours."""
    return "".join(
        f'<span class="good good-{good.code}" title="{GOOD_NAMES[good]}">{good.code}</span>'
        for good in goods
    )


def card_html(card: Card) -> str:
    """One card as a small face: a route card's kind, a request's goods and points."""
    if card is UNKNOWN:
        return '<span class="card unknown-card" title="a card not known">?</span>'
    name = escape(str(card))
    if isinstance(card, RouteCard):
        word = card.kind.code
        return (
            f'<span class="card route-card route-{word}" data-card="{name}" '
            f'title="{ROUTE_NAMES[card.kind]}">{word}</span>'
        )
    if isinstance(card, ExtraGoodCard):
        return f'<span class="card extra-card" data-card="{name}">+1 extra</span>'
    if isinstance(card, SpecialFeedCard):
        return f'<span class="card feed-card" data-card="{name}">feed</span>'
    assert isinstance(card, RequestCard)
    return (
        f'<span class="card request-card" data-card="{name}" title="goods request">'
        f"{goods_html(card.goods)}<b>{card.points}</b></span>"
    )


def _cards(cards: Sequence[Card]) -> str:
    return '<span class="cards">' + "".join(card_html(c) for c in cards) + "</span>"


def _seat(position: Position, seat: int, name: str) -> str:
    return (
        f'<span class="chip seat-bg-{_colour_index(position, seat)}">{seat}</span>'
        f'<span class="name">{escape(name)}</span>'
    )


def _colour_index(position: Position, seat: int) -> int:
    return SEAT_COLOURS.index(seat_colour(position, seat))


def panel_html(
    position: Position,
    names: Sequence[str],
    *,
    caption: str | None = None,
    hands: bool = True,
    own_hand: bool = True,
) -> tuple[str, ...]:
    """The panel of ``position`` as pieces of HTML that join into its sections:
    status, players, hands, piles.

    Each row is a piece of its own, so that a replay stores a row that did
    not change only once. ``caption`` (the last move) is shown under the
    status; ``hands=False`` leaves the hands out, and ``own_hand=False``
    only the hand of the seat the position is observed from, for a page
    that shows the player's own hand itself.
    """
    pieces = [_status(position, names, caption), *_players(position, names)]
    if hands:
        pieces.extend(_hands(position, names, own_hand=own_hand))
    pieces.extend(_piles(position))
    return tuple(pieces)


def _status(position: Position, names: Sequence[str], caption: str | None) -> str:
    p = position
    if p.phase is Phase.GAME_OVER:
        status = "game over"
    else:
        mover = names[p.current_player] if p.current_player is not None else "-"
        # A page of the person's own seat names it "you": "you play", not "you plays".
        s = "" if mover == "you" else "s"
        doing = f"take{s} a dealer pile" if p.phase is Phase.TAKE_PILES else f"play{s}"
        due = p.turn.discards_due
        if due:
            doing = f"discard{s} {due} more"
        status = f"{mover} {doing}"
    seat, recall = p.viewer, p.recall
    if seat is None:
        who = "everything in the game"
    else:
        knows = "know" if names[seat] == "you" else "knows"
        who = f"what {names[seat]} {knows} ({recall} recall)"
    last = f'<p class="last-move-caption">{escape(caption)}</p>' if caption else ""
    return (
        f'<section class="status"><p><b class="round">Round {p.round}</b> · '
        f'dealer {escape(names[p.dealer])} · <span class="status-line">{escape(status)}</span></p>'
        f'<p class="faint">Showing {escape(who)}</p>{last}</section>'
    )


def _players(position: Position, names: Sequence[str]) -> list[str]:
    you = position.viewer
    rows = []
    for seat in range(position.num_players):
        tally = scoring.tally(position, seat) if position.knows_hand(seat) else None
        fulfilled = None if tally is None else len(tally.request_points)
        marker = "▶ " if seat == position.current_player else ""
        css = f"seat seat-{seat}" + (" you" if seat == you else "")
        cells = (
            "?" if fulfilled is None else str(fulfilled),
            "?" if tally is None else str(tally.feed_used),
            "?" if tally is None else str(tally.damage),
            "?" if tally is None else str(tally.points),
        )
        rows.append(
            f'<tr class="{css}" data-seat="{seat}"><td>{marker}{_seat(position, seat, names[seat])}'
            f'</td><td class="goods">{goods_html(position.players[seat].goods)}</td>'
            + "".join(f'<td class="num">{c}</td>' for c in cells)
            + "</tr>"
        )
    return [
        '<section class="players"><h3>Players</h3><table><thead><tr><th></th><th>goods</th>'
        "<th>requests</th><th>feed used</th><th>damage</th><th>points</th></tr></thead><tbody>",
        *rows,
        '</tbody></table><p class="faint">damage = feed used + half the goods held, '
        "rounded up; points = requests' points + goods held</p></section>",
    ]


def _hands(position: Position, names: Sequence[str], *, own_hand: bool = True) -> list[str]:
    order = list(range(position.num_players))
    you = position.viewer
    if you is not None:
        order.remove(you)
        if own_hand:
            order.insert(0, you)
    rows = []
    for seat in order:
        hand = position.players[seat].hand
        if not position.knows_hand(seat):
            shown = f'<span class="faint hidden">{len(hand)} cards, not known</span>'
        elif not hand:
            shown = '<span class="faint">no cards</span>'
        else:
            shown = _cards(hand)
        rows.append(
            f'<div class="row hand seat-{seat}" data-seat="{seat}">'
            f'<span class="label">{escape(names[seat])}</span>{shown}</div>'
        )
    played = position.turn.played
    if played:
        rows.append(
            f'<div class="row played"><span class="label">played now</span>{_cards(played)}</div>'
        )
    title = "Hands" if own_hand or you is None else "The others' hands"
    return [f'<section class="hands"><h3>{title}</h3>', *rows, "</section>"]


def _piles(position: Position) -> list[str]:
    rows = []
    for k, pile in enumerate(position.dealer_piles):
        if pile is None:
            shown = '<span class="faint">gone</span>'
        elif not pile:
            shown = '<span class="faint">empty</span>'
        else:
            shown = _cards(pile)
        rows.append(
            f'<div class="row dealer-pile" data-pile="{k}">'
            f'<span class="label">dealer pile {k}</span>{shown}</div>'
        )
    if position.dealer_piles:
        rows.append('<p class="faint">bottom to top; ? a card not known</p>')
    top, size = position.discard_pile.top, len(position.discard_pile)
    shown = (
        f'{card_html(top)} <span class="faint">on top of {size} cards</span>'
        if top is not None
        else '<span class="faint">empty</span>'
    )
    rows.append(
        f'<div class="row discard-pile" data-size="{size}">'
        f'<span class="label">discard pile</span>{shown}</div>'
    )
    rows.append(
        '<div class="row"><span class="label">game-round pile</span>'
        f'<span class="faint game-round-pile">{len(position.game_round_pile)} cards face down'
        "</span></div>"
    )
    return ['<section class="piles"><h3>Piles</h3>', *rows, "</section>"]


def panel_css() -> str:
    """The styles of the panel's classes: goods, cards, seats, in the pictures' colours."""
    rules = [
        f".panel {{ font-size: 14px; line-height: 1.35; color: {INK}; }}",
        ".panel h3 { font-size: 15px; margin: 10px 0 4px; }",
        ".panel p { margin: 2px 0; }",
        ".panel .faint { color: #6b665c; font-size: 12px; }",
        ".panel table { border-collapse: collapse; width: 100%; }",
        ".panel th { font-size: 12px; font-weight: normal; color: #6b665c; text-align: center;"
        " padding: 0 3px; }",
        ".panel td { padding: 2px 2px; vertical-align: middle; }",
        ".panel td .name { display: inline-block; min-width: 5.5em; overflow-wrap: anywhere; }",
        ".panel td.num { text-align: center; font-variant-numeric: tabular-nums; }",
        ".panel tr.you { background: #efe9da; font-weight: bold; }",
        ".panel .row { display: flex; flex-wrap: wrap; gap: 4px; align-items: center;"
        " margin: 3px 0; }",
        ".panel .label { flex: 0 0 7.5em; overflow-wrap: anywhere; }",
        ".cards { display: inline-flex; flex-wrap: wrap; gap: 4px; }",
        ".card { display: inline-flex; align-items: center; gap: 2px; min-height: 22px;"
        f" padding: 0 6px; border: 1px solid {INK}; border-radius: 4px; font-size: 13px;"
        " white-space: nowrap; }",
        f".unknown-card {{ background: {CARD_FILL['unknown']}; border-color: {FAINT}; }}",
        f".extra-card {{ background: {CARD_FILL['extra']}; }}",
        f".feed-card {{ background: {CARD_FILL['feed']}; }}",
        f".request-card {{ background: {CARD_FILL['request']}; }}",
        f".route-card {{ background: {CARD_FILL['route']}; border-left-width: 6px; }}",
        ".good { display: inline-block; width: 17px; height: 17px; line-height: 17px;"
        " border-radius: 50%; color: #fff; font-size: 11px; font-weight: bold;"
        " text-align: center; margin: 0 1px; }",
        ".chip { display: inline-block; width: 17px; height: 17px; line-height: 17px;"
        " border-radius: 3px; color: #fff; font-size: 11px; font-weight: bold;"
        f" text-align: center; margin-right: 4px; border: 1px solid {INK}; }}",
        f".last-move-caption {{ background: {HIGHLIGHT}; border-radius: 5px; padding: 2px 6px; }}",
    ]
    rules.extend(f".good-{g.code} {{ background: {GOOD_COLOURS[g]}; }}" for g in Good)
    rules.extend(
        f".route-{k.code} {{ border-left-color: {ROUTE_STYLES[k].colour}; }}" for k in RouteKind
    )
    rules.extend(f".seat-bg-{k} {{ background: {c}; }}" for k, c in enumerate(SEAT_COLOURS))
    return "\n".join(rules)
