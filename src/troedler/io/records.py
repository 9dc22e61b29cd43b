"""Game records: everything needed to replay a game exactly, as JSON.

A record holds the rules, the fingerprint of the board and cards, the seed,
the starting dealer, the seats' names, every move in notation with the seat
that made it, and the result.
Replaying it from the seed reproduces every state. A record read from text is
checked completely, replay included: a move that is illegal where it stands,
or a stored result that the replay does not give, is a :class:`FormatError`
naming the field (``moves[17]``, ``result.points``). The result a record
holds is the :class:`~troedler.Outcome` its replay gives.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

import attrs

from troedler.core.board import Board
from troedler.core.cards import CardCatalogue, SpecialFeedCard, parse_card, sort_hand
from troedler.core.chance import new_game
from troedler.core.datafile import Fields, describe
from troedler.core.errors import (
    ConfigurationError,
    FormatError,
    IllegalMoveError,
    NotationError,
    quote,
)
from troedler.core.legal import apply_move
from troedler.core.limits import (
    MAX_MOVES,
    MAX_SEAT_NAME,
    check_seat_names,
    check_seed,
    seat_name_problem,
)
from troedler.core.moves import DiscardCard, EndTurn, Move
from troedler.core.rulebook import Rules, hand_limit_discards
from troedler.core.scoring import Outcome, outcome
from troedler.core.state import GameState, Phase
from troedler.io.fields import board_and_cards, read_preamble, rules_to_data
from troedler.io.notation import MAX_TEXT, parse_move
from troedler.io.state_json import fingerprint, load_json

__all__ = [
    "MAX_SEAT_NAME",
    "RECORD_FORMAT",
    "RECORD_VERSION",
    "GameRecord",
    "replay",
    "result_to_data",
]

RECORD_FORMAT = "troedler-record"
RECORD_VERSION = 3


MAX_RESULT_NUMBER = 10_000
"""The largest damage or points a stored result may hold: far beyond any game."""
_MOST_STAMP = 64
"""Longest fingerprint a record may name, in characters (troedler's have 16)."""
_END_DISCARD = ("end", "discard")
"""How version 1 began a move that ended the turn and discarded at once."""


def _as_tuple(value: Iterable[Any], what: str) -> tuple[Any, ...]:
    if isinstance(value, str | bytes) or not isinstance(value, Iterable):
        raise ConfigurationError(f"expected a sequence of {what}, got {quote(value)}")
    return tuple(value)


def _texts(value: Iterable[str]) -> tuple[str, ...]:
    return _as_tuple(value, "texts")


def _seats_or_none(value: Iterable[int] | None) -> tuple[int, ...] | None:
    return None if value is None else _as_tuple(value, "seats")


# repr=False: the generated repr lists every move.
@attrs.frozen(repr=False)
class GameRecord:
    """A whole game, or its beginning, as it can be stored and replayed.

    Building one checks every value against the domain that
    :meth:`from_json` reads (see :mod:`troedler.core.limits`): the seed, a
    printable name of 1 to 64 characters per seat, at most 100,000 moves of
    text, the starting dealer a seat; sequences become tuples.
    :class:`~troedler.ConfigurationError` otherwise. Whether the moves are
    legal is checked by :meth:`of_game` and when a record is read, by
    replaying it.
    """

    rules: Rules
    fingerprint: str
    """Of the board and cards the game was played with (see ``docs/format.md``)."""
    seed: int
    starting_dealer: int
    seats: tuple[str, ...] = attrs.field(converter=_texts)
    """A name for each seat, in seat order."""
    moves: tuple[str, ...] = attrs.field(converter=_texts)
    """Every move in notation, in the order made."""
    result: Outcome | None
    """The scoring of the finished game (:func:`troedler.outcome` of its last
    state); None while the game is not over."""
    movers: tuple[int, ...] | None = attrs.field(default=None, converter=_seats_or_none)
    """The seat that made each move, one per move; None when the record was
    built without them. :meth:`of_game` and :meth:`from_json` always fill them
    in from the replay."""

    def __attrs_post_init__(self) -> None:
        if not isinstance(self.rules, Rules):
            raise ConfigurationError(f"a record needs Rules, not {quote(self.rules)}")
        n = self.rules.num_players
        if not isinstance(self.fingerprint, str) or not 0 < len(self.fingerprint) <= _MOST_STAMP:
            raise ConfigurationError(f"expected a fingerprint, got {quote(self.fingerprint)}")
        check_seed(self.seed)
        if type(self.starting_dealer) is not int or not 0 <= self.starting_dealer < n:
            raise ConfigurationError(
                f"S3: the starting dealer is a seat 0 to {n - 1}, not {quote(self.starting_dealer)}"
            )
        check_seat_names(self.seats, n)
        if len(self.moves) > MAX_MOVES:
            raise ConfigurationError(
                f"a record holds at most {MAX_MOVES} moves, not {len(self.moves)}"
            )
        for i, move in enumerate(self.moves):
            if not isinstance(move, str) or len(move) > MAX_TEXT:
                raise ConfigurationError(
                    f"moves[{i}]: expected a move in notation, not {quote(move)}"
                )
        movers = self.movers
        if movers is not None and (
            len(movers) != len(self.moves)
            or any(type(seat) is not int or not 0 <= seat < n for seat in movers)
        ):
            raise ConfigurationError(f"movers: expected a seat 0 to {n - 1} for each move")
        result = self.result
        if result is not None and (
            not isinstance(result, Outcome) or len(result.damage) != n or len(result.points) != n
        ):
            raise ConfigurationError(
                f"expected None or an Outcome for {n} seats, not {quote(result)}"
            )

    def __repr__(self) -> str:
        if self.result is None:
            end = "not finished"
        else:
            end = "won by " + ", ".join(f"seat {seat}" for seat in sorted(self.result.winners))
        return (
            f"<GameRecord: {len(self.seats)} players, seed {self.seed}, "
            f"{len(self.moves)} moves, {end}>"
        )

    def _repr_svg_(self) -> str | None:
        """The game's last position as a picture, for Jupyter; None if it does
        not replay on troedler's own board and cards."""
        # Imported here, not at the top: the core never imports the pictures
        # package, which sits on top of it (python-chess does the same).
        from troedler.svg import board  # noqa: PLC0415

        try:
            states = replay(self)
        except FormatError:
            return None
        if not self.moves:
            return board(states[0], names=self.seats, size=900)
        last = parse_move(self.moves[-1], states[-2])
        return board(states[-1], last_move=last, before=states[-2], names=self.seats, size=900)

    @property
    def format_version(self) -> int:
        """The version of the record format this record is written in."""
        return RECORD_VERSION

    @classmethod
    def of_game(
        cls, first: GameState, moves: Sequence[Move], *, seats: Sequence[str] | None = None
    ) -> GameRecord:
        """The record of a game that began with ``first`` and went on with ``moves``.

        ``first`` must be a state :func:`troedler.new_game` returns; the moves
        are applied to check them and to find the result. ``seats`` are 1 to
        64 printable characters each (see :mod:`troedler.core.limits`); at most
        100,000 moves. :class:`~troedler.ConfigurationError` otherwise.
        """
        if not isinstance(first, GameState):
            raise ConfigurationError(f"a record begins with a GameState, not {quote(first)}")
        n = first.num_players
        again = _first_state(first.rules, first.seed, first.dealer, first.board, first.cards)
        if again != first or first.round != 1:
            raise ConfigurationError("a record begins with a state new_game returned")
        names = check_seat_names(seats if seats is not None else (f"seat {i}" for i in range(n)), n)
        moves = tuple(moves)
        if len(moves) > MAX_MOVES:
            raise ConfigurationError(f"a record holds at most {MAX_MOVES} moves, not {len(moves)}")
        states = [first]
        for move in moves:
            states.append(apply_move(states[-1], move))
        state = states[-1]
        return cls(
            rules=first.rules,
            fingerprint=fingerprint(first.board, first.cards),
            seed=first.seed,
            starting_dealer=first.dealer,
            seats=names,
            moves=tuple(str(move) for move in moves),
            result=outcome(state) if state.is_over else None,
            movers=_movers(states),
        )

    def to_json(self) -> str:
        """The record as JSON text (see ``docs/format.md``); ``movers`` is
        written when the record holds them."""
        data: dict[str, Any] = {
            "format": RECORD_FORMAT,
            "version": RECORD_VERSION,
            "rules": rules_to_data(self.rules),
            "fingerprint": self.fingerprint,
            "seed": self.seed,
            "starting_dealer": self.starting_dealer,
            "seats": list(self.seats),
            "moves": list(self.moves),
        }
        if self.movers is not None:
            data["movers"] = list(self.movers)
        data["result"] = None if self.result is None else result_to_data(self.result)
        return json.dumps(data, indent=1)

    @classmethod
    def from_json(
        cls, text: str | bytes, *, board: Board | None = None, cards: CardCatalogue | None = None
    ) -> GameRecord:
        """The record written as ``text``, checked completely, replay included.

        ``board`` and ``cards`` default to troedler's own. Raises
        :class:`FormatError` naming the offending field.
        """
        top = Fields("record", "", load_json(text, "record"))
        top.only(
            "format", "version", "rules", "fingerprint", "seed", "starting_dealer",
            "seats", "moves", "movers", "result",
        )  # fmt: skip
        preamble = read_preamble(top, RECORD_FORMAT, RECORD_VERSION, board, cards)
        rules, board, cards = preamble.rules, preamble.board, preamble.cards
        n = rules.num_players
        dealer = top.integer("starting_dealer", 0, n - 1)
        seats = []
        for path, value in top.items("seats", n):
            problem = seat_name_problem(value)
            if problem is not None or not isinstance(value, str):
                raise FormatError("record", path, problem or "expected a seat name")
            seats.append(value)
        if len(seats) != n:
            raise top.error("seats", f"expected {n} seat names for these rules, got {len(seats)}")
        moves = []
        for path, value in top.items("moves", MAX_MOVES):
            if not isinstance(value, str) or len(value) > MAX_TEXT:
                raise FormatError(
                    "record", path, f"expected a move in notation, got {describe(value)}"
                )
            moves.append(value)
        if preamble.version == 1:
            first = _start(rules, preamble.seed, dealer, board, cards)
            moves = _moves_of_version_1(first, moves)
        record = cls(
            rules=rules,
            fingerprint=fingerprint(board, cards),
            seed=preamble.seed,
            starting_dealer=dealer,
            seats=tuple(seats),
            moves=tuple(moves),
            result=None,
        )
        stored = _result_from(top, n)
        states = _replay(record, board, cards)
        movers = _movers(states)
        if "movers" in top.table:
            _check_movers(top, movers)
        record = attrs.evolve(record, movers=movers)
        final = states[-1]
        if not final.is_over:
            if stored is not None:
                raise top.error("result", "the moves do not finish the game, so it has no result")
            return record
        replayed = outcome(final)
        if stored is None:
            raise top.error("result", "the moves finish the game, so it needs its result")
        for key, value in result_to_data(replayed).items():
            if stored[key] != value:
                raise top.error(
                    f"result.{key}", f"the replay gives {value}, the record says {stored[key]}"
                )
        return attrs.evolve(record, result=replayed)


def result_to_data(result: Outcome) -> dict[str, list[int]]:
    """The ``result`` of a record in JSON: damage and points per seat, the
    totally damaged seats and the winners in seat order (see ``docs/format.md``)."""
    return {
        "damage": list(result.damage),
        "points": list(result.points),
        "totally_damaged": sorted(result.totally_damaged),
        "winners": sorted(result.winners),
    }


def _movers(states: Sequence[GameState]) -> tuple[int, ...]:
    """The seat to move before each move: every state but the last."""
    seats = []
    for state in states[:-1]:
        if state.current_player is None:
            # A record's moves are the players'; the seed answers every chance node.
            raise ConfigurationError("a record holds the moves of a game whose seed deals")
        seats.append(state.current_player)
    return tuple(seats)


def _check_movers(top: Fields, replayed: tuple[int, ...]) -> None:
    """The stored ``movers`` must be the seat to move before each move of the replay."""
    items = top.items("movers", MAX_MOVES)
    if len(items) != len(replayed):
        raise top.error("movers", f"expected one seat per move, {len(replayed)} in all")
    for (path, value), seat in zip(items, replayed, strict=True):
        if type(value) is not int or value != seat:
            raise FormatError(
                "record", path, f"the replay gives seat {seat} to move, not {describe(value)}"
            )


def _result_from(top: Fields, n: int) -> dict[str, list[int]] | None:
    """The stored result's numbers, checked for their form; the replay checks them."""
    if top.get("result") is None:
        return None
    table = top.table_at("result")
    table.only("damage", "points", "totally_damaged", "winners")

    def numbers(key: str, length: int | None) -> list[int]:
        values = []
        for path, value in table.items(key, n):
            if type(value) is not int or not 0 <= value <= MAX_RESULT_NUMBER:
                raise FormatError(
                    "record",
                    path,
                    f"expected a number 0 to {MAX_RESULT_NUMBER}, got {describe(value)}",
                )
            values.append(value)
        if length is not None and len(values) != length:
            raise table.error(key, f"expected {length} numbers, one per seat, got {len(values)}")
        return values

    return {
        "damage": numbers("damage", n),
        "points": numbers("points", n),
        "totally_damaged": numbers("totally_damaged", None),
        "winners": numbers("winners", None),
    }


def _first_state(
    rules: Rules, seed: int, starting_dealer: int, board: Board, cards: CardCatalogue
) -> GameState:
    """The state a recorded game begins with: :func:`~troedler.new_game` of
    what the record says of it."""
    return new_game(
        rules.num_players,
        seed=seed,
        starting_dealer=starting_dealer,
        board=board,
        rules=rules,
        cards=cards,
    )


def _start(
    rules: Rules, seed: int, starting_dealer: int, board: Board, cards: CardCatalogue
) -> GameState:
    """:func:`_first_state` of a record read from outside: a game it cannot
    start is a :class:`FormatError`."""
    try:
        return _first_state(rules, seed, starting_dealer, board, cards)
    except ConfigurationError as error:
        raise FormatError("record", "", f"cannot start its game: {error}") from None


def _replay(record: GameRecord, board: Board, cards: CardCatalogue) -> tuple[GameState, ...]:
    state = _start(record.rules, record.seed, record.starting_dealer, board, cards)
    states = [state]
    for i, text in enumerate(record.moves):
        try:
            state = apply_move(state, parse_move(text, state))
        except (NotationError, IllegalMoveError) as error:
            raise FormatError("record", f"moves[{i}]", f"{quote(text)}: {error}") from None
        states.append(state)
    return tuple(states)


def _moves_of_version_1(state: GameState, moves: list[str]) -> list[str]:
    """Version-1 moves, of the game that begins with ``state``, in today's notation.

    Version 1 ended a turn and discarded down to the hand limit in one move,
    ``end discard ferry AB:3``; now that is ``end``, then a ``discard`` move
    for each card the player still has a choice about.
    """
    converted: list[str] = []
    for i, text in enumerate(moves):
        try:
            words = text.split()
            head = tuple(word.lower() for word in words[: len(_END_DISCARD)])
            if head == _END_DISCARD and len(words) > len(_END_DISCARD):
                state = _end_turn_of_version_1(state, words[len(_END_DISCARD) :], converted)
            else:
                move = parse_move(text, state)
                state = apply_move(state, move)
                converted.append(str(move))
        except (NotationError, IllegalMoveError) as error:
            raise FormatError("record", f"moves[{i}]", f"{quote(text)}: {error}") from None
    return converted


def _end_turn_of_version_1(state: GameState, codes: list[str], converted: list[str]) -> GameState:
    """Apply ``end discard`` + ``codes`` of version 1, adding today's moves to ``converted``."""
    discard = sort_hand(parse_card(code) for code in codes)
    seat = state.current_player
    if seat is None or state.phase is not Phase.PLAY_TURNS:
        raise IllegalMoveError("T1", "a turn ends only in the turns phase")
    hand = state.players[seat].hand
    required, _ = hand_limit_discards(hand, state.rules.hand_limit)
    if len(discard) != required or any(type(card) is SpecialFeedCard for card in discard):
        raise IllegalMoveError(
            "T7", f"seat {seat} must discard exactly {required} cards other than special feed"
        )
    state = apply_move(state, EndTurn())
    converted.append(str(EndTurn()))
    # Discards go in hand order, and the engine makes every discard that
    # leaves no choice itself: those are always the next cards of the list.
    while state.turn.discards_due:
        move = DiscardCard(discard[required - state.turn.discards_due])
        state = apply_move(state, move)
        converted.append(str(move))
    return state


def replay(
    record: GameRecord, *, board: Board | None = None, cards: CardCatalogue | None = None
) -> tuple[GameState, ...]:
    """Every state of the recorded game, the first (from ``new_game``) to the last.

    ``board`` and ``cards`` default to troedler's own and must match the
    record's fingerprint; a move that does not apply where it stands is a
    :class:`FormatError` naming it (``moves[17]``).
    """
    if not isinstance(record, GameRecord):
        raise ConfigurationError(f"replay needs a GameRecord, not {quote(record)}")
    fields = Fields("record", "", {"fingerprint": record.fingerprint})
    board, cards = board_and_cards(fields, board, cards)
    return _replay(record, board, cards)
