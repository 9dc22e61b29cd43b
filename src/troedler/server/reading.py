"""Reading a match from the database: the whole of it, to serve it, and
what changed since a version, to catch up with what other processes
wrote."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from troedler.core.chance import new_game
from troedler.core.moves import Move
from troedler.core.state import GameState
from troedler.io.notation import parse_move
from troedler.server.match import Elsewhere, Live, Seat, presence_row
from troedler.server.settings import MatchSettings
from troedler.server.store import match_row, matches, moves, presence, seats

__all__ = ["catch_up", "owner_of", "read_match", "refresh_row"]


async def _seats(connection: AsyncConnection, match_id: str) -> list[Seat]:
    rows = (
        await connection.execute(
            select(seats).where(seats.c.match_id == match_id).order_by(seats.c.seat)
        )
    ).all()
    return [Seat(row.name, row.token_hash, row.bot, row.left) for row in rows]


async def _elsewhere(connection: AsyncConnection, match_id: str, me: str | None) -> Elsewhere:
    """Who is connected to the match through each other process (PostgreSQL;
    none with ``me`` None, a process alone)."""
    if me is None:
        return {}
    rows = (
        await connection.execute(
            select(presence).where(presence.c.match_id == match_id, presence.c.server != me)
        )
    ).all()
    found = {}
    for row in rows:
        kept = presence_row(row.seats, row.spectators)
        if kept is not None:
            found[row.server] = kept
    return found


def refresh_row(live: Live, row: Any) -> None:
    """The match row's columns (not its version) into ``live``."""
    live.status = row.status
    live.deadline = row.deadline
    live.turn_started = row.turn_started
    live.clocks = None if row.clocks is None else json.loads(row.clocks)
    live.ending = None if row.ending is None else json.loads(row.ending)
    live.rematch = row.rematch


async def read_match(
    engine: AsyncEngine, match_id: str, *, replayed: bool = True, me: str | None = None
) -> Live | None:
    """The match as the database holds it, None if there is none; with
    ``replayed`` false, without its moves (for its summary alone: the
    position stays the first). ``me``, the reading process's name among
    several, reads who is connected through the others too."""
    async with engine.connect() as connection:
        row = await match_row(connection, match_id)
        if row is None:
            return None
        held = await _seats(connection, match_id)
        # Each statement sees what is committed when it runs: moves made since
        # the row was read are left for the next catching up.
        move_rows = (
            (
                await connection.execute(
                    select(moves)
                    .where(moves.c.match_id == match_id, moves.c.number < row.version)
                    .order_by(moves.c.number)
                )
            ).all()
            if replayed
            else []
        )
        elsewhere = await _elsewhere(connection, match_id, me)
    settings = MatchSettings.stored(json.loads(row.settings))
    first = new_game(settings.players, seed=row.seed, rules=settings.make_rules())
    live = Live(
        id=row.id,
        settings=settings,
        first=first,
        state=first,
        status=row.status,
        version=0,
        seats=held,
        created=row.created,
    )
    refresh_row(live, row)
    live.elsewhere = elsewhere
    _replay(live, move_rows)
    if not replayed:
        live.version = row.version
    elif live.version != row.version:
        raise RuntimeError(f"match {match_id}: version {row.version}, {live.version} moves")
    return live


def _replay(live: Live, move_rows: Sequence[Any]) -> None:
    for stored in move_rows:
        if stored.number != live.version:  # the log is gapless: the primary key and the version
            raise RuntimeError(f"match {live.id}: move {live.version} is missing")
        move = parse_move(stored.move, live.state)
        live.replay_move(stored.seat, stored.move, move, stored.client_id)


async def catch_up(
    engine: AsyncEngine, live: Live, me: str | None = None
) -> list[tuple[int, str, Move | None, GameState]]:
    """Bring ``live`` up to the database: the moves made since its version
    (returned, each its seat, text, move and the position it made), its
    seats and its row."""
    async with engine.connect() as connection:
        row = await match_row(connection, live.id)
        if row is None:
            return []
        held = await _seats(connection, live.id)
        move_rows = (
            await connection.execute(
                select(moves)
                .where(moves.c.match_id == live.id, moves.c.number >= live.version)
                .order_by(moves.c.number)
            )
        ).all()
        elsewhere = await _elsewhere(connection, live.id, me) if me is not None else None
    made = []
    for stored in move_rows:
        if stored.number < row.version:
            _replay(live, [stored])
            made.append((stored.seat, stored.move, live.last_move, live.state))
    live.seats = held
    refresh_row(live, row)
    if elsewhere is not None:
        live.elsewhere = elsewhere
    return made


async def owner_of(engine: AsyncEngine, match_id: str) -> str | None:
    """The name of the process that owns the match now."""
    async with engine.connect() as connection:
        return await connection.scalar(select(matches.c.owner).where(matches.c.id == match_id))
