"""The lease fences every write: once another process has taken a match over
and read it, the old owner's moves and seat changes are refused and it lets
the match go.

Two hubs share one real SQLite file in this process; their clocks are the
test's, so the old owner can stand still past its lease at will.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

pytest.importorskip("sqlalchemy")

from sqlalchemy import select

from troedler import legal_moves
from troedler.server.hub import Connection, Elsewhere, Hub
from troedler.server.settings import MatchSettings
from troedler.server.store import matches, migrate, moves, open_database, seats


async def _stood_still(path: Path) -> None:
    url = f"sqlite:///{path}"
    clock = [1_000.0]
    old = Hub(open_database(url), name="old", now=lambda: clock[0], lease_seconds=2)
    await migrate(old.engine)
    live = await old.create(MatchSettings(players=2, bots=(None, None)))
    for name in ("ann", "bob"):
        await old.join(live, name, None)
    first = live.state.current_player
    assert first is not None
    mover = Connection(first)
    legal = [str(move) for move in legal_moves(live.state)]
    assert await old.play(live, mover, 0, legal[0], "a1")
    waiting = await old.create(MatchSettings(players=2, bots=(None, None)))
    clock[0] += 10  # the old owner stood still: its lease ran out
    new = Hub(open_database(url), name="new", now=lambda: clock[0], lease_seconds=2)
    new.address = "http://new.example"
    taken = await new.load(live.id)
    assert taken is not None and taken.version == 1
    # Seats joined or left through the old owner are refused too, and say where to go.
    assert await new.load(waiting.id) is not None
    with pytest.raises(Elsewhere):
        await old.join(waiting, "cy", None)
    with pytest.raises(Elsewhere):
        await old.leave(live, 0)
    assert waiting.id not in old.live
    async with new.engine.connect() as connection:
        seated = (
            await connection.execute(
                select(seats.c.name, seats.c.left).where(
                    seats.c.match_id.in_([live.id, waiting.id])
                )
            )
        ).all()
    assert sorted(seated, key=str) == sorted(
        [("ann", False), ("bob", False), (None, False), (None, False)], key=str
    )
    old.live[live.id] = live  # as if it had not noticed yet: its moves are refused too
    # The old owner wakes up and makes a move on its copy: refused, and it lets go.
    to_move = live.state.current_player
    assert to_move is not None
    late = Connection(to_move)
    old.connect(live, late, None)
    move = str(legal_moves(live.state)[0])
    assert not await old.play(live, late, 1, move, "b1")
    assert live.id not in old.live and late.closed
    # The new owner's copy is the database's: the same move is made there.
    assert await new.play(taken, Connection(to_move), 1, move, "b1")
    async with new.engine.connect() as connection:
        row = (await connection.execute(select(matches).where(matches.c.id == live.id))).one()
        logged = (
            await connection.execute(select(moves.c.number).where(moves.c.match_id == live.id))
        ).all()
    assert row.owner == "new" and row.version == 2 and len(logged) == 2
    await old.close()
    await new.close()


def test_a_process_past_its_lease_changes_nothing_once_the_match_is_taken_over(
    tmp_path: Path,
) -> None:
    asyncio.run(_stood_still(tmp_path / "matches.sqlite3"))
