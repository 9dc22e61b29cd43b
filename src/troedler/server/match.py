"""A match as a server process holds it in memory: its position, its seats,
its clocks, who watches it through this process and through the others,
and the texts of what it sends, written once a version."""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import json
from collections import OrderedDict
from typing import Any

import attrs

from troedler.bots import Bot
from troedler.core.legal import apply_move
from troedler.core.moves import Move
from troedler.core.scoring import outcome
from troedler.core.state import GameState
from troedler.io.records import GameRecord
from troedler.io.state_json import fingerprint
from troedler.server.connection import Close, Connection
from troedler.server.protocol import Frame, map_for, position_text, table_for
from troedler.server.settings import MatchSettings

__all__ = ["Live", "Seat", "hash_token"]

MAX_REMEMBERED = 64
"""Refused client move ids remembered per seat, to answer a repeat the same way."""


def hash_token(token: str) -> str:
    """What the database keeps of a seat token: its SHA-256, in hex."""
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


@attrs.define
class Seat:
    """A seat as the database keeps it."""

    name: str | None
    token_hash: str | None
    bot: str | None
    left: bool = False


Elsewhere = dict[str, tuple[tuple[int, ...], int]]
"""Who is connected to a match through each other process, by its name:
connections per seat, and spectators."""


def presence_row(seats: object, spectators: object) -> tuple[tuple[int, ...], int] | None:
    """One process's ``presence`` row (its seats as JSON), checked; None if
    the row is not one a process writes."""
    if not isinstance(seats, str) or type(spectators) is not int:
        return None
    try:
        counts = seat_counts(json.loads(seats))
    except ValueError:
        return None
    return None if counts is None else (counts, spectators)


def seat_counts(value: object) -> tuple[int, ...] | None:
    """Connections per seat as another process says them (a list of whole
    numbers), checked; None if they are not."""
    if not isinstance(value, list) or not all(type(count) is int for count in value):
        return None
    return tuple(value)


@attrs.define(eq=False)
class Live:
    """A match loaded into this process: to tell its connections what
    happens, and, where this process owns it, to run its clocks and bots."""

    id: str
    settings: MatchSettings
    first: GameState
    state: GameState
    status: str
    version: int
    seats: list[Seat]
    created: float
    history: list[tuple[int, str, int]] = attrs.field(factory=list)
    """(seat, move text, round it was made in) of every move made."""
    last_move: Move | None = None
    """The move that made the current version (None before the first)."""
    last_from: str | None = None
    """Where the cart of :attr:`last_move`'s mover stood before it."""
    accepted: dict[tuple[int, str], int] = attrs.field(factory=dict)
    """The version each client move id of each seat led to."""
    refused: dict[int, OrderedDict[str, str]] = attrs.field(factory=dict)
    deadline: float | None = None
    turn_started: float | None = None
    clocks: list[float] | None = None
    ending: dict[str, Any] | None = None
    rematch: str | None = None
    lock: asyncio.Lock = attrs.field(factory=asyncio.Lock)
    connections: set[Connection] = attrs.field(factory=set)
    elsewhere: Elsewhere = attrs.field(factory=dict)
    """Who is connected through each other process: per seat, and spectators."""
    owned: bool = False
    """Whether this process runs the match's clocks and bots."""
    bots: dict[int, Bot] = attrs.field(factory=dict)
    task: asyncio.Task[None] | None = None
    """The clock or bot that acts next in this match (its owner's)."""
    drawn: tuple[int, str] | None = None
    """The version last drawn by :meth:`map_svg`, and its map."""
    views: dict[int | None, str] = attrs.field(factory=dict)
    """The position's text for each recipient, at :attr:`viewed`."""
    viewed: int = -1
    fixed: dict[str, Any] | None = None
    """The match's :meth:`table`, once asked for."""

    def seat_of(self, token: object) -> int | None:
        """The seat ``token`` is for, compared in constant time; else None."""
        if not isinstance(token, str) or not 0 < len(token) <= 200:
            return None
        given = hash_token(token)
        found = None
        for seat, held in enumerate(self.seats):
            # Every seat is compared, so the time taken says nothing about which.
            if held.token_hash is not None and hmac.compare_digest(held.token_hash, given):
                found = seat
        return found

    def bot_at(self, seat: int) -> str | None:
        """The bot that plays ``seat`` now: its own, or the stand-in once its player left."""
        held = self.seats[seat]
        if held.bot is not None:
            return held.bot
        return self.settings.stand_in if held.left else None

    def here(self) -> tuple[tuple[int, ...], int]:
        """Who is connected through this process: connections per seat, and spectators."""
        counts = [0] * len(self.seats)
        spectators = 0
        for connection in self.connections:
            if connection.seat is None:
                spectators += 1
            else:
                counts[connection.seat] += 1
        return tuple(counts), spectators

    def presence(self) -> dict[str, Any]:
        """Who is connected, through any process: each seat, and how many spectators."""
        counts, spectators = self.here()
        seated = [count > 0 for count in counts]
        for others, watching in self.elsewhere.values():
            spectators += watching
            for seat, count in enumerate(others[: len(seated)]):
                seated[seat] = seated[seat] or count > 0
        return {"connected": seated, "spectators": spectators}

    def position(self, viewer: int | None) -> str:
        """The position's text for ``viewer``, written once a version: a
        recipient nobody connects as is never observed."""
        if self.viewed != self.version:
            self.views.clear()
            self.viewed = self.version
        text = self.views.get(viewer)
        if text is None:
            text = self.views[viewer] = position_text(self.state, viewer, self.settings.recall)
        return text

    def table(self) -> dict[str, Any]:
        """What stays the same for the whole match (:func:`table_for`)."""
        if self.fixed is None:
            self.fixed = table_for(self.first)
        return self.fixed

    def started(self) -> bool:
        """Whether the match has begun (its position is shown)."""
        return self.status != "waiting"

    def send(self, frame: Frame, *, with_position: bool = True) -> None:
        """``frame`` to every connection, each with its own position."""
        shown = with_position and self.started()
        for connection in list(self.connections):
            connection.send(frame.to(self.position(connection.seat) if shown else None))

    def close_given_up(self) -> None:
        """Close the sockets of seats whose token is no longer theirs (a seat
        given up before the start): they must not see or play for whoever
        takes it next."""
        for connection in list(self.connections):
            seat = connection.seat
            if seat is not None and self.seats[seat].token_hash != connection.token_hash:
                connection.close(Close.NORMAL, "the seat was given up")

    def advance(
        self, seat: int, move: Move, text: str, after: GameState, client_id: str | None
    ) -> None:
        """The move ``move`` (written ``text``) of ``seat`` made: the match is at ``after``."""
        self.history.append((seat, text, self.state.round))
        self.last_from = self.state.players[seat].cart
        self.state = after
        self.last_move = move
        self.version += 1
        if client_id is not None:
            self.accepted[(seat, client_id)] = self.version

    def replay_move(self, seat: int, text: str, move: Move, client_id: str | None) -> None:
        """A move another process made (already checked by it)."""
        self.advance(seat, move, text, apply_move(self.state, move, seat=seat), client_id)

    def remember_refusal(self, seat: int, client_id: str, answer: str) -> None:
        """Keep the answer to a refused move id (the last :data:`MAX_REMEMBERED` a seat)."""
        remembered = self.refused.setdefault(seat, OrderedDict())
        remembered[client_id] = answer
        while len(remembered) > MAX_REMEMBERED:
            remembered.popitem(last=False)

    def set_clock(self, changes: dict[str, Any]) -> None:
        """The clock columns of a write, applied here."""
        self.deadline = changes["deadline"]
        self.turn_started = changes["turn_started"]
        clocks = changes["clocks"]
        self.clocks = None if clocks is None else json.loads(clocks)

    def map_svg(self) -> str:
        """The map of the match's position as SVG (:func:`map_for`), drawn
        once a version."""
        if self.drawn is None or self.drawn[0] != self.version:
            names = [name[:24] for name in self.names()]
            self.drawn = (self.version, map_for(self.state, names))
        return self.drawn[1]

    def names(self) -> list[str]:
        """The name each seat is shown and recorded by: the person's; for a
        bot, its kind, numbered ``(1)``, ``(2)`` ... where several seats have
        the same kind; ``open seat`` for a seat nobody has taken yet."""
        kinds = [held.bot if held.name is None else None for held in self.seats]
        shown = []
        for seat, held in enumerate(self.seats):
            kind = kinds[seat]
            if held.name is not None:
                shown.append(held.name)
            elif kind is None:
                shown.append("open seat")
            elif kinds.count(kind) > 1:
                shown.append(f"{kind} ({kinds[: seat + 1].count(kind)})")
            else:
                shown.append(kind)
        return shown

    def seat_list(self) -> list[dict[str, Any]]:
        """The seats as the lobby shows them: name, bot, open or not, and
        the name shown (:meth:`names`)."""
        shown = self.names()
        return [
            {
                "seat": seat,
                "name": held.name,
                "bot": held.bot,
                "open": held.bot is None and held.token_hash is None,
                "left": held.left,
                "shown": shown[seat],
            }
            for seat, held in enumerate(self.seats)
        ]

    def summary(self) -> dict[str, Any]:
        """The match as the lobby lists it."""
        return {
            "match": self.id,
            "status": self.status,
            "version": self.version,
            "created": self.created,
            "settings": self.settings.to_data(),
            "seats": self.seat_list(),
            "ending": self.ending,
            "rematch": self.rematch,
            "deadline": self.deadline,
            "clocks": self.clocks,
        }

    def moves_made(self, since: int = 0) -> list[dict[str, Any]]:
        """The moves after version ``since``: each its version, seat, text and round."""
        return [
            {"version": number + 1, "seat": seat, "move": text, "round": made_in}
            for number, (seat, text, made_in) in enumerate(self.history)
            if number >= since
        ]

    def record(self) -> GameRecord:
        """The match's :class:`~troedler.GameRecord` (without result while not over)."""
        names = self.names()
        return GameRecord(
            rules=self.first.rules,
            fingerprint=fingerprint(self.first.board, self.first.cards),
            seed=self.first.seed,
            starting_dealer=self.first.dealer,
            seats=tuple(name[:64] for name in names),
            moves=tuple(text for _, text, _ in self.history),
            result=outcome(self.state) if self.state.is_over else None,
            movers=tuple(seat for seat, _, _ in self.history),
        )
