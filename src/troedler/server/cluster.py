"""The server processes that share one database, and what they tell each
other, through the database alone (no broker).

On SQLite the server is one process (:class:`Alone`): nothing to tell, and
nobody else to watch. On PostgreSQL (:class:`PostgresCluster`) every
process

- listens on one channel (``LISTEN``): each committed move, seat change
  and who is connected where is sent there (``pg_notify``, which delivers
  only once the sender's transaction commits), so that every process tells
  its own connections;
- holds, on that same connection, an advisory lock of its own number: when
  the process dies its connection closes and the lock is free at once;
- says it is alive (``servers.alive_until``, by the database's clock)
  every quarter of its lease.

A process whose lock is free, or who has not said it is alive within its
lease (a machine gone, a process stood still), is dead to the others: the
first to see it takes over the matches it owned. A notification is not
kept for a process that was not listening: one that loses its connection
reads again, from the database, every match it serves.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.sql import Executable

from troedler.server.journal import CHANNEL
from troedler.server.match import Elsewhere, presence_row

__all__ = ["Alone", "Cluster", "ClusterError", "Note", "PostgresCluster"]

LOCKS = 0x7472
"""The first key of the server processes' advisory locks (the second is each one's number)."""
START_SECONDS = 10.0
"""How long a process starting tries to take its lock (a namesake just killed may still hold it)."""

Note = list[Any]
"""A notification: its kind first (``m`` a move, ``s`` a match changed,
``p`` who is connected through a process, also kept in ``presence``, ``f``
a bot that failed its move, for every process's connections to be told)."""

log = logging.getLogger("troedler.server")


class ClusterError(Exception):
    """The process cannot join the others (its name is taken by one running)."""


class Cluster:
    """How a process speaks to the others sharing its database."""

    several = False
    """Whether other processes may share the database."""

    def __init__(self, name: str) -> None:
        self.name = name

    async def start(self, hear: Callable[[Note], None]) -> None:
        """Begin to hear the others' notifications, given to ``hear``."""

    async def tell(self, note: Note) -> None:
        """Tell the others now (outside any transaction)."""

    def telling(self, note: Note) -> Executable | None:
        """A statement that tells the others once its transaction commits
        (None: nobody to tell)."""
        return None

    async def say_present(self, match: str, counts: list[int], watching: int) -> Elsewhere | None:
        """Keep who is connected to ``match`` through this process (its
        connections per seat, its spectators) where the others read it, and
        tell them. Returns who is connected through the others as the
        database holds it then (None: nobody else, or not known now)."""
        return None

    async def beat(self) -> tuple[list[str], bool]:
        """Say this process is alive; the names of the processes found dead,
        and whether this one's connection had been lost (so every
        notification since may be missed)."""
        return [], False

    async def close(self) -> None:
        """Stop listening; the others find this process gone."""


class Alone(Cluster):
    """The one process on an SQLite file."""


def _encode(note: Note) -> str:
    return json.dumps(note, separators=(",", ":"))


class PostgresCluster(Cluster):
    """The processes sharing a PostgreSQL database."""

    several = True

    def __init__(self, dsn: str, name: str, address: str, lease_seconds: float) -> None:
        super().__init__(name)
        self.dsn = dsn
        self.address = address
        self.lease_seconds = lease_seconds
        self.number: int | None = None
        self._connection: Any = None
        self._hear: Callable[[Note], None] | None = None
        self._lock = asyncio.Lock()
        """One operation at a time on the listening connection."""
        self._lost = False

    async def start(self, hear: Callable[[Note], None]) -> None:
        self._hear = hear
        await self._connect(wait=START_SECONDS)

    async def _connect(self, wait: float) -> None:
        import asyncpg  # noqa: PLC0415 - the server extra's, needed on PostgreSQL only

        connection = await asyncpg.connect(self.dsn)
        try:
            number = await self._register(connection)
            end = asyncio.get_running_loop().time() + wait
            while not await connection.fetchval(
                "SELECT pg_try_advisory_lock($1, $2)", LOCKS, number
            ):
                if asyncio.get_running_loop().time() > end:
                    raise ClusterError(
                        f"a server process named {self.name!r} is running on this database: "
                        "give each process its own --name"
                    )
                await asyncio.sleep(0.2)
            # Nobody is connected through this process yet (rows a crash left).
            await connection.execute("DELETE FROM presence WHERE server = $1", self.name)
            await connection.add_listener(CHANNEL, self._heard)
            connection.add_termination_listener(self._terminated)
        except BaseException:
            with contextlib.suppress(Exception):
                await connection.close()
            raise
        self.number = number
        self._connection = connection
        self._lost = False

    async def _register(self, connection: Any) -> int:
        """This process's number, its row made or renewed."""
        for _ in range(10):
            try:
                number = await connection.fetchval(
                    """
                    INSERT INTO servers (name, number, address, alive_until)
                    VALUES ($1, (SELECT coalesce(max(number), 0) + 1 FROM servers), $2,
                            extract(epoch FROM clock_timestamp()) + $3)
                    ON CONFLICT (name) DO UPDATE
                    SET address = excluded.address, alive_until = excluded.alive_until
                    RETURNING number
                    """,
                    self.name,
                    self.address,
                    self.lease_seconds,
                )
                return int(number)
            except Exception as error:  # two new processes took the same number: again
                if type(error).__name__ != "UniqueViolationError":
                    raise
        raise ClusterError("could not number this server process")

    def _heard(self, _connection: Any, _pid: int, _channel: str, payload: str) -> None:
        try:
            note = json.loads(payload)
        except ValueError:
            return
        if isinstance(note, list) and note and self._hear is not None:
            self._hear(note)

    def _terminated(self, _connection: Any) -> None:
        self._lost = True

    async def tell(self, note: Note) -> None:
        async with self._lock:
            if self._connection is None or self._lost:
                return  # heard again by the others once this process reconnects
            with contextlib.suppress(Exception):
                await self._connection.execute("SELECT pg_notify($1, $2)", CHANNEL, _encode(note))

    def telling(self, note: Note) -> Executable | None:
        return select(func.pg_notify(CHANNEL, _encode(note)))

    async def say_present(self, match: str, counts: list[int], watching: int) -> Elsewhere | None:
        note = _encode(["p", match, self.name, counts, watching])
        if any(counts) or watching:
            keep = """
                WITH kept AS (
                    INSERT INTO presence (match_id, server, seats, spectators)
                    VALUES ($1, $2, $3, $4)
                    ON CONFLICT (match_id, server)
                    DO UPDATE SET seats = excluded.seats, spectators = excluded.spectators
                )
                SELECT pg_notify($5, $6)
                """
            arguments: tuple[Any, ...] = (match, self.name, _encode(counts), watching)
        else:
            keep = """
                WITH gone AS (DELETE FROM presence WHERE match_id = $1 AND server = $2)
                SELECT pg_notify($3, $4)
                """
            arguments = (match, self.name)
        async with self._lock:
            if self._connection is None or self._lost:
                return None  # said again for every match once this process reconnects
            try:
                await self._connection.execute(keep, *arguments, CHANNEL, note)
                # Read here, not from the notifications: those already sent
                # may not all be heard yet.
                rows = await self._connection.fetch(
                    "SELECT server, seats, spectators FROM presence"
                    " WHERE match_id = $1 AND server <> $2",
                    match,
                    self.name,
                )
            except Exception:  # said again for every match once this process reconnects
                return None
        found = {}
        for row in rows:
            kept = presence_row(row["seats"], row["spectators"])
            if kept is not None:
                found[str(row["server"])] = kept
        return found

    async def beat(self) -> tuple[list[str], bool]:
        async with self._lock:
            reconnected = False
            if self._connection is None or self._lost or self._connection.is_closed():
                with contextlib.suppress(Exception):
                    if self._connection is not None:
                        self._connection.terminate()
                self._connection = None
                await self._connect(wait=self.lease_seconds)
                reconnected = True
            connection = self._connection
            rows = await connection.fetch(
                """
                WITH me AS (
                    UPDATE servers SET alive_until = extract(epoch FROM clock_timestamp()) + $2
                    WHERE name = $1
                )
                SELECT name, number, alive_until < extract(epoch FROM clock_timestamp()) AS late
                FROM servers WHERE name <> $1
                """,
                self.name,
                self.lease_seconds,
            )
            dead = []
            for row in rows:
                if row["late"] or row["late"] is None:
                    dead.append(row["name"])
                elif await connection.fetchval(
                    "SELECT pg_try_advisory_lock($1, $2)", LOCKS, row["number"]
                ):
                    # Free: its process is gone. Let go at once, for a namesake starting.
                    await connection.execute(
                        "SELECT pg_advisory_unlock($1, $2)", LOCKS, row["number"]
                    )
                    dead.append(row["name"])
            if dead:  # nobody is connected through a dead process
                await connection.execute(
                    "DELETE FROM presence WHERE server = any($1::text[])", dead
                )
            return dead, reconnected

    async def close(self) -> None:
        async with self._lock:
            connection, self._connection = self._connection, None
            if connection is not None:
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(connection.close(), 5)
