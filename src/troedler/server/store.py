"""The server's database: its tables, the migrations that make them, and the
writes that must be atomic.

SQLAlchemy 2's async engine gives one code path for SQLite (aiosqlite, the
default: one file in WAL mode) and PostgreSQL (asyncpg); Alembic migrates
both and is run at startup. A match's moves are an append-only log; the
match's ``version`` (the number of moves made) is the compare-and-set that
lets a move in only if nobody else's got in first, so no move is applied
twice, whichever process or connection sends it. That one write, the
server's hot path, is the journal's (:mod:`troedler.server.journal`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Connection,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    event,
    select,
)
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from troedler.server.cluster import Alone, Cluster, PostgresCluster
from troedler.server.journal import Journal, PostgresJournal, SQLiteJournal, sqlite_pragmas

__all__ = [
    "DEFAULT_DATABASE",
    "InvalidDatabase",
    "matches",
    "metadata",
    "migrate",
    "moves",
    "open_database",
    "parts_for",
    "presence",
    "seats",
    "servers",
]

DEFAULT_DATABASE = "sqlite+aiosqlite:///troedler-server.sqlite3"
"""An SQLite file in the current folder."""

metadata = MetaData()

matches = Table(
    "matches",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("created", Float, nullable=False),
    Column("status", String(16), nullable=False, index=True),
    Column("public", Boolean, nullable=False),
    Column("players", Integer, nullable=False),
    Column("settings", Text, nullable=False),
    Column("seed", BigInteger, nullable=False),
    Column("version", Integer, nullable=False),
    Column("deadline", Float, nullable=True),
    Column("turn_started", Float, nullable=True),
    Column("clocks", Text, nullable=True),
    Column("ending", Text, nullable=True),
    Column("rematch", String(32), nullable=True),
    Column("owner", String(64), nullable=True, index=True),
    Column("owner_address", String(200), nullable=True),
    Column("lease_until", Float, nullable=True),
)
"""One row a match. ``version`` counts the moves made; ``deadline`` is when
the seat to move runs out of time (seconds since the epoch), ``clocks`` what
is left of each seat's time for the game; ``ending`` says how the match
ended when it did not end by the rules (a forfeit). ``owner`` is the name
of the server process that serves the match until ``lease_until``, and
``owner_address`` where clients reach it."""

seats = Table(
    "seats",
    metadata,
    Column("match_id", String(32), ForeignKey("matches.id"), primary_key=True),
    Column("seat", Integer, primary_key=True, autoincrement=False),
    Column("name", String(64), nullable=True),
    Column("token_hash", String(64), nullable=True),
    Column("bot", String(200), nullable=True),
    Column("left", Boolean, nullable=False),
)
"""One row a seat: a person's (named, with the hash of its token) or a bot's."""

moves = Table(
    "moves",
    metadata,
    Column("match_id", String(32), ForeignKey("matches.id"), primary_key=True),
    Column("number", Integer, primary_key=True, autoincrement=False),
    Column("seat", Integer, nullable=False),
    Column("move", Text, nullable=False),
    Column("client_id", String(64), nullable=True),
    Column("at", Float, nullable=False),
    UniqueConstraint("match_id", "seat", "client_id", name="uq_moves_client_id"),
)
"""The append-only move log: move ``number`` took the match from version
``number`` to ``number + 1``."""

servers = Table(
    "servers",
    metadata,
    Column("name", String(64), primary_key=True),
    Column("number", Integer, nullable=False, unique=True),
    Column("address", String(200), nullable=True),
    Column("alive_until", Float, nullable=True),
)
"""One row a server process that ever shared the database: its name, a
number (the key of the advisory lock it holds while it runs, on
PostgreSQL), where its clients reach it, and until when it said it was
alive (the database's own clock, seconds since the epoch)."""


presence = Table(
    "presence",
    metadata,
    Column("match_id", String(32), primary_key=True),
    Column("server", String(64), primary_key=True),
    Column("seats", Text, nullable=False),
    Column("spectators", Integer, nullable=False),
)
"""Who is connected to a match through each server process sharing a
PostgreSQL database: how many connections each seat has (JSON) and how
many spectators. A process keeps its own rows (none while nobody is
connected through it), so that another one loading the match welcomes its
first connection with everybody present; the rows of a process found dead
are not read."""


class InvalidDatabase(Exception):
    """A database URL the server cannot use."""


def _pragmas(connection: Any, _record: Any) -> None:
    sqlite_pragmas(connection)


def open_database(url: str) -> AsyncEngine:
    """An async engine for ``url``: ``sqlite+aiosqlite:///FILE`` or
    ``postgresql+asyncpg://...`` (``sqlite:`` and ``postgresql:`` alone get
    those drivers)."""
    try:
        parsed = make_url(url)
    except Exception as error:  # SQLAlchemy's ArgumentError, ValueError
        raise InvalidDatabase(f"not a database URL: {str(error)[:80]}") from None
    backend = parsed.get_backend_name()
    if backend == "sqlite":
        parsed = parsed.set(drivername="sqlite+aiosqlite")
        if parsed.database in (None, "", ":memory:"):
            raise InvalidDatabase("the SQLite database must be a file")
        engine = create_async_engine(parsed)
        event.listen(
            engine.sync_engine, "connect", lambda connection, _: sqlite_pragmas(connection)
        )
        return engine
    if backend == "postgresql":
        parsed = parsed.set(drivername="postgresql+asyncpg")
        return create_async_engine(parsed, pool_size=10, max_overflow=10)
    raise InvalidDatabase(f"the server stores its matches in SQLite or PostgreSQL, not {backend}")


def _upgrade(connection: Connection) -> None:
    config = Config()
    config.set_main_option("script_location", str(Path(__file__).parent / "migrations"))
    config.attributes["connection"] = connection
    command.upgrade(config, "head")


async def migrate(engine: AsyncEngine) -> None:
    """Bring the database's tables up to date (Alembic's ``upgrade head``)."""
    async with engine.begin() as connection:
        await connection.run_sync(_upgrade)


def dumps(value: object) -> str:
    """JSON text of a stored value."""
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def parts_for(
    url: str, *, name: str, address: str, lease_seconds: float
) -> tuple[AsyncEngine, Journal, Cluster]:
    """The engine, the move journal and the cluster of the database at ``url``:
    on SQLite one process alone, on PostgreSQL any number sharing it."""
    engine = open_database(url)
    parsed = engine.url
    if parsed.get_backend_name() == "sqlite":
        assert parsed.database is not None
        return engine, SQLiteJournal(parsed.database), Alone(name)
    dsn = parsed.set(drivername="postgresql").render_as_string(hide_password=False)
    return (
        engine,
        PostgresJournal(dsn),
        PostgresCluster(dsn, name, address, lease_seconds),
    )


async def match_row(connection: AsyncConnection, match_id: str) -> Any:
    """The match's row, or None."""
    return (await connection.execute(select(matches).where(matches.c.id == match_id))).first()
