"""What the server sends: every message a seat or a spectator receives is
built here, and nowhere else: its public fields by :class:`Frame`, the
recipient's position by :func:`position_text` (:func:`message_for` joins
the two for one recipient; the server writes a message's fields once and
adds each recipient's position).

This module is where hidden information could leak, so it is the one
place that decides what a recipient may know: a seat gets
:func:`troedler.observe` of its own seat (with the match's recall), a
spectator the public part of the table (``recall="table"`` of a seat, with
that seat's hand and value pile taken away). Neither includes another
seat's hidden cards, the order of a face-down pile, or the seed. The other
fields a caller passes (move texts, names, versions, who is connected) are
public by their nature: every card a move names lies face up once played.

Beside what a recipient knows, a position carries the facts the page
shows, each as the engine gives it and none restated here: each legal
move with its fields, the card it plays and the special feed it costs
(:func:`move_facts`, from the move itself), why a card may not be
discarded (the engine's own refusal), each known seat's tally and, at the
end, the final scoring. :func:`table_for` is what is fixed for a whole
game (the board's places and routes, the cards' faces and the pictures'
colours), sent once in the welcome.

The protocol is versioned (:data:`PROTOCOL`); ``docs/server.md`` describes it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Hashable, Sequence
from typing import Any

import attrs

from troedler.bots.failure import BotFailure, failure_message
from troedler.core.board import Board
from troedler.core.cards import UNKNOWN, Card, ExtraGoodCard, RequestCard, RouteCard
from troedler.core.errors import IllegalMoveError
from troedler.core.goods import Good, Goods
from troedler.core.legal import legal_moves, verify_move
from troedler.core.moves import DiscardCard, Move
from troedler.core.scoring import Outcome, Tally, outcome, tally
from troedler.core.state import GameState, Position, Turn
from troedler.io.records import result_to_data
from troedler.seat import Observation, Recall, observe
from troedler.svg import board_picture
from troedler.svg.layout import layout
from troedler.svg.style import (
    CARD_FILL,
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

try:  # the server extra's JSON: a position in a tenth of json.dumps's time (measured)
    import orjson
except ImportError:  # the replay page is built without the server extra
    orjson = None  # type: ignore[assignment]

__all__ = [
    "BOT_FAILED_FIELDS",
    "MAX_NOTICE",
    "PROTOCOL",
    "STOOD_IN_FIELDS",
    "Frame",
    "bot_failure_fields",
    "map_for",
    "message_for",
    "move_facts",
    "moved_facts",
    "position_for",
    "position_text",
    "public_observation",
    "table_for",
    "table_text",
]

PROTOCOL = 1
"""The version of the websocket protocol; a client names it in its hello."""
MAX_TEXTS = 50_000
"""Texts of cards, goods and moves kept at once."""
MAX_NOTICE = 500
"""The most characters of a ``bot_failed`` message's line."""
BOT_FAILED_FIELDS = ("version", "seat", "bot", "kind", "move", "round", "detail", "message")
"""The fields of a ``bot_failed`` message (:func:`bot_failure_fields`)."""
STOOD_IN_FIELDS = ("version", "seat", "bot", "move")
"""The fields of a ``stood_in`` message: the seat ran out of time, and the
stand-in ``bot`` made its ``move``, which made ``version``."""
WITHHELD = "what it said is kept in the server's log"
"""A failed bot's own words, where they are not told (a server open to others)."""


def public_observation(state: GameState) -> Observation:
    """What lies on the table for all to see: what seat 0 sees with
    ``recall="table"``. A spectator sees this without seat 0's hand and
    value pile (:func:`position_for`), and has no legal moves."""
    return observe(state, 0, recall="table")


def map_for(state: GameState, names: Sequence[str]) -> str:
    """The map (the villages, their goods, the carts) as an SVG document,
    drawn from what a spectator sees: the same for every recipient, and
    nothing in it that any seat does not know."""
    return board_picture(public_observation(state), names=names, panel=False).svg()


def _texts() -> Callable[[Hashable], str]:
    """``str`` of a card, goods or move, kept: the same few values are
    written in every message (the same goods thousands of times a second)."""
    known: dict[Hashable, str] = {}

    def text(value: Hashable) -> str:
        found = known.get(value)
        if found is None:
            if len(known) >= MAX_TEXTS:  # bounded, whatever values come
                known.clear()
            found = known[value] = str(value)
        return found

    return text


_text = _texts()
_villages_seen: dict[int, tuple[object, dict[str, str], str]] = {}


def _villages(board: Board, goods: tuple[Goods, ...]) -> tuple[dict[str, str], str]:
    """Each village's goods as text, and that as JSON, kept for the tuple a
    state holds (a state shares it with the states before it until a
    village changes)."""
    found = _villages_seen.get(id(goods))
    if found is None or found[0] is not goods:  # the tuple is held, so its id is its own
        if len(_villages_seen) >= MAX_TEXTS:
            _villages_seen.clear()
        names = {
            village.name: _text(held) for village, held in zip(board.villages, goods, strict=True)
        }
        found = _villages_seen[id(goods)] = (goods, names, _dumps(names))
    return found[1], found[2]


_piles_seen: dict[tuple[Hashable | None, ...], list[str | None]] = {}


def _codes(cards: Sequence[Card] | None) -> list[str | None] | None:
    """The cards' codes (None for a card not known), kept for each tuple of
    cards seen: hands and piles change a card at a time, and are written
    in every message."""
    if cards is None:
        return None
    key = cards if type(cards) is tuple else tuple(cards)
    found = _piles_seen.get(key)
    if found is None:
        if len(_piles_seen) >= MAX_TEXTS:
            _piles_seen.clear()
        found = _piles_seen[key] = [None if card is UNKNOWN else _text(card) for card in key]
    return list(found)


def _seen(
    state: GameState, viewer: int | None, recall: Recall
) -> tuple[Position, tuple[bool, ...], tuple[Move, ...]]:
    """What ``viewer`` (a seat, None for a spectator, or :data:`EVERYTHING`)
    knows of ``state``: the view, whose hands it knows, and its legal moves
    (none but its own)."""
    if viewer is None:
        return public_observation(state), (False,) * state.num_players, ()
    if viewer == EVERYTHING:
        return state, (True,) * state.num_players, ()
    seen = observe(state, viewer, recall=recall)
    return seen, tuple(map(seen.knows_hand, range(state.num_players))), legal_moves(seen)


EVERYTHING = -1
"""The viewer of a whole state (a replay of a finished game): every hand and
value pile known, no legal moves. Never a recipient of the server's."""


def _tally(counted: Tally) -> dict[str, Any]:
    """A tally as the scoring shows it: its counts, and the damage and points
    the rules make of them."""
    return {
        "feed_used": counted.feed_used,
        "goods_held": counted.goods_held,
        "request_points": list(counted.request_points),
        "damage": counted.damage,
        "points": counted.points,
    }


def _players(seen: Position, known: tuple[bool, ...]) -> list[dict[str, Any]]:
    return [
        {
            "cart": player.cart,
            "goods": _text(player.goods),
            "hand": _codes(player.hand) if knows else None,
            "hand_size": len(player.hand),
            "tally": _tally(tally(seen, seat)) if knows else None,
            "value_pile": _codes(player.value_pile) if knows else None,
            "value_pile_size": len(player.value_pile),
        }
        for seat, (player, knows) in enumerate(zip(seen.players, known, strict=True))
    ]


def _turn(turn: Turn) -> dict[str, Any]:
    last = turn.last_discard
    return {
        "played": _codes(turn.played),
        "delivered_to": list(turn.delivered_to),
        "discards_due": turn.discards_due,
        "last_discard": None if last is None else _text(last),
    }


_TYPE_NAMES: dict[type, str] = {}


def _type_name(kind: type) -> str:
    """A move's class as a word of the protocol: ``PlayRoute`` is ``play_route``."""
    name = _TYPE_NAMES.get(kind)
    if name is None:
        name = _TYPE_NAMES[kind] = re.sub(r"(?<!^)(?=[A-Z])", "_", kind.__name__).lower()
    return name


def _fact(value: Hashable) -> object:
    """A field of a move as JSON: a pile number or a village as it is, a
    route kind or a good by its code, goods and cards by their text."""
    if value is None or type(value) in (int, str):
        return value
    code = getattr(value, "code", None)
    return code if isinstance(code, str) else _text(value)


def move_facts(move: Move) -> dict[str, Any]:
    """A move as the page is sent it: its notation (what a client sends to
    make it), its type, its own fields, the card it plays or discards from
    the hand and the special feed it plays, as the move itself gives them.

    >>> from troedler import Good, PlayRoute, RouteKind
    >>> move_facts(PlayRoute(RouteKind.BRIDGE, "Rothes", Good.VASE))["card"]
    'bridge'
    """
    card = move.card
    facts: dict[str, Any] = {
        "move": _text(move),
        "type": _type_name(type(move)),
        "card": None if card is None else _text(card),
        "feed_cost": move.feed_cost,
    }
    for field in attrs.fields(type(move)):
        if field.init:  # the move's own fields; what it works out from them is above
            facts[field.name] = _fact(getattr(move, field.name))
    return facts


def moved_facts(move: Move, before: str | None) -> dict[str, Any]:
    """A move made, as the page is told it: its :func:`move_facts`, and
    ``from``, where its mover's cart stood before it (``before``): with
    ``to`` and ``kind``, the way the cart went, for the page to mark.

    >>> from troedler import Good, PlayRoute, RouteKind
    >>> moved_facts(PlayRoute(RouteKind.BRIDGE, "Rothes", Good.VASE), "Aberlour")["from"]
    'Aberlour'
    """
    return {**move_facts(move), "from": before}


_facts_seen: dict[Move, str] = {}


def _facts_text(move: Move) -> str:
    """:func:`move_facts` as JSON text, kept: the engine lists the same moves
    again and again."""
    found = _facts_seen.get(move)
    if found is None:
        if len(_facts_seen) >= MAX_TEXTS:
            _facts_seen.clear()
        found = _facts_seen[move] = _dumps(move_facts(move))
    return found


def _moves_text(moves: tuple[Move, ...]) -> str:
    return "[" + ",".join(map(_facts_text, moves)) + "]"


def discard_refusals(
    state: GameState, seen: Position, viewer: int | None, moves: tuple[Move, ...]
) -> list[str | None] | None:
    """Over the hand limit, for each card of the viewer's hand in order: None
    if it may be discarded now, else why not, in the engine's own words
    (:func:`troedler.verify_move`). None when the viewer has nothing to discard."""
    if viewer is None or viewer < 0 or not seen.turn.discards_due:
        return None
    if seen.current_player != viewer:
        return None
    may_go = {move.card for move in moves if isinstance(move, DiscardCard)}
    reasons: list[str | None] = []
    for card in seen.players[viewer].hand:
        reason = None
        if card not in may_go:
            try:
                verify_move(state, DiscardCard(card), seat=viewer)
            except IllegalMoveError as refused:
                reason = str(refused)[:300]
        reasons.append(reason)
    return reasons


def bot_failure_fields(
    failure: BotFailure, version: int, instead: Move, *, detail: bool
) -> dict[str, Any]:
    """The fields of a ``bot_failed`` message: the bot at ``failure.seat``
    failed its move, and ``instead``, a random legal move, made ``version``.

    ``message`` is one line for a person (:func:`troedler.bots.failure.failure_message`,
    then the move made instead), at most :data:`MAX_NOTICE` characters; the
    bot's name and words come bounded in ``failure``. What a bot says when
    it fails is untrusted, and may tell what its seat knows (a program's
    error output, its hand, say): it is sent (``detail``) only where the
    person watching named the bots themselves (a private server); elsewhere
    ``detail`` is null and the line says the server's log keeps it.

    >>> from troedler import EndTurn
    >>> failure = BotFailure(1, "mybot", 6, 1, "raised", "ValueError: boom (mybot.py:7)")
    >>> bot_failure_fields(failure, 7, EndTurn(), detail=False)["message"]
    "The bot of seat 1, mybot, raised an error at move 7 (round 1): what it said is kept \
in the server's log. A random legal move was played instead: end."
    """
    told = failure if detail else attrs.evolve(failure, detail=WITHHELD)
    said = failure_message(told)
    stop = "" if said.endswith(".") else "."
    line = f"{said}{stop} A random legal move was played instead: {_text(instead)}."
    values = (
        version,
        failure.seat,
        failure.bot,
        failure.kind,
        _text(instead),
        failure.round,
        failure.detail if detail else None,
        line[:MAX_NOTICE],
    )
    return dict(zip(BOT_FAILED_FIELDS, values, strict=True))


def result_for(result: Outcome) -> dict[str, Any]:
    """The final scoring as the page shows it: the record's result (damage
    and points per seat, the totally damaged and the winners) and each
    seat's tally."""
    return {**result_to_data(result), "tallies": [_tally(counted) for counted in result.tallies]}


def position_for(state: GameState, viewer: int | None, recall: Recall) -> dict[str, Any]:
    """The position as ``viewer`` (a seat, or None for a spectator) may know it,
    as JSON data, with the viewer's legal moves when it is its turn (``[]``
    otherwise): ``legal_moves`` in notation, ``moves`` as :func:`move_facts`.

    Its fields are those of the bot protocol's observation
    (:func:`troedler.bots.program.observation_to_data`) but its version,
    each player's ``tally`` where its value pile is known, the viewer's
    ``discard_refusals`` (:func:`discard_refusals`) and, once the game is
    over, its ``result`` (:func:`result_for`). :func:`position_text` writes
    the same as JSON text, from parts kept across positions.
    """
    seen, known, moves = _seen(state, viewer, recall)
    data: dict[str, Any] = {
        "seat": viewer,
        "recall": seen.recall,
        "round": seen.round,
        "dealer": seen.dealer,
        "phase": seen.phase.name.lower(),
        "current_player": seen.current_player,
        "shuffles": seen.shuffles,
        "game_round_pile_size": len(seen.game_round_pile),
        "dealer_piles": [_codes(pile) for pile in seen.dealer_piles],
        "discard_pile": _codes(seen.discard_pile.cards),
        "discard_refusals": discard_refusals(state, seen, viewer, moves),
        "village_goods": dict(_villages(seen.board, seen.village_goods)[0]),
        "players": _players(seen, known),
        "turn": _turn(seen.turn),
        "legal_moves": [_text(move) for move in moves],
        "moves": [move_facts(move) for move in moves],
    }
    if state.is_over:
        data["result"] = result_for(outcome(state))
    return data


_fragments: dict[tuple[str, Hashable], str] = {}


def _kept(kind: str, key: Hashable, make: Callable[[], object]) -> str:
    """The JSON text of ``make()``, kept for ``key``: a part of a position
    that many positions share (the same players' cards version after
    version, the same piles for every seat)."""
    slot = (kind, key)
    try:
        found = _fragments.get(slot)
    except TypeError:  # a part that cannot be a key: written afresh
        return _dumps(make())
    if found is None:
        if len(_fragments) >= MAX_TEXTS:
            _fragments.clear()
        found = _fragments[slot] = _dumps(make())
    return found


def _number(value: int | None) -> str:
    return "null" if value is None else str(int(value))


def position_text(state: GameState, viewer: int | None, recall: Recall) -> str:
    """:func:`position_for` as JSON text (its keys sorted), as every message
    carries it: written from parts kept across positions, so that a
    position costs little more than its observation."""
    seen, known, moves = _seen(state, viewer, recall)
    players = (seen.players, known)
    refusals = discard_refusals(state, seen, viewer, moves)
    parts = [
        '{"current_player":',
        _number(seen.current_player),
        ',"dealer":',
        _number(seen.dealer),
        ',"dealer_piles":',
        _kept("dealer_piles", seen.dealer_piles, lambda: [_codes(p) for p in seen.dealer_piles]),
        ',"discard_pile":',
        _kept("discard_pile", seen.discard_pile, lambda: _codes(seen.discard_pile.cards)),
        ',"discard_refusals":',
        "null" if refusals is None else _dumps(refusals),
        ',"game_round_pile_size":',
        _number(len(seen.game_round_pile)),
        ',"legal_moves":',
        _kept("legal_moves", moves, lambda: [_text(m) for m in moves]),
        ',"moves":',
        _moves_text(moves),
        ',"phase":"',
        seen.phase.name.lower(),
        '","players":',
        _kept("players", players, lambda: _players(seen, known)),
        ',"recall":',
        _dumps(seen.recall),
    ]
    if state.is_over:
        parts += [',"result":', _dumps(result_for(outcome(state)))]
    parts += [
        ',"round":',
        _number(seen.round),
        ',"seat":',
        _number(viewer),
        ',"shuffles":',
        _number(seen.shuffles),
        ',"turn":',
        _kept("turn", seen.turn, lambda: _turn(seen.turn)),
        ',"village_goods":',
        _villages(seen.board, seen.village_goods)[1],
        "}",
    ]
    return "".join(parts)


_FEED_FACE = {"type": "feed", "label": "feed", "name": "special feed"}


def _card_face(card: Card) -> dict[str, Any]:
    """What a card's face shows, for the page to draw it: its ``label`` (the
    text on it; a request shows its goods and points instead) and its ``name``."""
    if isinstance(card, RouteCard):
        return {
            "type": "route",
            "route": card.kind.code,
            "label": _text(card),
            "name": ROUTE_NAMES[card.kind],
        }
    if isinstance(card, RequestCard):
        return {
            "type": "request",
            "goods": _text(card.goods),
            "points": card.points,
            "name": "goods request",
        }
    if isinstance(card, ExtraGoodCard):
        return {"type": "extra", "label": "+1 extra", "name": "extra good"}
    return dict(_FEED_FACE)


def table_for(state: GameState) -> dict[str, Any]:
    """What stays the same for a whole game, for the page to draw it: the
    villages (their names, numbers, places on the picture and start
    villages), the routes, the face of every card of the game's catalogue,
    the seats' colours, and the colours and names the pictures give route
    kinds and goods (:mod:`troedler.svg.style`). Nothing in it is hidden
    from anyone."""
    board = state.board
    at = layout(board)
    starts = board.start_villages
    catalogue = state.cards
    cards: list[Card] = [*catalogue.routes, *catalogue.requests]
    cards += [s.request for s in catalogue.starting_sets]
    cards += [ExtraGoodCard()] if catalogue.extra_goods else []
    faces = {_text(card): _card_face(card) for card in cards}
    faces["feed"] = dict(_FEED_FACE)
    return {
        "villages": [
            {
                "name": village.name,
                "number": village.number,
                "x": at[village.name][0],
                "y": at[village.name][1],
                "start": starts.index(village.name) if village.name in starts else None,
            }
            for village in board.villages
        ],
        "routes": [{"ends": list(route.ends), "kind": route.kind.code} for route in board.routes],
        "route_kinds": [
            {
                "code": kind.code,
                "name": ROUTE_NAMES[kind],
                "colour": style.colour,
                "width": style.width,
                "dash": style.dash,
                "rails": style.rails,
            }
            for kind, style in ROUTE_STYLES.items()
        ],
        "goods": [
            {"code": good.code, "name": GOOD_NAMES[good], "colour": GOOD_COLOURS[good]}
            for good in Good
        ],
        "cards": faces,
        "seat_colours": [seat_colour(state, seat) for seat in range(state.num_players)],
        "start_colours": [
            SEAT_COLOURS[k % len(SEAT_COLOURS)] for k in range(len(board.start_villages))
        ],
        "colours": {
            "paper": PAPER,
            "ink": INK,
            "faint": FAINT,
            "village": VILLAGE_FILL,
            "highlight": HIGHLIGHT,
            **{f"card_{kind}": fill for kind, fill in CARD_FILL.items()},
        },
    }


_tables: dict[tuple[Hashable, ...], str] = {}


def table_text(state: GameState) -> str:
    """:func:`table_for` as JSON text, kept for each board, catalogue and
    number of players."""
    key = (state.board, state.cards, state.num_players)
    found = _tables.get(key)
    if found is None:
        if len(_tables) >= 64:
            _tables.clear()
        found = _tables[key] = _dumps(table_for(state))
    return found


def _dumps(data: object) -> str:
    if orjson is None:
        return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return orjson.dumps(data, option=orjson.OPT_SORT_KEYS).decode()


class Frame:
    """One message's fields that are the same for every recipient, written
    as JSON once; :meth:`to` gives a recipient's copy, with its position."""

    __slots__ = ("_bare", "_head", "_public", "_tail")

    def __init__(self, kind: str, /, **public: Any) -> None:
        self._public: dict[str, Any] = {"type": kind, "protocol": PROTOCOL, **public}
        self._bare: str | None = None
        self._head: str | None = None
        self._tail = ""

    def to(self, position: str | None) -> str:
        """The message's text, with ``position`` (JSON text) if not None."""
        if position is None:
            if self._bare is None:
                self._bare = _dumps(self._public)
            return self._bare
        if self._head is None:
            # The only "position" key of the message is at its top: the other
            # fields' objects have their own keys, and text in a value has its
            # quotes escaped.
            text = _dumps({**self._public, "position": None})
            self._head, _, self._tail = text.partition('"position":null')
        return f'{self._head}"position":{position}{self._tail}'


def message_for(
    viewer: int | None,
    kind: str,
    *,
    state: GameState | None = None,
    recall: Recall = "perfect",
    **public: Any,
) -> str:
    """The JSON text of one message of type ``kind`` to ``viewer`` (a seat, or
    None for a spectator).

    With ``state``, the message carries the position as the viewer may know
    it (:func:`position_for`). ``public`` are further fields, which must be
    the same for every recipient (a move's text, a version, names). The
    server sends a message to many recipients through :class:`Frame` and
    :func:`position_text`, as this function does for one.
    """
    position = None if state is None else position_text(state, viewer, recall)
    return Frame(kind, **public).to(position)
