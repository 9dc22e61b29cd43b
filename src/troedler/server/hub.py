"""The matches a server process is running: their positions in memory, the
connections watching them, their clocks and their bots.

Every change goes to the database first and is committed; only then is it
acknowledged and broadcast. Moves of one match are applied one at a time
(its lock); the match's version is also checked by the database
(:func:`troedler.server.store.append_move`), and so is that this process
still holds the match's lease: a second process sharing a PostgreSQL
database cannot apply a move twice, and a process that stood still past
its lease writes nothing after the new owner read the match.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import random
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import attrs
from sqlalchemy import func, insert, or_, select, update
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from troedler.bots import Bot
from troedler.bots.base import tell_game_over
from troedler.core.cards import fingerprint
from troedler.core.chance import new_game
from troedler.core.errors import TroedlerError
from troedler.core.legal import apply_move, legal_moves
from troedler.core.moves import Move
from troedler.core.scoring import outcome
from troedler.core.state import GameState
from troedler.io.notation import parse_move
from troedler.io.records import GameRecord
from troedler.seat import observe
from troedler.server.protocol import map_for, message_for
from troedler.server.settings import BadRequest, MatchSettings, check_name
from troedler.server.store import (
    append_move,
    dumps,
    match_row,
    matches,
    moves,
    seats,
    take_lease,
)
from troedler.simulation.lineup import bot_from_text

__all__ = ["Connection", "Elsewhere", "Hub", "Live", "hash_token"]

MAX_REMEMBERED = 64
"""Refused client move ids remembered per seat, to answer a repeat the same way."""
OUTBOX = 512
"""Messages queued for one connection before it counts as too slow and is closed."""


class _Taken(Exception):
    """A write refused: another process owns the match now."""


class Elsewhere(Exception):
    """The match is served by another process now, at ``address`` ("" if unknown)."""

    def __init__(self, address: str) -> None:
        super().__init__(f"the match is served by another process: {address or 'unknown'}")
        self.address = address


def hash_token(token: str) -> str:
    """What the database keeps of a seat token: its SHA-256, in hex."""
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


class Connection:
    """One websocket's place in a match: its seat (None: a spectator) and
    its queue of messages, which a writer task sends in order."""

    def __init__(self, seat: int | None) -> None:
        self.seat = seat
        self.outbox: asyncio.Queue[str | None] = asyncio.Queue(OUTBOX)
        self.closed = False

    def send(self, text: str) -> None:
        """Queue ``text``; a connection that lets its queue fill up is closed."""
        if self.closed:
            return
        try:
            self.outbox.put_nowait(text)
        except asyncio.QueueFull:
            self.close()

    def close(self) -> None:
        """Stop the connection's writer (after what is queued)."""
        if not self.closed:
            self.closed = True
            if self.outbox.full():  # the stop must get in, or the writer waits for ever
                self.outbox.get_nowait()
            self.outbox.put_nowait(None)


@attrs.define
class Seat:
    """A seat as the database keeps it."""

    name: str | None
    token_hash: str | None
    bot: str | None
    left: bool = False


@attrs.define(eq=False)
class Live:
    """A match loaded into this process."""

    id: str
    settings: MatchSettings
    first: GameState
    state: GameState
    status: str
    version: int
    seats: list[Seat]
    created: float
    history: list[tuple[int, str]] = attrs.field(factory=list)
    """(seat, move text) of every move made."""
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
    bots: dict[int, Bot] = attrs.field(factory=dict)
    task: asyncio.Task[None] | None = None
    """The clock or bot that acts next in this match."""
    drawn: tuple[int, str] | None = None
    """The version last drawn by :meth:`map_svg`, and its map."""

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

    def presence(self) -> dict[str, Any]:
        """Who is connected: each seat, and how many spectators."""
        seated = {c.seat for c in self.connections if c.seat is not None}
        return {
            "connected": [seat in seated for seat in range(len(self.seats))],
            "spectators": sum(c.seat is None for c in self.connections),
        }

    def map_svg(self) -> str:
        """The map of the match's position as SVG (:func:`map_for`), drawn
        once a version."""
        if self.drawn is None or self.drawn[0] != self.version:
            names = [
                (held.name or (f"bot {held.bot}" if held.bot else f"seat {seat}"))[:24]
                for seat, held in enumerate(self.seats)
            ]
            self.drawn = (self.version, map_for(self.state, names))
        return self.drawn[1]

    def seat_list(self) -> list[dict[str, Any]]:
        """The seats as the lobby shows them: name, bot, open or not."""
        return [
            {
                "seat": seat,
                "name": held.name,
                "bot": held.bot,
                "open": held.bot is None and held.token_hash is None,
                "left": held.left,
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

    def record(self) -> GameRecord:
        """The match's :class:`~troedler.GameRecord` (without result while not over)."""
        names = [
            held.name if held.name is not None else f"{held.bot or 'seat'} {seat}"
            for seat, held in enumerate(self.seats)
        ]
        return GameRecord(
            rules=self.first.rules,
            fingerprint=fingerprint(self.first.board, self.first.cards),
            seed=self.first.seed,
            starting_dealer=self.first.dealer,
            seats=tuple(name[:64] for name in names),
            moves=tuple(text for _, text in self.history),
            result=outcome(self.state) if self.state.is_over else None,
        )


class Hub:
    """The matches of one server process, on one database.

    ``now`` is the wall clock (seconds since the epoch: deadlines outlive the
    process); ``bot_seconds`` bounds a bot's move, after which a random legal
    move is made for it. ``name`` is this process's name among those sharing
    the database, ``address`` where its clients reach it; it serves a match
    only while it holds the match's lease, renewed every third of
    ``lease_seconds``. A process started again under the same name takes its
    matches back at once; another one once their leases run out. At most
    ``max_waiting`` matches wait for players at once.
    """

    def __init__(
        self,
        engine: AsyncEngine,
        *,
        allow_exec: bool = False,
        bot_seconds: float = 10.0,
        bot_threads: int = 8,
        now: Callable[[], float] = time.time,
        name: str = "main",
        address: str = "",
        lease_seconds: float = 15.0,
        max_waiting: int = 1000,
    ) -> None:
        self.engine = engine
        self.max_waiting = max_waiting
        self.name = name
        self.address = address
        self.lease_seconds = lease_seconds
        self._renewer: asyncio.Task[None] | None = None
        self.allow_exec = allow_exec
        self.bot_seconds = bot_seconds
        self.now = now
        self.live: dict[str, Live] = {}
        self._loading: dict[str, asyncio.Lock] = {}
        self._bots = ThreadPoolExecutor(bot_threads, thread_name_prefix="troedler-bot")
        self._stopping = False

    # -- loading -------------------------------------------------------------

    async def resume_all(self) -> int:
        """Load every match being played that no other process serves, so its
        clocks and bots go on; the number loaded."""
        now = self.now()
        async with self.engine.connect() as connection:
            ids = (
                await connection.execute(
                    select(matches.c.id).where(
                        matches.c.status == "playing",
                        or_(
                            matches.c.owner.is_(None),
                            matches.c.owner == self.name,
                            matches.c.lease_until.is_(None),
                            matches.c.lease_until < now,
                        ),
                    )
                )
            ).scalars()
            found = [match_id for match_id in ids if match_id not in self.live]
        loaded = 0
        for match_id in found:
            with contextlib.suppress(Elsewhere):  # another process was quicker
                loaded += await self.load(match_id) is not None
        return loaded

    def start(self) -> None:
        """Keep this process's leases, and take over matches whose owner went away."""
        self._renewer = asyncio.create_task(self._keep_leases())

    async def _keep_leases(self) -> None:
        while not self._stopping:
            await asyncio.sleep(self.lease_seconds / 3)
            try:
                await self._renew()
            except Exception:  # noqa: S112 - the database is away: try again next time
                continue

    async def _renew(self) -> None:
        """Renew this process's leases, let go of what is over and unwatched,
        and take over matches whose owner stopped renewing theirs."""
        for match_id, live in list(self.live.items()):
            over = live.status not in ("waiting", "playing")
            if over and not live.connections and not live.lock.locked():
                self._drop(match_id)
        now = self.now()
        mine = list(self.live)
        async with self.engine.begin() as connection:
            if mine:
                await connection.execute(
                    update(matches)
                    .where(matches.c.id.in_(mine), matches.c.owner == self.name)
                    .values(lease_until=now + self.lease_seconds)
                )
                held = set(
                    (
                        await connection.execute(
                            select(matches.c.id).where(
                                matches.c.id.in_(mine), matches.c.owner == self.name
                            )
                        )
                    ).scalars()
                )
            else:
                held = set()
        for match_id in mine:
            if match_id not in held:  # taken over while this process stood still
                self._drop(match_id)
        await self.resume_all()

    def _drop(self, match_id: str, only: Live | None = None) -> None:
        """Let the match go: stop its clock or bot and close its connections.
        With ``only``, only if that is still this process's copy of it."""
        if only is not None and self.live.get(match_id) is not only:
            return
        self._loading.pop(match_id, None)
        live = self.live.pop(match_id, None)
        if live is None:
            return
        if live.task is not None:
            live.task.cancel()
        for connection in list(live.connections):
            connection.close()  # its client reconnects and is sent to the owner

    async def peek(self, match_id: str) -> Live | None:
        """The match as stored, to show it: this process's if it serves it,
        else read from the database without taking it over."""
        if match_id in self.live:
            return self.live[match_id]
        return await self._read(match_id, replayed=False)

    async def load(self, match_id: str) -> Live | None:
        """The match ``match_id``, loaded from the database if need be; None if none."""
        if not isinstance(match_id, str) or len(match_id) > 32:
            return None
        live = self.live.get(match_id)
        if live is not None:
            return live
        guard = self._loading.setdefault(match_id, asyncio.Lock())
        async with guard:
            live = self.live.get(match_id)
            if live is None:
                now = self.now()
                async with self.engine.begin() as connection:
                    taken = await take_lease(
                        connection,
                        match_id,
                        self.name,
                        self.address,
                        now + self.lease_seconds,
                        now,
                    )
                if not taken:
                    self._loading.pop(match_id, None)
                    row = await self._row(match_id)
                    if row is None:
                        return None
                    raise Elsewhere(row.owner_address or "")
                live = await self._read(match_id)
                if live is None:
                    self._loading.pop(match_id, None)
                    return None
                self.live[match_id] = live
                self._schedule(live)
        return live

    async def _read(self, match_id: str, *, replayed: bool = True) -> Live | None:
        """The match as the database holds it; with ``replayed`` false, without
        its moves (for its summary alone: the position stays the first)."""
        async with self.engine.connect() as connection:
            row = await match_row(connection, match_id)
            if row is None:
                return None
            seat_rows = (
                await connection.execute(
                    select(seats).where(seats.c.match_id == match_id).order_by(seats.c.seat)
                )
            ).all()
            move_rows = (
                (
                    await connection.execute(
                        select(moves).where(moves.c.match_id == match_id).order_by(moves.c.number)
                    )
                ).all()
                if replayed
                else []
            )
        settings = MatchSettings.stored(json.loads(row.settings))
        first = new_game(settings.players, seed=row.seed, rules=settings.make_rules())
        live = Live(
            id=row.id,
            settings=settings,
            first=first,
            state=first,
            status=row.status,
            version=0,
            seats=[Seat(s.name, s.token_hash, s.bot, s.left) for s in seat_rows],
            created=row.created,
            deadline=row.deadline,
            turn_started=row.turn_started,
            clocks=None if row.clocks is None else json.loads(row.clocks),
            ending=None if row.ending is None else json.loads(row.ending),
            rematch=row.rematch,
        )
        for number, stored in enumerate(move_rows):
            if stored.number != number:  # the log is gapless: the primary key and the version
                raise RuntimeError(f"match {match_id}: move {number} is missing")
            live.state = apply_move(live.state, parse_move(stored.move, live.state))
            live.history.append((stored.seat, stored.move))
            if stored.client_id is not None:
                live.accepted[(stored.seat, stored.client_id)] = number + 1
        if not replayed:
            live.version = row.version
            return live
        live.version = len(move_rows)
        if live.version != row.version:
            raise RuntimeError(f"match {match_id}: version {row.version}, {live.version} moves")
        return live

    # -- the lobby -----------------------------------------------------------

    async def create(self, settings: MatchSettings) -> Live:
        """A new match, waiting for its players; refused (``busy``) while
        ``max_waiting`` matches wait already."""
        match_id = secrets.token_urlsafe(12)
        seed = secrets.randbelow(2**62)
        created = self.now()
        async with self.engine.begin() as connection:
            waiting = await connection.scalar(
                select(func.count()).select_from(matches).where(matches.c.status == "waiting")
            )
            if (waiting or 0) >= self.max_waiting:
                raise BadRequest(
                    f"{self.max_waiting} matches are waiting for players: join one, "
                    "or try again later",
                    status=503,
                    code="busy",
                )
            await connection.execute(
                insert(matches).values(
                    id=match_id,
                    created=created,
                    status="waiting",
                    public=settings.public,
                    players=settings.players,
                    settings=dumps(settings.to_data()),
                    seed=seed,
                    version=0,
                )
            )
            await connection.execute(
                insert(seats),
                [
                    {
                        "match_id": match_id,
                        "seat": seat,
                        "name": None,
                        "token_hash": None,
                        "bot": bot,
                        "left": False,
                    }
                    for seat, bot in enumerate(settings.bots)
                ],
            )
        live = await self.load(match_id)
        assert live is not None
        return live

    async def join(self, live: Live, name: object, seat: object) -> tuple[int, str]:
        """Seat a person called ``name`` (at ``seat``, or the first open one):
        the seat and its token. The match starts once every seat is taken."""
        name = check_name(name)
        async with live.lock:
            if live.status != "waiting":
                raise BadRequest(
                    "the match has started: watch it instead", status=409, code="started"
                )
            open_seats = [
                s
                for s, held in enumerate(live.seats)
                if held.bot is None and held.token_hash is None
            ]
            if seat is None:
                if not open_seats:
                    raise BadRequest("every seat is taken", status=409, code="full")
                seat = open_seats[0]
            if type(seat) is not int or seat not in open_seats:
                raise BadRequest(
                    f"seat: not an open seat: {str(seat)[:12]}", status=409, code="taken"
                )
            token = secrets.token_urlsafe(32)
            digest = hash_token(token)
            starts = len(open_seats) == 1
            try:
                async with self.engine.begin() as connection:
                    await self._fence(connection, live)
                    done = await connection.execute(
                        update(seats)
                        .where(
                            seats.c.match_id == live.id,
                            seats.c.seat == seat,
                            seats.c.token_hash.is_(None),
                        )
                        .values(name=name, token_hash=digest)
                    )
                    if done.rowcount != 1:
                        raise BadRequest("the seat was taken meanwhile", status=409, code="taken")
                    if starts:
                        clock = self._clock_after(live, live.state)
                        await connection.execute(
                            update(matches)
                            .where(matches.c.id == live.id)
                            .values(status="playing", **clock)
                        )
            except _Taken:
                raise await self._taken(live) from None
            live.seats[seat].name = name
            live.seats[seat].token_hash = digest
            if starts:
                live.status = "playing"
                self._set_clock(live, clock)
            self._broadcast_status(live)
            if starts:
                self._schedule(live)
        return seat, token

    async def leave(self, live: Live, seat: int) -> None:
        """``seat``'s player leaves: before the start the seat opens again; after
        it the stand-in bot plays the seat from now on."""
        async with live.lock:
            if live.status == "waiting":
                values: dict[str, Any] = {"name": None, "token_hash": None}
            elif live.status == "playing":
                values = {"left": True}
            else:
                raise BadRequest("the match is over", status=409, code="over")
            try:
                async with self.engine.begin() as connection:
                    await self._fence(connection, live)
                    await connection.execute(
                        update(seats)
                        .where(seats.c.match_id == live.id, seats.c.seat == seat)
                        .values(**values)
                    )
            except _Taken:
                raise await self._taken(live) from None
            held = live.seats[seat]
            if live.status == "waiting":
                held.name = held.token_hash = None
                # The seat is open again: the leaver's sockets must not see or
                # play for whoever takes it next.
                for watching in list(live.connections):
                    if watching.seat == seat:
                        watching.close()
            else:
                held.left = True
            self._broadcast_status(live)
            self._schedule(live)

    async def rematch(self, old: Live, seat: int) -> tuple[Live, int, str]:
        """The same people again: the first to ask makes the new match (same
        settings, a new seed); each gets their own seat in it and a new token."""
        async with old.lock:
            if old.status not in ("finished", "forfeited"):
                raise BadRequest(
                    "a rematch follows a match that is over", status=409, code="not_over"
                )
            if old.rematch is None:
                new = await self.create(old.settings)
                async with self.engine.begin() as connection:
                    done = await connection.execute(
                        update(matches)
                        .where(matches.c.id == old.id, matches.c.rematch.is_(None))
                        .values(rematch=new.id)
                    )
                if done.rowcount != 1:  # another process made it first
                    row = await self._row(old.id)
                    old.rematch = row.rematch
                else:
                    old.rematch = new.id
                    self._broadcast_status(old)
            assert old.rematch is not None
        new_live = await self.load(old.rematch)
        assert new_live is not None
        name = old.seats[seat].name or f"seat {seat}"
        joined, token = await self.join(new_live, name, seat)
        return new_live, joined, token

    async def _row(self, match_id: str) -> Any:
        async with self.engine.connect() as connection:
            return await match_row(connection, match_id)

    # -- moves ---------------------------------------------------------------

    def _clock_after(self, live: Live, state: GameState) -> dict[str, Any]:
        """The clock columns once ``state`` is reached: the seat to move's deadline."""
        settings = live.settings
        now = self.now()
        clocks = live.clocks
        if settings.game_seconds is not None and clocks is None:
            clocks = [settings.game_seconds] * settings.players
        seat = state.current_player
        if state.is_over or seat is None or self._bot_text(live, seat) is not None:
            return {"deadline": None, "turn_started": now, "clocks": dumps(clocks)}
        limits = [
            t
            for t in (settings.move_seconds, None if clocks is None else clocks[seat])
            if t is not None
        ]
        deadline = now + max(0.0, min(limits)) if limits else None
        return {"deadline": deadline, "turn_started": now, "clocks": dumps(clocks)}

    def _bot_text(self, live: Live, seat: int) -> str | None:
        return live.bot_at(seat)

    @staticmethod
    def _set_clock(live: Live, changes: dict[str, Any]) -> None:
        live.deadline = changes["deadline"]
        live.turn_started = changes["turn_started"]
        live.clocks = json.loads(changes["clocks"])

    async def play(
        self, live: Live, connection: Connection, version: int, text: str, client_id: str
    ) -> bool:
        """The move ``text`` at ``version`` of ``connection``'s seat: whether it
        was made. The answer is queued on ``connection`` before the move is
        broadcast; the answer to a client move id seen before is the one given
        then, and the move is not made again."""
        seat = connection.seat
        assert seat is not None
        async with live.lock:
            made = live.accepted.get((seat, client_id))
            if made is not None:
                connection.send(message_for(seat, "accepted", id=client_id, version=made))
                return False
            earlier = live.refused.get(seat, OrderedDict()).get(client_id)
            if earlier is not None:
                connection.send(earlier)
                return False
            problem = self._problem(live, seat, version, text, client_id)
            if isinstance(problem, str):
                answer = problem
            else:

                def ack() -> None:
                    connection.send(
                        message_for(seat, "accepted", id=client_id, version=live.version)
                    )

                if await self._commit(live, seat, problem, client_id, ack):
                    return True
                answer = self._error(
                    seat, "stale", "another move was made first", live.version, id=client_id
                )
            remembered = live.refused.setdefault(seat, OrderedDict())
            remembered[client_id] = answer
            while len(remembered) > MAX_REMEMBERED:
                remembered.popitem(last=False)
            connection.send(answer)
            return False

    def _error(self, seat: int | None, code: str, message: str, version: int, **more: Any) -> str:
        return message_for(seat, "error", code=code, message=message, version=version, **more)

    def _problem(
        self, live: Live, seat: int, version: int, text: str, client_id: str
    ) -> str | Move:
        """The move, or the error answer that refuses it."""
        if live.status != "playing":
            return self._error(
                seat, "not_playing", f"the match is {live.status}", live.version, id=client_id
            )
        if version != live.version:
            return self._error(
                seat,
                "stale",
                f"the position is at version {live.version}, not {version}",
                live.version,
                id=client_id,
            )
        state = live.state
        if state.current_player != seat or live.bot_at(seat) is not None:
            return self._error(
                seat,
                "not_your_turn",
                f"seat {state.current_player} is to move",
                live.version,
                id=client_id,
            )
        try:
            move = parse_move(text, state)
            apply_move(state, move, seat=seat)
        except TroedlerError as error:
            rule = getattr(error, "rule", None)
            return self._error(
                seat, "illegal", str(error)[:300], live.version, rule=rule, id=client_id
            )
        return move

    async def _commit(
        self,
        live: Live,
        seat: int,
        move: Move,
        client_id: str | None,
        ack: Callable[[], None] | None = None,
    ) -> bool:
        """Store ``move``, then apply it here, then ``ack`` the mover, then
        broadcast it and set the next clock or bot going. False if the
        database's version moved on (another process): the match is read again."""
        after = apply_move(live.state, move, seat=seat)
        written = str(move)
        now = self.now()
        clocks = live.clocks
        if clocks is not None and live.turn_started is not None and live.bot_at(seat) is None:
            clocks = list(clocks)
            clocks[seat] = max(0.0, clocks[seat] - (now - live.turn_started))
            live.clocks = clocks
        changes = self._clock_after(live, after)
        if after.is_over:
            changes["status"] = "finished"
        async with self.engine.begin() as connection:
            ok = await append_move(
                connection,
                live.id,
                live.version,
                owner=self.name,
                seat=seat,
                move=written,
                client_id=client_id,
                at=now,
                changes=changes,
            )
        if not ok:
            await self._catch_up(live)
            return False
        live.state = after
        live.version += 1
        live.history.append((seat, written))
        if client_id is not None:
            live.accepted[(seat, client_id)] = live.version
        self._set_clock(live, changes)
        if after.is_over:
            live.status = "finished"
        if ack is not None:
            ack()
        self._after_move(live, seat, written)
        self._schedule(live)
        return True

    async def _catch_up(self, live: Live) -> None:
        """After a write the database refused: let the match go if another
        process took it over (its clients reconnect there), else read it
        again and set its next clock or bot going."""
        if self.live.get(live.id) is not live:  # let go already (and maybe loaded again)
            return
        row = await self._row(live.id)
        if row is None or row.owner != self.name:
            self._drop(live.id, live)
            return
        await self._reread(live)
        self._schedule(live)

    async def _fence(self, connection: AsyncConnection, live: Live) -> None:
        """In a transaction that changes the match: go on only while this
        process owns it (renewing its lease), else raise :class:`_Taken`,
        which rolls the transaction back."""
        done = await connection.execute(
            update(matches)
            .where(matches.c.id == live.id, matches.c.owner == self.name)
            .values(lease_until=self.now() + self.lease_seconds)
        )
        if done.rowcount != 1:
            raise _Taken

    async def _taken(self, live: Live) -> Elsewhere:
        """Another process took the match over: let it go, and say where it is."""
        self._drop(live.id, live)
        row = await self._row(live.id)
        return Elsewhere("" if row is None else row.owner_address or "")

    async def _reread(self, live: Live) -> None:
        fresh = await self._read(live.id)
        if fresh is not None:
            for field in (
                "state",
                "status",
                "version",
                "seats",
                "history",
                "accepted",
                "deadline",
                "turn_started",
                "clocks",
                "ending",
                "rematch",
            ):
                setattr(live, field, getattr(fresh, field))

    def _after_move(self, live: Live, seat: int, text: str) -> None:
        """Broadcast a committed move to everyone watching, and set the next
        clock or bot going. The mover's acknowledgement is queued first by the
        caller, which holds the lock until this returns."""
        for connection in list(live.connections):
            connection.send(
                message_for(
                    connection.seat,
                    "moved",
                    state=live.state,
                    recall=live.settings.recall,
                    version=live.version,
                    seat=seat,
                    move=text,
                    status=live.status,
                    deadline=live.deadline,
                    clocks=live.clocks,
                )
            )
        if live.status != "playing":
            self._finish(live)

    def _finish(self, live: Live) -> None:
        bots = list(live.bots.values())
        live.bots.clear()
        if bots:
            result = outcome(live.state) if live.state.is_over else None
            self._bots.submit(tell_game_over, bots, result, "finished" if result else "stopped")

    def _broadcast_status(self, live: Live) -> None:
        """Tell everyone watching the seats, who is connected and the status."""
        for connection in list(live.connections):
            connection.send(self.status_message(live, connection.seat))

    def status_message(self, live: Live, viewer: int | None) -> str:
        """The ``status`` message: seats, presence, clocks, how the match stands,
        and the position once the match has started (a seat waiting for the
        start gets its first position so)."""
        return message_for(
            viewer,
            "status",
            state=live.state if live.status != "waiting" else None,
            recall=live.settings.recall,
            match=live.id,
            status=live.status,
            version=live.version,
            seats=live.seat_list(),
            deadline=live.deadline,
            clocks=live.clocks,
            ending=live.ending,
            rematch=live.rematch,
            **live.presence(),
        )

    def welcome(self, live: Live, viewer: int | None, since: int | None) -> str:
        """The first message of a connection: everything, and the moves after ``since``."""
        started = live.status != "waiting"
        missed = (
            []
            if since is None
            else [
                {"version": number + 1, "seat": seat, "move": text}
                for number, (seat, text) in enumerate(live.history)
                if number >= since
            ]
        )
        return message_for(
            viewer,
            "welcome",
            state=live.state if started else None,
            recall=live.settings.recall,
            match=live.id,
            seat=viewer,
            status=live.status,
            version=live.version,
            seats=live.seat_list(),
            moves=missed,
            deadline=live.deadline,
            clocks=live.clocks,
            ending=live.ending,
            rematch=live.rematch,
            **live.presence(),
        )

    def connect(self, live: Live, connection: Connection, since: int | None) -> None:
        """A connection joins the match's audience: it is welcomed, and everyone
        else hears who is there now."""
        live.connections.add(connection)
        connection.send(self.welcome(live, connection.seat, since))
        for other in list(live.connections):
            if other is not connection:
                other.send(self.status_message(live, other.seat))

    def disconnect(self, live: Live, connection: Connection) -> None:
        """A connection leaves."""
        live.connections.discard(connection)
        connection.close()
        self._broadcast_status(live)

    # -- clocks and bots -----------------------------------------------------

    def _schedule(self, live: Live) -> None:
        """Set going what acts next without a person: the bot to move, or the
        clock of the person to move."""
        if live.task is not None and not live.task.done():
            if live.task is asyncio.current_task():  # a bot's own move sets the next going
                live.task = None
            else:
                live.task.cancel()
        live.task = None
        if self._stopping or live.status != "playing":
            return
        seat = live.state.current_player
        if seat is None:
            return
        if live.bot_at(seat) is not None:
            live.task = asyncio.create_task(self._bot_turn(live, live.version, seat))
        elif live.deadline is not None:
            live.task = asyncio.create_task(self._clock(live, live.version, seat))

    async def _clock(self, live: Live, version: int, seat: int) -> None:
        assert live.deadline is not None
        await asyncio.sleep(max(0.0, live.deadline - self.now()))
        async with live.lock:
            if live.version != version or live.status != "playing":
                return
            if live.settings.on_timeout == "forfeit":
                ending = {"forfeit": seat, "reason": "time"}
                async with self.engine.begin() as connection:
                    done = await connection.execute(
                        update(matches)
                        .where(
                            matches.c.id == live.id,
                            matches.c.version == version,
                            matches.c.owner == self.name,
                        )
                        .values(status="forfeited", ending=dumps(ending), deadline=None)
                    )
                if done.rowcount != 1:  # another process moved first or took the match
                    await self._catch_up(live)
                    return
                live.status, live.ending, live.deadline = "forfeited", ending, None
                self._broadcast_status(live)
                self._finish(live)
                return
        await self._bot_turn(live, version, seat, stand_in=True)

    async def _bot_turn(self, live: Live, version: int, seat: int, stand_in: bool = False) -> None:
        """The bot at ``seat`` (or the stand-in, out of time) makes its move."""
        text = live.settings.stand_in if stand_in else live.bot_at(seat)
        assert text is not None
        seen = observe(live.state, seat, recall=live.settings.recall)
        allowed = legal_moves(live.state)
        rng = random.Random(f"troedler-server/{live.first.seed}/{seat}/{version}")
        bot = live.bots.get(seat) if not stand_in else None
        if bot is None:
            bot = await asyncio.get_running_loop().run_in_executor(self._bots, bot_from_text, text)
            if not stand_in:
                live.bots[seat] = bot
        future = asyncio.get_running_loop().run_in_executor(
            self._bots, bot.choose, seen, allowed, rng
        )
        try:
            move = await asyncio.wait_for(future, self.bot_seconds)
            if move not in allowed:
                move = rng.choice(allowed)
        except (TimeoutError, Exception):  # a failing or slow bot: a random legal move instead
            move = rng.choice(allowed)
        async with live.lock:
            if live.version != version or live.status != "playing":
                return
            await self._commit(live, seat, move, None)

    async def close(self) -> None:
        """Stop every clock and bot; the database keeps where each match is."""
        self._stopping = True
        if self._renewer is not None:
            self._renewer.cancel()
        with contextlib.suppress(Exception):  # a database gone already keeps the leases
            async with self.engine.begin() as database:
                await database.execute(
                    update(matches)
                    .where(matches.c.owner == self.name)
                    .values(lease_until=None, owner=None)
                )
        for live in self.live.values():
            if live.task is not None:
                live.task.cancel()
            for connection in list(live.connections):
                connection.close()
            bots = list(live.bots.values())
            if bots:
                tell_game_over(bots, None, "stopped")
        self._bots.shutdown(wait=False, cancel_futures=True)
        await self.engine.dispose()
