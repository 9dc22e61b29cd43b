"""The one write a move makes: its line in the move log and the match's new
version, as one compare-and-set, whichever process makes it.

This is the server's hot path, so it speaks to the database driver itself
(SQLAlchemy builds the statements of everything else): on SQLite a thread
of its own holds one connection and commits the moves that wait together
(one sync to disk for all of them: a group commit); on PostgreSQL a pool of
asyncpg connections runs one prepared statement per move, which also
notifies the other processes (``pg_notify``, delivered when the move
commits). Measured, SQLAlchemy's statements through aiosqlite cost a move
more than a millisecond of CPU; these cost it a tenth of that.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import queue
import sqlite3
import threading
from typing import Any, Protocol

import attrs

__all__ = ["CHANNEL", "Entry", "Journal", "PostgresJournal", "SQLiteJournal", "sqlite_pragmas"]

CHANNEL = "troedler"
"""The PostgreSQL notification channel the server processes share."""
BATCH = 256
"""The most moves one SQLite commit holds."""


@attrs.frozen
class Entry:
    """A move to write: made at ``version`` of ``match`` by ``seat``, and
    what the match's row says once it is made."""

    match: str
    version: int
    """The version the move was made at; the match goes to ``version + 1``."""
    seat: int
    move: str
    client_id: str | None
    at: float
    status: str
    deadline: float | None
    turn_started: float | None
    clocks: str | None
    """The seats' clocks as JSON text, or None."""
    owner: str | None = None
    """Only while this process owns the match (a bot's or a clock's move);
    None for a person's move, which any process may write."""

    def note(self) -> str:
        """The notification the other processes receive once it is committed:
        the move and the row's new values, so that they need not read them."""
        return json.dumps(
            [
                "m",
                self.match,
                self.version + 1,
                self.seat,
                self.move,
                self.client_id,
                self.status,
                self.deadline,
                self.turn_started,
                self.clocks,
            ],
            separators=(",", ":"),
        )


class Journal(Protocol):
    """Where moves are written."""

    async def open(self) -> None:
        """Get ready to write (before the first move)."""

    async def append(self, entry: Entry) -> bool:
        """Write ``entry`` if the match is still being played at its version
        (and, with an owner, is still that owner's): True once committed,
        False if not written."""

    async def close(self) -> None:
        """Finish what is queued, and let the database go."""


def sqlite_pragmas(connection: Any) -> None:
    """Every SQLite connection of the server: WAL, so readers do not wait for
    the writer; ``synchronous=FULL``, since NORMAL may lose the last commits
    to a power cut and an acknowledged move must survive whatever stops the
    server; foreign keys; and a writer waits up to 10 s for another."""
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA synchronous=FULL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.close()


_SQLITE_BUMP = (
    "UPDATE matches SET version = ?, status = ?, deadline = ?, turn_started = ?, clocks = ?"
    " WHERE id = ? AND version = ? AND status = 'playing'"
)
_SQLITE_LOG = (
    "INSERT INTO moves (match_id, number, seat, move, client_id, at) VALUES (?, ?, ?, ?, ?, ?)"
)

_Job = tuple[Entry, "asyncio.Future[bool]", asyncio.AbstractEventLoop]


def _settle(future: asyncio.Future[bool], outcome: bool | BaseException) -> None:
    if future.done():
        return
    if isinstance(outcome, BaseException):
        future.set_exception(outcome)
    else:
        future.set_result(outcome)


class SQLiteJournal:
    """Moves written by one thread, the waiting ones committed together."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="troedler-journal", daemon=True)
        self._thread.start()

    async def open(self) -> None:
        """The writer thread runs from the start."""

    async def append(self, entry: Entry) -> bool:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[bool] = loop.create_future()
        self._jobs.put((entry, future, loop))
        return await future

    async def close(self) -> None:
        self._jobs.put(None)
        await asyncio.to_thread(self._thread.join, 30)

    def _run(self) -> None:
        connection = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        sqlite_pragmas(connection)
        try:
            stop = False
            while not stop:
                first = self._jobs.get()
                if first is None:
                    break
                batch = [first]
                while len(batch) < BATCH:
                    try:
                        job = self._jobs.get_nowait()
                    except queue.Empty:
                        break
                    if job is None:
                        stop = True
                        break
                    batch.append(job)
                outcomes = self._write(connection, [entry for entry, _, _ in batch])
                for (_, future, loop), outcome in zip(batch, outcomes, strict=True):
                    with contextlib.suppress(RuntimeError):  # its loop has closed
                        loop.call_soon_threadsafe(_settle, future, outcome)
        finally:
            connection.close()

    @staticmethod
    def _write(connection: sqlite3.Connection, entries: list[Entry]) -> list[bool | BaseException]:
        """One transaction for the batch; each move its own savepoint, so a
        refused one leaves the others in."""
        outcomes: list[bool | BaseException] = []
        try:
            connection.execute("BEGIN IMMEDIATE")
            for entry in entries:
                connection.execute("SAVEPOINT move")
                bump = _SQLITE_BUMP
                values: tuple[Any, ...] = (
                    entry.version + 1,
                    entry.status,
                    entry.deadline,
                    entry.turn_started,
                    entry.clocks,
                    entry.match,
                    entry.version,
                )
                if entry.owner is not None:
                    bump += " AND owner = ?"
                    values += (entry.owner,)
                try:
                    made = connection.execute(bump, values).rowcount == 1
                    if made:
                        connection.execute(
                            _SQLITE_LOG,
                            (
                                entry.match,
                                entry.version,
                                entry.seat,
                                entry.move,
                                entry.client_id,
                                entry.at,
                            ),
                        )
                except sqlite3.IntegrityError:  # the client's id is in the log already
                    made = False
                if not made:
                    connection.execute("ROLLBACK TO move")
                connection.execute("RELEASE move")
                outcomes.append(made)
            connection.execute("COMMIT")
        except sqlite3.Error as error:
            with contextlib.suppress(sqlite3.Error):
                connection.execute("ROLLBACK")
            return [error] * len(entries)
        return outcomes


_POSTGRES_APPEND = f"""
WITH bumped AS (
    UPDATE matches
    SET version = $2 + 1, status = $3, deadline = $4, turn_started = $5, clocks = $6
    WHERE id = $1 AND version = $2 AND status = 'playing'
      AND ($7::varchar IS NULL OR owner = $7::varchar)
    RETURNING id
), logged AS (
    INSERT INTO moves (match_id, number, seat, move, client_id, at)
    SELECT id, $2, $8, $9, $10, $11 FROM bumped
    RETURNING number
)
SELECT count(pg_notify('{CHANNEL}', $12)) FROM logged
"""  # noqa: S608 - CHANNEL is this module's constant; every value is a parameter
"""The compare-and-set, the log's line and the notification, in one
statement (so in one transaction, one round trip)."""


class PostgresJournal:
    """Moves written through a pool of asyncpg connections."""

    def __init__(self, dsn: str, *, size: int = 8) -> None:
        self.dsn = dsn
        self.size = size
        self._pool: Any = None

    async def open(self) -> None:
        """Open the pool."""
        if self._pool is not None:
            return
        import asyncpg  # noqa: PLC0415 - the server extra's, needed on PostgreSQL only

        self._pool = await asyncpg.create_pool(self.dsn, min_size=1, max_size=self.size)

    async def append(self, entry: Entry) -> bool:
        import asyncpg  # noqa: PLC0415

        assert self._pool is not None, "open the journal first"
        async with self._pool.acquire() as connection:
            try:
                made = await connection.fetchval(
                    _POSTGRES_APPEND,
                    entry.match,
                    entry.version,
                    entry.status,
                    entry.deadline,
                    entry.turn_started,
                    entry.clocks,
                    entry.owner,
                    entry.seat,
                    entry.move,
                    entry.client_id,
                    entry.at,
                    entry.note(),
                )
            except asyncpg.UniqueViolationError:  # the client's id is in the log already
                return False
        return bool(made == 1)

    async def close(self) -> None:
        if self._pool is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._pool.close(), 10)
