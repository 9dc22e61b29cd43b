"""The lobby's writes: a match created, a seat joined or left, a rematch.

Any process may make them. Each is one transaction that first locks the
match's row (on PostgreSQL; SQLite has one writer at a time), so two
people joining the last two seats through two processes start the match
once; it tells the other processes (``s``) when it commits, and each of
them reads the match again and tells its connections.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from typing import TYPE_CHECKING, Any

import attrs
from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from troedler.server.match import Live, hash_token
from troedler.server.settings import BadRequest, MatchSettings, check_name
from troedler.server.store import dumps, matches, seats

if TYPE_CHECKING:
    from troedler.server.hub import Hub

__all__ = ["Lobby", "rematch_token"]


class Lobby:
    """Creating, joining, leaving and playing again."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub

    async def create(self, settings: MatchSettings, *, seed: int | None = None) -> Live:
        """A new match, waiting for its players, owned by this process, dealt
        from ``seed`` (default: a new random one); refused (``busy``) while
        ``max_waiting`` matches wait already."""
        hub = self.hub
        match_id = secrets.token_urlsafe(12)
        async with hub.engine.begin() as connection:
            waiting = await connection.scalar(
                select(func.count()).select_from(matches).where(matches.c.status == "waiting")
            )
            if (waiting or 0) >= hub.max_waiting:
                raise BadRequest(
                    f"{hub.max_waiting} matches are waiting for players: join one, "
                    "or try again later",
                    status=503,
                    code="busy",
                )
            await connection.execute(
                insert(matches).values(
                    id=match_id,
                    created=hub.now(),
                    status="waiting",
                    public=settings.public,
                    players=settings.players,
                    settings=dumps(settings.to_data()),
                    seed=secrets.randbelow(2**62) if seed is None else seed,
                    version=0,
                    owner=hub.name,
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
        live = await hub.load(match_id)
        assert live is not None
        live.owned = True
        return live

    async def _locked_status(self, connection: AsyncConnection, live: Live) -> str:
        """The match's status, its row locked until the transaction ends."""
        status = await connection.scalar(
            select(matches.c.status).where(matches.c.id == live.id).with_for_update()
        )
        return str(status)

    async def _tell(self, connection: AsyncConnection, live: Live) -> None:
        telling = self.hub.cluster.telling(["s", live.id, live.version])
        if telling is not None:
            await connection.execute(telling)

    async def join(
        self, live: Live, name: object, seat: object, token: str | None = None
    ) -> tuple[int, str]:
        """Seat a person called ``name`` (at ``seat``, or the first open one):
        the seat and its token (``token``, or a new random one). The match
        starts once every seat is taken."""
        name = check_name(name)
        hub = self.hub
        token = token or secrets.token_urlsafe(32)
        async with live.lock:
            async with hub.engine.begin() as connection:
                if await self._locked_status(connection, live) != "waiting":
                    raise BadRequest(
                        "the match has started: watch it instead", status=409, code="started"
                    )
                open_seats = list(
                    (
                        await connection.execute(
                            select(seats.c.seat)
                            .where(
                                seats.c.match_id == live.id,
                                seats.c.bot.is_(None),
                                seats.c.token_hash.is_(None),
                            )
                            .order_by(seats.c.seat)
                        )
                    ).scalars()
                )
                if seat is None:
                    if not open_seats:
                        raise BadRequest("every seat is taken", status=409, code="full")
                    seat = open_seats[0]
                if type(seat) is not int or seat not in open_seats:
                    raise BadRequest(
                        f"seat: not an open seat: {str(seat)[:12]}", status=409, code="taken"
                    )
                await connection.execute(
                    update(seats)
                    .where(seats.c.match_id == live.id, seats.c.seat == seat)
                    .values(name=name, token_hash=hash_token(token))
                )
                if len(open_seats) == 1:  # the last seat: the match starts
                    clock = hub.turns.clock_after(live, live.first, None)
                    await connection.execute(
                        update(matches)
                        .where(matches.c.id == live.id)
                        .values(status="playing", **clock)
                    )
                await self._tell(connection, live)
            await hub.refresh_locked(live)
        return seat, token

    async def leave(self, live: Live, seat: int) -> None:
        """``seat``'s player leaves: before the start the seat opens again; after
        it the stand-in bot plays the seat from now on."""
        hub = self.hub
        async with live.lock:
            async with hub.engine.begin() as connection:
                status = await self._locked_status(connection, live)
                if status == "waiting":
                    values: dict[str, Any] = {"name": None, "token_hash": None}
                elif status == "playing":
                    values = {"left": True}
                else:
                    raise BadRequest("the match is over", status=409, code="over")
                await connection.execute(
                    update(seats)
                    .where(seats.c.match_id == live.id, seats.c.seat == seat)
                    .values(**values)
                )
                await self._tell(connection, live)
            await hub.refresh_locked(live)

    async def rematch(self, old: Live, seat: int, token: str) -> tuple[Live, int, str]:
        """The same people again: the first to ask makes the new match (same
        settings, a new seed, not listed in the lobby: its seats are the old
        match's people's); each gets their own seat in it and a new token.

        Asked again by the same seat (``token``, its token in the old
        match), it answers the same match, seat and token: the new token is
        made from the old one and the new match, so the server keeps no
        more than its hash, and a person whose first answer was lost gets
        their seat back."""
        hub = self.hub
        async with old.lock:
            if old.status not in ("finished", "forfeited"):
                raise BadRequest(
                    "a rematch follows a match that is over", status=409, code="not_over"
                )
            if old.rematch is None:
                new = await self.create(attrs.evolve(old.settings, public=False))
                async with hub.engine.begin() as connection:
                    done = await connection.execute(
                        update(matches)
                        .where(matches.c.id == old.id, matches.c.rematch.is_(None))
                        .values(rematch=new.id)
                    )
                    if done.rowcount == 1:
                        await self._tell(connection, old)
                    else:  # another process made the rematch first: this one goes
                        await connection.execute(delete(seats).where(seats.c.match_id == new.id))
                        await connection.execute(delete(matches).where(matches.c.id == new.id))
                if done.rowcount != 1:
                    hub.drop(new.id)
                await hub.refresh_locked(old)
            assert old.rematch is not None
        new_live = await hub.load(old.rematch)
        assert new_live is not None
        again = rematch_token(token, new_live.id)
        if new_live.seat_of(again) == seat:
            return new_live, seat, again  # asked before: the same answer
        name = old.seats[seat].name or f"seat {seat}"
        joined, given = await self.join(new_live, name, seat, again)
        return new_live, joined, given


def rematch_token(token: str, match: str) -> str:
    """A seat's token in the rematch ``match``, made from its token in the
    match before: the same every time it is asked, and telling nothing of the
    old token to whoever sees the new one."""
    digest = hmac.new(token.encode("utf-8", "replace"), match.encode(), hashlib.sha256)
    return base64.urlsafe_b64encode(digest.digest()).decode().rstrip("=")
