"""The position text: a whole game state on one line, as FEN is for chess.

:func:`position_text` writes a state as a line of ``key=value`` fields,
:func:`from_position_text` reads it back: ``from_position_text(position_text(state))
== state`` for every state a game can reach, seeded or with explicit chance,
in every phase. The grammar is in ``docs/format.md``.

>>> from troedler import new_game
>>> state = new_game(2, seed=1)
>>> text = position_text(state)
>>> text.split()[:7]
['players=2', 'seed=1', 'shuffles=4', 'round=1', 'phase=take_piles', 'dealer=0', 'to_move=0']
>>> from_position_text(text) == state
True

Text from outside is read without trusting it: anything malformed, hostile
or unreachable raises :class:`~troedler.FormatError` naming the field at
fault (``position: seats[1].hand: ...``), after work bounded by the
length of the text, which is at most :data:`MAX_POSITION_CHARS`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from troedler.core.board import Board, default_board
from troedler.core.cards import (
    EXTRA_GOOD,
    MAX_POINTS,
    ROUTE_CARDS,
    SPECIAL_FEED,
    Card,
    CardCatalogue,
    RequestCard,
    default_cards,
    fingerprint,
    sort_hand,
)
from troedler.core.errors import ConfigurationError, FormatError, NotationError, quote, some_of
from troedler.core.goods import TOTAL_GOODS, Goods
from troedler.core.invariants import located_problems, problems
from troedler.core.limits import MAX_ROUNDS, MAX_SEED, MAX_SHUFFLES, MIN_SEED
from troedler.core.pile import Pile
from troedler.core.rulebook import MAX_CARDS, OPTION_RANGES, Rules
from troedler.core.state import GameState, Phase, PlayerState, Turn

__all__ = ["MAX_POSITION_CHARS", "card_codes", "from_position_text", "position_text"]

MAX_POSITION_CHARS = 20_000
"""Longest position text read: a real one is a few hundred characters."""
MAX_CARDS_IN_LIST = MAX_CARDS
"""Most cards one list of a position may hold (as in the JSON formats)."""

_SOURCE = "position"

# One letter per card other than a goods request, followed by a count where
# two or more lie together ("s3"); a request is its goods letters (upper
# case) followed by its points, as "AAB5".
_ROUTE_LETTERS = "tbfm"
_LETTER_CARDS: dict[str, Card] = {
    **{letter: ROUTE_CARDS[i] for i, letter in enumerate(_ROUTE_LETTERS)},
    "e": EXTRA_GOOD,
    "s": SPECIAL_FEED,
}
_CARD_LETTERS = {card: letter for letter, card in _LETTER_CARDS.items()}
_REQUEST = re.compile(r"([A-Z]+)([0-9]{1,3})")
_GOODS = re.compile(r"[A-Z]+\Z")
_LIST_ITEM = re.compile(r"([a-z])([0-9]{0,3})|([A-Z]+)([0-9]{1,3})")

_PHASES = {phase.name.lower(): phase for phase in Phase}

_TEXT_FIELDS = {
    "shuffles": "shuffles",
    "round": "round",
    "dealer": "dealer",
    "phase": "phase",
    "current_player": "to_move",
    "game_round_pile": "pile",
    "dealer_piles": "piles",
    "discard_pile": "discard",
    "village_goods": "villages",
    "players": "seats",
    "turn": "turn",
}
"""The field of the text that holds each field of a state, to name it in errors."""

# Rules options other than the player count, written only where they differ
# from the rulebook's (Rules.for_players), in this order.
_RULE_OPTIONS = (
    "end_threshold",
    "two_player_rules",
    "hand_limit",
    "setup_requests",
    "setup_feed",
    "reshuffle_mid_forming",
    "explicit_chance",
)
_BOOLEAN_OPTIONS = frozenset(("two_player_rules", "reshuffle_mid_forming", "explicit_chance"))
_STATE_KEYS = (
    "seed",
    "shuffles",
    "round",
    "phase",
    "dealer",
    "to_move",
    "pile",
    "piles",
    "discard",
    "villages",
    "seats",
    "turn",
)
_KEYS = ("players", *_RULE_OPTIONS, "board", *_STATE_KEYS)
_OPTIONAL = frozenset((*_RULE_OPTIONS, "board"))
_KEY_ORDER = {key: i for i, key in enumerate(_KEYS)}
_FIELD = re.compile(r"([a-z_]+)=(\S+)\Z")
_PRINTABLE = re.compile(r"[!-~]+(?: [!-~]+)*\Z")


# --- writing -----------------------------------------------------------------


def _card_code(card: Card) -> str:
    if isinstance(card, RequestCard):
        return f"{card.goods}{card.points}"
    return _CARD_LETTERS[card]


def card_codes(cards: Iterable[Card]) -> str:
    """``cards`` as a position text lists them: ``"ts3AAB5"``, ``"-"`` for none.

    >>> from troedler import parse_card
    >>> card_codes(map(parse_card, ["trail", "feed", "feed", "feed", "AAB:5"]))
    'ts3AAB5'
    """
    words: list[str] = []
    run = 0
    last: Card | None = None
    for card in cards:
        if last is not None and type(card) is not RequestCard and card == last:
            run += 1
            continue
        if run > 1:
            words.append(str(run))
        words.append(_card_code(card))
        last, run = card, 1
    if run > 1:
        words.append(str(run))
    return "".join(words) or "-"


def _boolean(value: bool) -> str:
    return "yes" if value else "no"


def position_text(state: GameState) -> str:
    """``state`` as one line of text that :func:`from_position_text` reads back.

    Only a state a game can reach is written (one that passes
    :func:`troedler.check_invariants`); any other raises
    :class:`~troedler.ConfigurationError` naming what is wrong.
    """
    if not isinstance(state, GameState):
        raise ConfigurationError(f"expected a GameState, got {quote(state)}")
    found = problems(state)
    if found:
        raise ConfigurationError(
            "cannot write a state no game can reach: " + some_of(found, 3, separator="; ")
        )
    rules = state.rules
    fields = [f"players={rules.num_players}"]
    default = Rules.for_players(rules.num_players)
    for name in _RULE_OPTIONS:
        value = getattr(rules, name)
        if value != getattr(default, name):
            fields.append(f"{name}={_boolean(value) if name in _BOOLEAN_OPTIONS else value}")
    stamp = fingerprint(state.board, state.cards)
    if stamp != fingerprint(default_board(), default_cards()):
        fields.append(f"board={stamp}")
    turn = state.turn
    if turn == Turn():
        turn_text = "-"
    else:
        last = "-" if turn.last_discard is None else _card_code(turn.last_discard)
        delivered = ",".join(turn.delivered_to) or "-"
        turn_text = f"{card_codes(turn.played)}:{delivered}:{turn.discards_due}:{last}"
    piles = "/".join("x" if pile is None else card_codes(pile) for pile in state.dealer_piles)
    fields += [
        f"seed={state.seed}",
        f"shuffles={state.shuffles}",
        f"round={state.round}",
        f"phase={state.phase.name.lower()}",
        f"dealer={state.dealer}",
        f"to_move={'-' if state.current_player is None else state.current_player}",
        f"pile={card_codes(state.game_round_pile)}",
        f"piles={piles or '-'}",
        f"discard={card_codes(state.discard_pile.cards)}",
        "villages=" + "/".join(map(str, state.village_goods)),
        "seats="
        + "/".join(
            f"{p.cart}:{card_codes(p.hand)}:{p.goods}:{card_codes(p.value_pile)}"
            for p in state.players
        ),
        f"turn={turn_text}",
    ]
    return " ".join(fields)


# --- reading -------------------------------------------------------------------


def _error(part: str, message: str) -> FormatError:
    return FormatError(_SOURCE, part, message)


def _short(text: str) -> str:
    return quote(text, 40)


def _integer(part: str, text: str, low: int, high: int) -> int:
    # Digits only, and no more than the bound has: int() of a long string
    # costs quadratic time, and "+1" or "1_0" are no way to write a number.
    if not text.isdigit() or not text.isascii() or len(text) > len(str(high)):
        raise _error(part, f"expected a whole number {low} to {high}, got {_short(text)}")
    value = int(text)
    if not low <= value <= high:
        raise _error(part, f"expected a whole number {low} to {high}, got {value}")
    return value


def _seat(part: str, text: str, players: int) -> int:
    return _integer(part, text, 0, players - 1)


def _cards(part: str, text: str) -> tuple[Card, ...]:
    """The cards of one list: ``-`` for none."""
    if text == "-":
        return ()
    found: list[Card] = []
    position = 0
    for match in _LIST_ITEM.finditer(text):
        if match.start() != position:
            break
        position = match.end()
        letter, count, goods, points = match.groups()
        cards: tuple[Card, ...]
        if letter is None:
            cards = (_request(f"{part}[{len(found)}]", goods, points),)
        else:
            card = _LETTER_CARDS.get(letter)
            if card is None:
                raise _error(
                    part, f"card {len(found)}: {_short(letter)} is no card (t b f m e s or AAB5)"
                )
            times = _integer(f"{part}[{len(found)}]", count, 1, MAX_CARDS_IN_LIST) if count else 1
            cards = (card,) * times
        if len(found) + len(cards) > MAX_CARDS_IN_LIST:
            raise _error(part, f"holds more than {MAX_CARDS_IN_LIST} cards")
        found.extend(cards)
    if position != len(text):
        raise _error(
            part,
            f"card {len(found)}: {_short(text[position:])} is no card "
            "(t b f m e s, a request like AAB5, or - for none)",
        )
    return tuple(found)


def _request(part: str, goods_text: str, points_text: str) -> RequestCard:
    points = _integer(part, points_text, 1, MAX_POINTS)
    try:
        return RequestCard(Goods.parse(goods_text), points)
    except (NotationError, ConfigurationError, ValueError) as error:
        raise _error(part, f"no goods request: {error}") from None


def _goods(part: str, text: str) -> Goods:
    if len(text) > TOTAL_GOODS:
        raise _error(part, f"holds {len(text)} goods, more than {TOTAL_GOODS}")
    if text != "-" and not _GOODS.match(text):
        raise _error(part, f"expected goods letters like AAP, or - for none, got {_short(text)}")
    try:
        return Goods.parse(text)
    except NotationError as error:
        raise _error(part, str(error)) from None


def _village(part: str, text: str, board: Board) -> str:
    if not board.has_village(text):
        raise _error(part, f"expected a village of the board, got {_short(text)}")
    return text


def _items(part: str, text: str, separator: str, most: int) -> list[str]:
    items = text.split(separator, most)
    if len(items) > most:
        raise _error(part, f"holds more than {most} entries")
    return items


def _fields(text: object) -> dict[str, str]:
    if not isinstance(text, str):
        raise _error("", f"expected a position text, got {type(text).__name__}")
    if len(text) > MAX_POSITION_CHARS:
        raise _error("", f"is {len(text)} characters, more than {MAX_POSITION_CHARS}")
    text = text.strip()
    if not _PRINTABLE.match(text):
        raise _error("", "expected printable ASCII fields key=value, each separated by one space")
    fields: dict[str, str] = {}
    last = -1
    for word in text.split(" ", len(_KEYS)):
        match = _FIELD.match(word)
        if match is None:
            raise _error("", f"expected a field key=value, got {_short(word)}")
        key, value = match.groups()
        if key not in _KEY_ORDER:
            raise _error(key, f"unknown field; expected one of {', '.join(_KEYS)}")
        if key in fields:
            raise _error(key, "is given twice")
        if _KEY_ORDER[key] < last:
            raise _error(key, f"comes out of order; the order is {' '.join(_KEYS)}")
        last = _KEY_ORDER[key]
        fields[key] = value
    for key in _KEYS:
        if key not in fields and key not in _OPTIONAL:
            raise _error(key, "is missing")
    return fields


def _rules(fields: dict[str, str]) -> Rules:
    players = _integer("players", fields["players"], 2, 4)
    options: dict[str, bool | int] = {}
    for name in _RULE_OPTIONS:
        if name not in fields:
            continue
        value = fields[name]
        if name in _BOOLEAN_OPTIONS:
            if value not in ("yes", "no"):
                raise _error(name, f"expected yes or no, got {_short(value)}")
            options[name] = value == "yes"
        else:
            options[name] = _integer(name, value, *OPTION_RANGES[name])
    try:
        return Rules.for_players(players, **options)
    except ConfigurationError as error:
        raise _error("players", f"no rules: {error}") from None


def _material(
    fields: dict[str, str], board: Board | None, cards: CardCatalogue | None
) -> tuple[Board, CardCatalogue]:
    board = default_board() if board is None else board
    cards = default_cards() if cards is None else cards
    default = fingerprint(default_board(), default_cards())
    named = fields.get("board", default)
    expected = fingerprint(board, cards)
    if named != expected:
        if "board" not in fields:
            raise _error(
                "board",
                f"is missing: the text is of troedler's own board and cards, not of "
                f"those passed ({expected!r})",
            )
        raise _error(
            "board",
            f"the game used another board or cards ({_short(named)}); these give "
            f"{expected!r}: pass the board and cards it was played with",
        )
    return board, cards


def from_position_text(
    text: str, *, board: Board | None = None, cards: CardCatalogue | None = None
) -> GameState:
    """The game state written as ``text`` by :func:`position_text`.

    ``board`` and ``cards`` default to troedler's own; a position of a game
    played with others names their fingerprint in its ``board`` field and
    needs them passed in. Raises :class:`~troedler.FormatError` naming the
    field at fault for anything that is not a position a game can reach.
    """
    fields = _fields(text)
    rules = _rules(fields)
    board, cards = _material(fields, board, cards)
    n = rules.num_players
    phase_name = fields["phase"]
    if phase_name not in _PHASES:
        raise _error("phase", f"expected one of {', '.join(_PHASES)}, got {_short(phase_name)}")
    to_move = fields["to_move"]
    current = None if to_move == "-" else _seat("to_move", to_move, n)
    piles_text = fields["piles"]
    piles: list[tuple[Card, ...] | None] = []
    if piles_text != "-":
        for j, item in enumerate(_items("piles", piles_text, "/", n + 1)):
            piles.append(None if item == "x" else _cards(f"piles[{j}]", item))
    villages = _items("villages", fields["villages"], "/", len(board.villages))
    if len(villages) != len(board.villages):
        raise _error(
            "villages", f"expected goods for {len(board.villages)} villages, got {len(villages)}"
        )
    village_goods = tuple(
        _goods(f"villages[{i}] ({board.villages[i].name})", item) for i, item in enumerate(villages)
    )
    seats = _items("seats", fields["seats"], "/", n)
    if len(seats) != n:
        raise _error("seats", f"expected {n} seats for these rules, got {len(seats)}")
    players = []
    for seat, item in enumerate(seats):
        part = f"seats[{seat}]"
        entries = _items(part, item, ":", 4)
        if len(entries) != 4:
            raise _error(part, "expected cart:hand:goods:value-pile")
        cart, hand, goods, value = entries
        players.append(
            PlayerState(
                cart=_village(f"{part}.cart", cart, board),
                hand=sort_hand(_cards(f"{part}.hand", hand)),
                goods=_goods(f"{part}.goods", goods),
                value_pile=sort_hand(_cards(f"{part}.value_pile", value)),
            )
        )
    turn = _turn(fields["turn"], board)
    state = GameState(
        rules=rules,
        board=board,
        cards=cards,
        seed=_integer("seed", fields["seed"], MIN_SEED, MAX_SEED),
        shuffles=_integer("shuffles", fields["shuffles"], 0, MAX_SHUFFLES),
        round=_integer("round", fields["round"], 1, MAX_ROUNDS),
        dealer=_seat("dealer", fields["dealer"], n),
        phase=_PHASES[phase_name],
        current_player=current,
        game_round_pile=_cards("pile", fields["pile"]),
        dealer_piles=tuple(piles),
        discard_pile=Pile.of(_cards("discard", fields["discard"])),
        village_goods=village_goods,
        players=tuple(players),
        turn=turn,
    )
    found = located_problems(state)
    if found:
        field, problem = found[0]
        raise _error(_TEXT_FIELDS.get(field, ""), f"is not a state a game can reach: {problem}")
    return state


def _turn(text: str, board: Board) -> Turn:
    if text == "-":
        return Turn()
    entries = _items("turn", text, ":", 4)
    if len(entries) != 4:
        raise _error("turn", "expected - or played:delivered:discards-due:last-discard")
    played, delivered, due, last = entries
    villages = () if delivered == "-" else _items("turn.delivered", delivered, ",", 32)
    last_cards = () if last == "-" else _cards("turn.last_discard", last)
    if len(last_cards) > 1:
        raise _error("turn.last_discard", "expected one card or -")
    return Turn(
        played=_cards("turn.played", played),
        delivered_to=tuple(_village("turn.delivered", name, board) for name in villages),
        discards_due=_integer("turn.discards_due", due, 0, MAX_CARDS_IN_LIST),
        last_discard=last_cards[0] if last_cards else None,
    )
