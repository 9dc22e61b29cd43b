"""Ownership fences only what runs in one place: once another process has
taken a match over, the old owner's bot moves and clock forfeits are
refused and it lets the match's clocks and bots go, while a person's move
is still any process's to take.

Two hubs share one real SQLite file in this process, as two processes
would share a database; the takeover is made by hand, as a process that
found the owner dead makes it.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

pytest.importorskip("sqlalchemy")

from sqlalchemy import insert, select

from troedler import apply_move, legal_moves
from troedler.server.cluster import Alone
from troedler.server.connection import Connection
from troedler.server.hub import Hub
from troedler.server.journal import SQLiteJournal
from troedler.server.reading import read_match
from troedler.server.settings import MatchSettings
from troedler.server.store import matches, migrate, moves, open_database


def hub(path: Path, name: str) -> Hub:
    return Hub(open_database(f"sqlite:///{path}"), SQLiteJournal(str(path)), Alone(name))


async def _taken_over(path: Path) -> None:
    old = hub(path, "old")
    await migrate(old.engine)
    live = await old.lobby.create(MatchSettings(players=2, bots=(None, None)))
    assert live.owned
    for name in ("ann", "bob"):
        await old.lobby.join(live, name, None)
    new = hub(path, "new")
    assert await new.owners.take(matches.c.id == live.id) == [live.id]
    copy = new.live[live.id]
    assert copy.owned and copy.status == "playing"
    seat = live.state.current_player
    assert seat is not None
    move = legal_moves(live.state)[0]
    after = apply_move(live.state, move, seat=seat)
    # The old owner's write as an owner (a bot's move, a clock's) is refused,
    # and it lets the match's clocks and bots go.
    async with live.lock:
        assert not await old.commit(live, seat, move, after, None, owner="old")
        await old.turns.lost(live)
    assert not live.owned and live.version == 0
    # A person's move is any process's: made through the old owner ...
    assert await old.play(live, Connection(seat), 0, str(move), "a1")
    # ... read by the new one, where the same move id is answered as before.
    await new.refresh(copy)
    assert copy.version == 1 and copy.history == live.history
    again = Connection(seat)
    assert not await new.play(copy, again, 0, str(move), "a1")
    answer = again.outbox.get_nowait()
    assert answer == '{"id":"a1","protocol":1,"type":"accepted","version":1}'
    # A move at a version the database has left is refused, and the copy caught up.
    live.version, live.state = 0, live.first  # as if it had missed the move
    live.history, live.accepted = [], {}
    stale = Connection(seat)
    assert not await old.play(live, stale, 0, str(move), "a2")
    assert live.version == 1 and live.history == copy.history
    assert '"code":"stale"' in stale.outbox.get_nowait()
    async with new.engine.connect() as connection:
        row = (await connection.execute(select(matches).where(matches.c.id == live.id))).one()
        logged = (
            await connection.execute(select(moves.c.number).where(moves.c.match_id == live.id))
        ).all()
    assert row.owner == "new" and row.version == 1 and len(logged) == 1
    await old.close()
    await new.close()


def test_a_match_taken_over_fences_the_old_owners_bots_but_not_its_people(
    tmp_path: Path,
) -> None:
    asyncio.run(_taken_over(tmp_path / "matches.sqlite3"))


async def _read_while_a_move_commits(path: Path) -> None:
    old = hub(path, "a")
    await migrate(old.engine)
    live = await old.lobby.create(MatchSettings(players=2, bots=(None, None)))
    for name in ("ann", "bob"):
        await old.lobby.join(live, name, None)
    seat = live.state.current_player
    assert seat is not None
    move = legal_moves(live.state)[0]
    # A move's line in the log that the row's version does not count yet: what
    # a reader sees when the move commits between its two statements.
    async with old.engine.begin() as connection:
        await connection.execute(
            insert(moves).values(
                match_id=live.id, number=0, seat=seat, move=str(move), client_id="x", at=0.0
            )
        )
    read = await read_match(old.engine, live.id)
    assert read is not None and read.version == 0 and read.history == []
    await old.close()


def test_a_match_is_read_at_its_rows_version_whatever_commits_meanwhile(tmp_path: Path) -> None:
    asyncio.run(_read_while_a_move_commits(tmp_path / "matches.sqlite3"))
