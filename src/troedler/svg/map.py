"""The map: routes, villages with their goods, carts, the legend, and the
marks of the last move."""

from __future__ import annotations

import math
from collections.abc import Sequence

import attrs

from troedler.core.board import RouteKind
from troedler.core.goods import Good, Goods
from troedler.core.moves import (
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
from troedler.core.state import Position
from troedler.svg.elements import TOKEN, done, el, num, text, token
from troedler.svg.style import (
    FAINT,
    GOOD_COLOURS,
    GOOD_NAMES,
    HIGHLIGHT,
    INK,
    PAPER,
    ROUTE_NAMES,
    ROUTE_STYLES,
    SEAT_COLOURS,
    VILLAGE_FILL,
    seat_colour,
)

__all__ = [
    "LEGEND_H",
    "Marks",
    "box_height",
    "carts",
    "last_move_marks",
    "legend",
    "routes",
    "village",
]

VILLAGE_W = 128.0
TOKEN_STEP = 19.0
TOKENS_PER_ROW = 6
CART_STEP = 29.0
PARALLEL_GAP = 11.0
LEGEND_H = 78.0


@attrs.frozen
class Marks:
    """What the last move changed, to be highlighted: routes (by index), a
    village, the good taken there, the goods delivered there."""

    routes: frozenset[int] = frozenset()
    village: str | None = None
    taken: Good | None = None
    delivered: Goods | None = None
    mover: int | None = None
    caption: str | None = None


def last_move_marks(
    position: Position, before: Position | None, move: Move | None, names: Sequence[str]
) -> Marks:
    """What ``move``, made in ``before`` and leading to ``position``, marks."""
    if move is None:
        return Marks()
    mover = before.current_player if before is not None else None
    if mover is None and not isinstance(move, EndTurn | TakePile | DiscardPile):
        mover = position.current_player  # a card played leaves the turn with its player
    who = f"{names[mover]}: " if mover is not None else ""
    caption = f"Last move: {who}{move}"
    if isinstance(move, PlayRoute | PlayFeedMove):
        origin = before.players[mover].cart if before is not None and mover is not None else None
        routes = frozenset(
            i
            for i, route in enumerate(position.board.routes)
            if origin is not None
            and set(route.ends) == {origin, move.to}
            and (isinstance(move, PlayFeedMove) or route.kind == move.kind)
        )
        return Marks(routes, move.to, move.take, None, mover, caption)
    if isinstance(move, PlayExtraGood | PlayFeedExtraGood) and mover is not None:
        return Marks(frozenset(), position.players[mover].cart, move.good, None, mover, caption)
    if isinstance(move, PlayRequest) and mover is not None:
        return Marks(
            frozenset(), position.players[mover].cart, None, move.delivered, mover, caption
        )
    return Marks(mover=mover, caption=caption)


def box_height(goods: Goods) -> float:
    """The height of a village's box: a name row and rows of six tokens."""
    rows = max(1, math.ceil(len(goods) / TOKENS_PER_ROW))
    return 30.0 + rows * TOKEN_STEP


def routes(position: Position, at: dict[str, tuple[float, float]], marks: Marks) -> list[str]:
    """Every route as a line in its kind's style, parallel ones side by side;
    first, under them, a glow along the routes the last move took."""
    layer = el(None, "g", class_="routes")
    board = position.board
    pairs: dict[tuple[int, int], list[int]] = {}
    for i, route in enumerate(board.routes):
        a, b = sorted(board.index(end) for end in route.ends)
        pairs.setdefault((a, b), []).append(i)
    glow = el(None, "g", class_="last-move-routes")
    for (a, b), members in pairs.items():
        (x1, y1), (x2, y2) = at[board.villages[a].name], at[board.villages[b].name]
        length = math.hypot(x2 - x1, y2 - y1) or 1.0
        nx, ny = -(y2 - y1) / length, (x2 - x1) / length
        for k, i in enumerate(members):
            route = board.routes[i]
            shift = (k - (len(members) - 1) / 2) * PARALLEL_GAP
            ends = dict(
                x1=x1 + nx * shift, y1=y1 + ny * shift, x2=x2 + nx * shift, y2=y2 + ny * shift
            )
            style = ROUTE_STYLES[route.kind]
            taken = i in marks.routes
            if taken:
                el(
                    glow,
                    "line",
                    **ends,
                    stroke=HIGHLIGHT,
                    stroke_width=20.0,
                    stroke_linecap="round",
                    opacity=0.75,
                    class_="route-taken last-move",
                    data_route=i,
                )
            group = el(
                layer,
                "g",
                class_=f"route {route.kind.code}",
                data_route=i,
                data_ends=" ".join(route.ends),
            )
            el(
                group, "title"
            ).text = f"{ROUTE_NAMES[route.kind]}: {route.ends[0]} - {route.ends[1]}"
            el(
                group,
                "line",
                **ends,
                stroke=style.colour,
                stroke_width=style.width,
                stroke_dasharray=style.dash,
                stroke_linecap="round" if route.kind is RouteKind.MOUNTAIN_TRAIL else "butt",
            )
            if style.rails:
                el(group, "line", **ends, stroke=PAPER, stroke_width=style.width - 5)
    return ([done(glow)] if len(glow) else []) + [done(layer)]


def village(position: Position, index: int, x: float, y: float, marks: Marks) -> str:
    """The box of village ``index`` centred at (x, y): its name, number and goods."""
    village = position.board.villages[index]
    goods = position.village_goods[index]
    h = box_height(goods)
    left, top = x - VILLAGE_W / 2, y - h / 2
    starts = position.board.start_villages
    css = "village"
    colour = None
    if village.name in starts:
        css += " start"
        colour = SEAT_COLOURS[starts.index(village.name) % len(SEAT_COLOURS)]
    marked = marks.village == village.name
    if marked:
        css += " last-move"
    group = el(None, "g", class_=css, data_village=village.name)
    if marked:
        el(
            group,
            "rect",
            x=left - 6,
            y=top - 6,
            width=VILLAGE_W + 12,
            height=h + 12,
            rx=12.0,
            fill=HIGHLIGHT,
            opacity=0.8,
        )
    el(
        group,
        "rect",
        x=left,
        y=top,
        width=VILLAGE_W,
        height=h,
        rx=8.0,
        fill=VILLAGE_FILL,
        stroke=colour or INK,
        stroke_width=4.0 if colour else 1.5,
    )
    if colour:
        el(
            group,
            "path",
            d=f"M{num(left + 2)} {num(top + 22)}V{num(top + 10)}"
            f"a8 8 0 0 1 8 -8H{num(left + VILLAGE_W - 10)}a8 8 0 0 1 8 8V{num(top + 22)}Z",
            fill=colour,
        )
    text(
        group,
        x,
        top + 17,
        village.name,
        size=14,
        text_anchor="middle",
        font_weight="bold",
        fill="#ffffff" if colour else INK,
    )
    if village.number:
        el(group, "circle", cx=left + VILLAGE_W, cy=top, r=10.0, fill=INK)
        text(
            group,
            left + VILLAGE_W,
            top + 4.5,
            str(village.number),
            size=12,
            text_anchor="middle",
            fill="#ffffff",
            class_="number",
        )
    tokens = list(goods)
    delivered = list(marks.delivered) if marked and marks.delivered is not None else []
    slots = len(tokens) + (1 if marked and marks.taken is not None else 0)
    for k in range(slots):
        row, col = divmod(k, TOKENS_PER_ROW)
        in_row = min(TOKENS_PER_ROW, slots - row * TOKENS_PER_ROW)
        tx = x - (in_row * TOKEN_STEP - (TOKEN_STEP - TOKEN)) / 2 + col * TOKEN_STEP
        ty = top + 26 + row * TOKEN_STEP
        if k < len(tokens):
            good = tokens[k]
            extra = ""
            if good in delivered:
                delivered.remove(good)
                extra = " delivered"
                el(
                    group,
                    "rect",
                    x=tx - 3,
                    y=ty - 3,
                    width=TOKEN + 6,
                    height=TOKEN + 6,
                    rx=5.0,
                    fill="none",
                    stroke=INK,
                    stroke_width=2.0,
                )
            token(group, tx, ty, good, extra)
        else:
            assert marks.taken is not None
            ghost = el(group, "g", class_="taken", data_good=marks.taken.code)
            el(
                ghost,
                "rect",
                x=tx,
                y=ty,
                width=TOKEN,
                height=TOKEN,
                rx=3.0,
                fill="none",
                stroke=GOOD_COLOURS[marks.taken],
                stroke_width=2.0,
                stroke_dasharray="3 2",
            )
            text(
                ghost,
                tx + TOKEN / 2,
                ty + 12.2,
                marks.taken.code,
                size=11,
                text_anchor="middle",
                fill=GOOD_COLOURS[marks.taken],
            )
    return done(group)


def carts(
    position: Position, at: dict[str, tuple[float, float]], names: Sequence[str]
) -> list[str]:
    """One marker per cart above its village's box, side by side when they share it."""
    here: dict[str, list[int]] = {}
    for seat, cart in enumerate(player.cart for player in position.players):
        here.setdefault(cart, []).append(seat)
    parts = []
    for seat, cart in enumerate(player.cart for player in position.players):
        x, y = at[cart]
        top = y - box_height(position.village_goods[position.board.index(cart)]) / 2
        company = here[cart]
        cx = x + (company.index(seat) - (len(company) - 1) / 2) * CART_STEP
        cy = top - 15
        moving = seat == position.current_player
        group = el(
            None,
            "g",
            class_=f"cart seat-{seat}" + (" to-move" if moving else ""),
            data_seat=seat,
            data_village=cart,
        )
        el(group, "title").text = f"cart of {names[seat]} in {cart}"
        el(
            group,
            "rect",
            x=cx - 12,
            y=cy - 8,
            width=24.0,
            height=14.0,
            rx=3.0,
            fill=seat_colour(position, seat),
            stroke=INK,
            stroke_width=2.5 if moving else 1.0,
        )
        for wx in (cx - 6, cx + 6):
            el(group, "circle", cx=wx, cy=cy + 7, r=3.5, fill=INK)
        text(
            group,
            cx,
            cy + 3.5,
            str(seat),
            size=11,
            text_anchor="middle",
            font_weight="bold",
            fill="#ffffff",
        )
        parts.append(done(group))
    return parts


def legend(x: float, y: float, width: float) -> str:
    """The key to the route kinds and goods."""
    group = el(None, "g", class_="legend")
    el(
        group,
        "rect",
        x=x,
        y=y,
        width=width,
        height=LEGEND_H - 8,
        rx=8.0,
        fill="#ffffff",
        stroke=FAINT,
        stroke_width=1.0,
        opacity=0.9,
    )
    step = (width - 20) / 4
    for k, kind in enumerate(RouteKind):
        style = ROUTE_STYLES[kind]
        lx, ly = x + 14 + k * step, y + 22
        line = dict(x1=lx, y1=ly, x2=lx + 46, y2=ly)
        el(
            group,
            "line",
            **line,
            stroke=style.colour,
            stroke_width=style.width,
            stroke_dasharray=style.dash,
            stroke_linecap="round" if kind is RouteKind.MOUNTAIN_TRAIL else "butt",
        )
        if style.rails:
            el(group, "line", **line, stroke=PAPER, stroke_width=style.width - 5)
        text(group, lx + 54, ly + 4.5, f"{ROUTE_NAMES[kind]} ({kind.code})", size=13, fill=INK)
    step = (width - 20) / 6
    for k, good in enumerate(Good):
        gx, gy = x + 14 + k * step, y + 40
        token(group, gx, gy, good)
        text(group, gx + 22, gy + 12.5, GOOD_NAMES[good], size=13, fill=INK)
    return done(group)
