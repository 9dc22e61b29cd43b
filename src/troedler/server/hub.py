"""The matches a server process serves: each one's copy in memory, the
connections watching it through this process, and the moves they make.

Any process serves any client. A move is checked against this process's
copy of the match, then written as a compare-and-set on the match's
version (:mod:`troedler.server.journal`), whichever process receives it;
only once it is committed is it acknowledged and told to this process's
connections, and, through the database's notifications
(:mod:`troedler.server.cluster`), to every other process, each of which
tells its own. A write refused because another process's move got in
first brings the copy up to date, and the move is answered again from
there. Moves of one match are taken one at a time in each process (its
lock). What must run in one place, the clocks and the bots in seats, is
run by the match's owner (:mod:`troedler.server.turns`,
:mod:`troedler.server.owners`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncEngine

from troedler.bots.failure import BotFailure, failure_message
from troedler.core.errors import TroedlerError
from troedler.core.legal import apply_move
from troedler.core.moves import Move
from troedler.core.state import GameState
from troedler.io.notation import parse_move
from troedler.server.cluster import Alone, Cluster, Note
from troedler.server.connection import Close, Connection
from troedler.server.journal import Entry, Journal
from troedler.server.lobby import Lobby
from troedler.server.match import Live, seat_counts
from troedler.server.owners import Owners
from troedler.server.protocol import (
    BOT_FAILED_FIELDS,
    STOOD_IN_FIELDS,
    Frame,
    bot_failure_fields,
    moved_facts,
    position_text,
)
from troedler.server.reading import catch_up, owner_of, read_match
from troedler.server.store import matches
from troedler.server.turns import Turns

__all__ = ["Hub"]

log = logging.getLogger("troedler.server")

STOPPING = "the server is stopping: connect again"
"""The reason of the close (1012) of every connection when a process stops."""


class Hub:
    """The matches of one server process, on one database.

    ``journal`` writes the moves, ``cluster`` speaks to the other processes
    sharing the database (none on SQLite). ``now`` is the wall clock
    (seconds since the epoch: deadlines outlive the process);
    ``bot_seconds`` bounds a bot's move, after which a random legal move is
    made for it. ``name`` is this process's name among those sharing the
    database; a process that stops saying it is alive for ``lease_seconds``
    is taken to be dead, and its matches are taken over. At most
    ``max_waiting`` matches wait for players at once. ``bot_details`` (a
    private server's) tells everyone watching what a failed bot said, not
    only what it did.
    """

    def __init__(
        self,
        engine: AsyncEngine,
        journal: Journal,
        cluster: Cluster | None = None,
        *,
        allow_exec: bool = False,
        bot_seconds: float = 10.0,
        bot_threads: int = 8,
        now: Callable[[], float] = time.time,
        lease_seconds: float = 2.0,
        max_waiting: int = 1000,
        bot_details: bool = False,
    ) -> None:
        self.engine = engine
        self.journal = journal
        self.cluster = cluster if cluster is not None else Alone("main")
        self.name = self.cluster.name
        self.allow_exec = allow_exec
        self.bot_seconds = bot_seconds
        self.now = now
        self.lease_seconds = lease_seconds
        self.max_waiting = max_waiting
        self.bot_details = bot_details
        self.live: dict[str, Live] = {}
        self._loading: dict[str, asyncio.Lock] = {}
        self._missed: set[str] = set()
        """Matches being loaded that a notification came for meanwhile."""
        self._heard_queued: dict[str, int] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self.bot_pool = ThreadPoolExecutor(bot_threads, thread_name_prefix="troedler-bot")
        self.stopping = False
        self.turns = Turns(self)
        self.lobby = Lobby(self)
        self.owners = Owners(self)

    def spawn(self, work: Any) -> None:
        """Run the coroutine ``work`` on its own, kept until it ends."""
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- starting and stopping ----------------------------------------------

    async def start(self) -> None:
        """Hear the other processes, take this process's matches, and keep
        its ownership going."""
        await self.journal.open()
        await self.cluster.start(self.hear)
        await self.owners.start()

    async def say_goodbye(self, wait: float = 2.0) -> None:
        """Close every connection with 1012 and its reason, and wait up to
        ``wait`` seconds for their close frames to be sent: before the ASGI
        server closes them itself, with no reason, as it stops."""
        closing = []
        for live in self.live.values():
            for connection in list(live.connections):
                connection.close(Close.RESTART, STOPPING)
                closing.append(connection.finished.wait())
        if closing:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.gather(*closing), wait)

    async def close(self) -> None:
        """Stop every clock and bot and close every connection; the database
        keeps where each match is, and the others take this process's matches."""
        self.stopping = True
        await self.owners.stop()
        for live in self.live.values():
            self.turns.stop(live)
            for connection in list(live.connections):
                connection.close(Close.RESTART, STOPPING)
        self.bot_pool.shutdown(wait=False, cancel_futures=True)
        await self.cluster.close()
        await self.journal.close()
        await self.engine.dispose()

    # -- the matches in memory -----------------------------------------------

    async def load(self, match_id: str) -> Live | None:
        """The match ``match_id`` in this process, read from the database if
        need be; None if there is none."""
        if not isinstance(match_id, str) or len(match_id) > 32:
            return None
        live = self.live.get(match_id)
        if live is not None:
            return live
        guard = self._loading.setdefault(match_id, asyncio.Lock())
        try:
            async with guard:
                live = self.live.get(match_id)
                if live is None:
                    live = await read_match(self.engine, match_id, me=self._me())
                    if live is None:
                        return None
                    self.live[match_id] = live
                    if match_id in self._missed:
                        self.spawn(self.refresh(live))
        finally:
            if not guard.locked():
                self._loading.pop(match_id, None)
            self._missed.discard(match_id)
        return live

    def _me(self) -> str | None:
        """This process's name where others share the database, else None."""
        return self.name if self.cluster.several else None

    async def peek(self, match_id: str) -> Live | None:
        """The match as stored, to show it: this process's copy if it has
        one, else read without its moves."""
        if match_id in self.live:
            return self.live[match_id]
        return await read_match(self.engine, match_id, replayed=False)

    def drop(self, match_id: str) -> None:
        """Forget the match here (nobody watches it through this process,
        and this process runs nothing for it)."""
        live = self.live.pop(match_id, None)
        if live is not None:
            self.turns.stop(live)
            for connection in list(live.connections):
                connection.close(Close.RESTART, "connect again")

    # -- moves ---------------------------------------------------------------

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
            for _ in range(2):
                earlier = self._answered(live, seat, client_id)
                if earlier is not None:
                    connection.send(earlier)
                    return False
                problem = self._problem(live, seat, version, text, client_id)
                if isinstance(problem, str):
                    break

                def ack() -> None:
                    connection.send(Frame("accepted", id=client_id, version=live.version).to(None))

                move, after = problem
                if await self.commit(live, seat, move, after, client_id, ack):
                    return True
                # Another process's move got in first: look again from the database.
                await self.refresh_locked(live)
            else:
                problem = error(
                    seat, "stale", "another move was made first", live.version, id=client_id
                )
            live.remember_refusal(seat, client_id, problem)
            connection.send(problem)
            return False

    @staticmethod
    def _answered(live: Live, seat: int, client_id: str) -> str | None:
        """The answer given to this client move id before, if any."""
        made = live.accepted.get((seat, client_id))
        if made is not None:
            return Frame("accepted", id=client_id, version=made).to(None)
        remembered = live.refused.get(seat)
        return None if remembered is None else remembered.get(client_id)

    def _problem(
        self, live: Live, seat: int, version: int, text: str, client_id: str
    ) -> str | tuple[Move, GameState]:
        """The move and the position it makes, or the error answer that refuses it."""
        if live.status != "playing":
            return error(
                seat, "not_playing", f"the match is {live.status}", live.version, id=client_id
            )
        if version != live.version:
            return error(
                seat,
                "stale",
                f"the position is at version {live.version}, not {version}",
                live.version,
                id=client_id,
            )
        state = live.state
        if state.current_player != seat or live.bot_at(seat) is not None:
            return error(
                seat,
                "not_your_turn",
                f"seat {state.current_player} is to move",
                live.version,
                id=client_id,
            )
        try:
            move = parse_move(text, state)
            after = apply_move(state, move, seat=seat)
        except TroedlerError as problem:
            rule = getattr(problem, "rule", None)
            return error(seat, "illegal", str(problem)[:300], live.version, rule=rule, id=client_id)
        return move, after

    async def commit(
        self,
        live: Live,
        seat: int,
        move: Move,
        after: GameState,
        client_id: str | None,
        ack: Callable[[], None] | None = None,
        *,
        owner: str | None = None,
    ) -> bool:
        """Write ``move`` (which makes ``after``), then take it here, ``ack``
        the mover, tell this process's connections and set the next clock or
        bot going. False, and nothing changed, if the database's version
        moved on (or, with ``owner``, the match is another process's now).
        The caller holds the match's lock."""
        text = str(move)
        clock = self.turns.clock_after(live, after, seat)
        status = "finished" if after.is_over else live.status
        entry = Entry(
            match=live.id,
            version=live.version,
            seat=seat,
            move=text,
            client_id=client_id,
            at=self.now(),
            status=status,
            deadline=clock["deadline"],
            turn_started=clock["turn_started"],
            clocks=clock["clocks"],
            owner=owner,
        )
        if not await self.journal.append(entry):
            return False
        live.advance(seat, move, text, after, client_id)
        live.set_clock(clock)
        live.status = status
        if ack is not None:
            ack()
        self.tell_moved(live, seat, text)
        return True

    def moved_frame(
        self,
        live: Live,
        version: int,
        seat: int,
        text: str,
        move: Move | None,
        status: str,
        before: str | None,
    ) -> Frame:
        """The ``moved`` message of the move ``text`` (``move``) that made
        ``version``, its mover's cart having stood in ``before``, but its
        position."""
        return Frame(
            "moved",
            version=version,
            seat=seat,
            move=text,
            facts=None if move is None else moved_facts(move, before),
            status=status,
            deadline=live.deadline,
            turn_started=live.turn_started,
            clocks=live.clocks,
            now=self.now(),
        )

    def tell_moved(self, live: Live, seat: int, text: str) -> None:
        """Tell this process's connections of the move that made the match's
        version; once over, tell its bots; set the next clock or bot going."""
        live.send(
            self.moved_frame(
                live, live.version, seat, text, live.last_move, live.status, live.last_from
            )
        )
        if live.status != "playing":
            self.turns.finish(live)
        self.turns.schedule(live)

    async def refresh_locked(self, live: Live) -> None:
        """Bring ``live`` up to the database (its moves, seats and row) and
        tell this process's connections what changed. The caller holds the
        match's lock."""
        previous = live.state
        made = await catch_up(self.engine, live, self._me())
        live.close_given_up()
        start = live.version - len(made)
        for number, (seat, text, move, state) in enumerate(made, start=start + 1):
            status = live.status if number == live.version else "playing"
            before = previous.players[seat].cart
            previous = state
            frame = self.moved_frame(live, number, seat, text, move, status, before)
            if number == live.version:
                live.send(frame)
                continue
            recall = live.settings.recall
            for connection in list(live.connections):
                connection.send(frame.to(position_text(state, connection.seat, recall)))
        self.tell_status(live)
        if live.status != "playing":
            self.turns.finish(live)
        self.turns.schedule(live)

    async def refresh(self, live: Live) -> None:
        """:meth:`refresh_locked`, taking the match's lock."""
        async with live.lock:
            if self.live.get(live.id) is live:
                await self.refresh_locked(live)

    # -- what the other processes tell ---------------------------------------

    def hear(self, note: Note) -> None:
        """A notification from the database (see :data:`troedler.server.cluster.Note`)."""
        kind = note[0]
        if len(note) < 3 or not isinstance(note[1], str):
            return
        match_id = note[1]
        live = self.live.get(match_id)
        if live is None:
            if match_id in self._loading:
                self._missed.add(match_id)
            return
        if kind == "m":
            if isinstance(note[2], int) and note[2] > live.version:
                self._heard_move(live, note)
        elif kind == "s":
            self.spawn(self.refresh(live))
        elif kind == "p" and note[2] != self.name and len(note) == 5:
            self._heard_presence(live, note[2], note[3], note[4])
        elif kind == "f" and note[2] != self.name and len(note) == 4 and isinstance(note[3], dict):
            # A bot failed in another process: its connections were told there.
            told = {key: note[3][key] for key in BOT_FAILED_FIELDS if key in note[3]}
            live.send(Frame("bot_failed", **told), with_position=False)
        elif kind == "t" and note[2] != self.name and len(note) == 4 and isinstance(note[3], dict):
            # A stand-in moved for a seat out of time, in another process.
            told = {key: note[3][key] for key in STOOD_IN_FIELDS if key in note[3]}
            live.send(Frame("stood_in", **told), with_position=False)

    def _heard_move(self, live: Live, note: Note) -> None:
        queued = self._heard_queued.get(live.id, 0)
        if queued == 0 and not live.lock.locked():
            self._take_move(live, note)  # nothing before it: at once, without a task
            return
        self._heard_queued[live.id] = queued + 1

        async def in_turn() -> None:
            try:
                async with live.lock:
                    self._take_move(live, note)
            finally:
                left = self._heard_queued.get(live.id, 1) - 1
                if left:
                    self._heard_queued[live.id] = left
                else:
                    self._heard_queued.pop(live.id, None)

        self.spawn(in_turn())

    def _take_move(self, live: Live, note: Note) -> None:
        """A move another process made, from its notification: taken here if
        it is the next one, else the match is read again."""
        _, _, version, seat, text, client_id, status, deadline, turn_started, clocks = note
        if self.live.get(live.id) is not live or version <= live.version:
            return
        if version != live.version + 1:
            self.spawn(self.refresh(live))
            return
        try:
            move = parse_move(text, live.state)
            live.replay_move(seat, text, move, client_id)
        except (TroedlerError, TypeError, ValueError):
            self.spawn(self.refresh(live))
            return
        live.status = status
        live.set_clock({"deadline": deadline, "turn_started": turn_started, "clocks": clocks})
        self.tell_moved(live, seat, text)

    def _heard_presence(self, live: Live, server: str, said: Any, watching: Any) -> None:
        counts = seat_counts(said)
        if counts is None:
            return
        before = live.presence()
        if any(counts) or watching:
            live.elsewhere[server] = (counts, int(watching))
        else:
            live.elsewhere.pop(server, None)
        if live.presence() != before:
            self.tell_status(live)

    def forget_server(self, server: str) -> None:
        """A process found dead: nobody is connected through it any more."""
        for live in self.live.values():
            if live.elsewhere.pop(server, None) is not None:
                self.tell_status(live)

    def tell_bot_failed(self, live: Live, failure: BotFailure, instead: Move) -> None:
        """The bot of ``failure.seat`` failed, and ``instead``, a random legal
        move, made the match's version: tell everyone watching, through this
        process and the others, and the server's log."""
        log.warning("troedler serve: match %s: %s", live.id, failure_message(failure))
        fields = bot_failure_fields(failure, live.version, instead, detail=self.bot_details)
        live.send(Frame("bot_failed", **fields), with_position=False)
        if self.cluster.several:
            self.spawn(self.cluster.tell(["f", live.id, self.name, fields]))

    def tell_stood_in(self, live: Live, seat: int, bot: str, move: str) -> None:
        """The seat ``seat`` ran out of time and the stand-in ``bot`` made its
        move ``move`` (the match's version): tell everyone watching, through
        this process and the others."""
        fields = dict(zip(STOOD_IN_FIELDS, (live.version, seat, bot, move), strict=True))
        live.send(Frame("stood_in", **fields), with_position=False)
        if self.cluster.several:
            self.spawn(self.cluster.tell(["t", live.id, self.name, fields]))

    def tell_presence(self, live: Live) -> None:
        """Keep who is connected to ``live`` through this process where the
        other processes read it when they load the match, and tell them."""
        if self.cluster.several:
            counts, watching = live.here()
            self.spawn(self.cluster.say_present(live.id, list(counts), watching))

    # -- what this process's connections are told ----------------------------

    def tell_status(self, live: Live) -> None:
        """Tell everyone watching through this process the seats, who is
        connected, the status and the clocks (and the position, once started)."""
        live.send(self.status_frame(live))

    def status_frame(self, live: Live) -> Frame:
        """The ``status`` message, but its position."""
        return Frame(
            "status",
            match=live.id,
            status=live.status,
            version=live.version,
            seats=live.seat_list(),
            deadline=live.deadline,
            turn_started=live.turn_started,
            clocks=live.clocks,
            now=self.now(),
            ending=live.ending,
            rematch=live.rematch,
            **live.presence(),
        )

    def welcome(self, live: Live, viewer: int | None, since: int | None) -> str:
        """The first message of a connection: everything, and the moves after ``since``."""
        frame = Frame(
            "welcome",
            match=live.id,
            seat=viewer,
            status=live.status,
            version=live.version,
            seats=live.seat_list(),
            moves=[] if since is None else live.moves_made(since),
            last=None if live.last_move is None else moved_facts(live.last_move, live.last_from),
            settings=live.settings.to_data(),
            table=live.table(),
            deadline=live.deadline,
            turn_started=live.turn_started,
            clocks=live.clocks,
            now=self.now(),
            ending=live.ending,
            rematch=live.rematch,
            **live.presence(),
        )
        return frame.to(live.position(viewer) if live.started() else None)

    async def connect(self, live: Live, connection: Connection, since: int | None) -> None:
        """A connection joins the match's audience: it is welcomed, and everyone
        else hears who is there now.

        Where processes share the database, who is connected through this one,
        the newcomer included, is stored first: a process that loads the
        match after this connection's welcome welcomes its own with it. And
        who is connected through the others is read then, so the welcome
        says so even before their notifications are heard."""
        if self.cluster.several:
            counts, watching = live.here()
            if connection.seat is None:
                watching += 1
            else:
                counts = tuple(
                    count + (seat == connection.seat) for seat, count in enumerate(counts)
                )
            elsewhere = await self.cluster.say_present(live.id, list(counts), watching)
            if elsewhere is not None:
                live.elsewhere = elsewhere
        live.connections.add(connection)
        connection.send(self.welcome(live, connection.seat, since))
        frame = self.status_frame(live)
        for other in list(live.connections):
            if other is not connection:
                other.send(frame.to(live.position(other.seat) if live.started() else None))

    def disconnect(self, live: Live, connection: Connection) -> None:
        """A connection leaves."""
        live.connections.discard(connection)
        connection.close()
        self.tell_status(live)
        self.tell_presence(live)

    async def owned_by_me(self, live: Live) -> bool:
        """Whether the database still says this process owns ``live``."""
        return await owner_of(self.engine, live.id) == self.name

    async def let_go(self) -> None:
        """Give up every match this process owns (a clean stop)."""
        with contextlib.suppress(Exception):  # a database gone already keeps the owners
            async with self.engine.begin() as connection:
                await connection.execute(
                    update(matches).where(matches.c.owner == self.name).values(owner=None)
                )


def error(seat: int | None, code: str, message: str, version: int, **more: Any) -> str:
    """An ``error`` message's text."""
    return Frame("error", code=code, message=message, version=version, **more).to(None)
