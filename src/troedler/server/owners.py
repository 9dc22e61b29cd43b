"""Which process runs each match's clocks and bots: its owner, named in the
match's row.

A process owns the matches it creates. Every quarter of its lease (half a
second at most) it says it is alive and looks for processes that are not
(:meth:`troedler.server.cluster.Cluster.beat`); it takes over the matches
of those, and the matches nobody owns (their owner stopped cleanly). Two
processes that both try take each match at most once between them (a
compare-and-set on the owner). A process that starts takes back the
matches it owned under its name; one alone on its database (SQLite) owns
them all.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING

from sqlalchemy import or_, select, update

from troedler.server.store import matches

if TYPE_CHECKING:
    from troedler.server.hub import Hub

__all__ = ["Owners"]

log = logging.getLogger("troedler.server")

BEAT_SECONDS = 0.5
"""The longest time between two beats: how soon a dead process is seen."""
CHECK_BEATS = 20
"""Every so many beats, the matches this process owns are checked against the database."""
RUNNING = ("waiting", "playing")


class Owners:
    """The ownership of one process's matches."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self._task: asyncio.Task[None] | None = None
        self.beats = 0

    @property
    def interval(self) -> float:
        """Seconds between beats."""
        return min(BEAT_SECONDS, self.hub.lease_seconds / 4)

    async def start(self) -> None:
        """Take this process's matches, and beat from now on."""
        hub = self.hub
        mine = or_(matches.c.owner.is_(None), matches.c.owner == hub.name)
        if not hub.cluster.several:
            mine = matches.c.status.in_(RUNNING)  # alone: every match is this process's
        await self.take(mine)
        self._task = asyncio.create_task(self._run())

    async def stop(self) -> None:
        """Stop beating, and give up every match (the others take them at once)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(BaseException):
                await self._task
        await self.hub.let_go()

    async def _run(self) -> None:
        while not self.hub.stopping:
            await asyncio.sleep(self.interval)
            try:
                await self.beat()
            except Exception:  # the database is away: try again next time
                log.warning("troedler serve: a beat failed", exc_info=True)

    async def beat(self) -> None:
        """Say this process is alive; take over the matches of the dead and of
        nobody; let go of the copies nobody needs here."""
        hub = self.hub
        self.beats += 1
        dead, reconnected = await hub.cluster.beat()
        if reconnected:  # notifications were missed: read every match again
            for live in list(hub.live.values()):
                hub.spawn(hub.refresh(live))
                if live.connections:  # and say again who is connected here
                    hub.tell_presence(live)
        for name in dead:
            hub.forget_server(name)
        if dead:
            await self.take(matches.c.owner.in_(dead))
        if hub.cluster.several:
            await self.take(matches.c.owner.is_(None))
        if reconnected or self.beats % CHECK_BEATS == 0:
            await self._check()
        self._tidy()

    async def take(self, which: object) -> list[str]:
        """Own the running matches ``which`` selects (a condition on the
        matches table) and set their clocks and bots going; their ids."""
        hub = self.hub
        async with hub.engine.begin() as connection:
            taken = list(
                (
                    await connection.execute(
                        update(matches)
                        .where(matches.c.status.in_(RUNNING), which)  # type: ignore[arg-type]
                        .values(owner=hub.name, owner_address=None, lease_until=None)
                        .returning(matches.c.id)
                    )
                ).scalars()
            )
        if self._task is None:  # starting: ready once they run
            await self._own_all(taken)
        elif taken:  # beating: read them meanwhile, so the next death is seen in time
            hub.spawn(self._own_all(taken))
        if taken and hub.cluster.several:
            log.info("troedler serve: %s took over %d matches", hub.name, len(taken))
        return taken

    async def _own_all(self, taken: list[str]) -> None:
        for match_id in taken:
            await self._own(match_id)

    async def _own(self, match_id: str) -> None:
        """Run the clocks and bots of a match this process owns."""
        hub = self.hub
        try:
            live = await hub.load(match_id)
        except Exception:  # read again at the next check
            log.exception("troedler serve: match %s could not be read", match_id)
            return
        if live is not None and not live.owned:
            live.owned = True
            hub.turns.schedule(live)

    async def _check(self) -> None:
        """Make this process's matches those the database says it owns: let
        go of the clocks and bots of those another process owns now (this
        one was taken for dead while it stood still), and run those of any
        it owns but does not run (one it could not read when it took it)."""
        hub = self.hub
        async with hub.engine.connect() as connection:
            mine = set(
                (
                    await connection.execute(
                        select(matches.c.id).where(
                            matches.c.owner == hub.name, matches.c.status.in_(RUNNING)
                        )
                    )
                ).scalars()
            )
        for match_id, live in list(hub.live.items()):
            if live.owned and live.status in RUNNING and match_id not in mine:
                live.owned = False
                hub.turns.stop(live)
        for match_id in mine:
            held = hub.live.get(match_id)
            if held is None or not held.owned:
                await self._own(match_id)

    def _tidy(self) -> None:
        """Forget the matches this process neither shows nor runs."""
        hub = self.hub
        for match_id, live in list(hub.live.items()):
            running = live.owned and live.status in RUNNING
            if not running and not live.connections and not live.lock.locked():
                hub.drop(match_id)
