"""What acts in a match without a person: the clock of the seat to move and
the bots in seats. They run in one place, the match's owner; their writes
are fenced by the ownership (a process that was taken for dead changes
nothing more once another has taken the match over).

A bot that fails its move (it raises, answers a move that is not legal,
takes longer than the server's time for a move, or its program dies) does
not stop the match: a random legal move is made for it, and everyone
watching the match is told (``bot_failed``, :meth:`Hub.tell_bot_failed`)."""

from __future__ import annotations

import asyncio
import functools
import logging
import random
from collections.abc import Coroutine
from typing import TYPE_CHECKING, Any

from sqlalchemy import update

from troedler.bots.base import (
    MAX_BOT_NAME,
    MAX_DETAIL,
    Bot,
    BotFailed,
    BotFailure,
    describe_error,
    limit_move_times,
    tell_game_over,
)
from troedler.bots.failure import ask_bot
from troedler.core.legal import apply_move, legal_moves
from troedler.core.moves import Move
from troedler.core.scoring import outcome
from troedler.core.state import GameState
from troedler.seat import observe
from troedler.server.match import Live
from troedler.server.store import dumps, matches
from troedler.simulation.lineup import bot_from_text

if TYPE_CHECKING:
    from troedler.server.hub import Hub

__all__ = ["GRACE_SECONDS", "Turns"]

log = logging.getLogger("troedler.server")

GRACE_SECONDS = 5.0
"""How much longer than its time for a move the server waits for a bot that
keeps its own time (a program bot, which then says how it failed), before
it makes a random move for it all the same."""


class Turns:
    """The clocks and bots of the matches a process owns."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub

    def clock_after(self, live: Live, state: GameState, mover: int | None) -> dict[str, Any]:
        """The clock columns once ``state`` is reached by a move of ``mover``
        (None: the match starts): the mover's time used is taken from its
        clock, and the seat to move gets its deadline."""
        settings = live.settings
        now = self.hub.now()
        clocks = live.clocks
        if settings.game_seconds is not None and clocks is None:
            clocks = [settings.game_seconds] * settings.players
        if (
            clocks is not None
            and mover is not None
            and live.turn_started is not None
            and live.bot_at(mover) is None
        ):
            clocks = list(clocks)
            clocks[mover] = max(0.0, clocks[mover] - (now - live.turn_started))
        seat = state.current_player
        deadline = None
        if not (state.is_over or seat is None or live.bot_at(seat) is not None):
            limits = [
                t
                for t in (settings.move_seconds, None if clocks is None else clocks[seat])
                if t is not None
            ]
            deadline = now + max(0.0, min(limits)) if limits else None
        return {
            "deadline": deadline,
            "turn_started": now,
            "clocks": None if clocks is None else dumps(clocks),
        }

    def schedule(self, live: Live) -> None:
        """Set going what acts next without a person, where this process owns
        the match: the bot to move, or the clock of the person to move."""
        if live.task is not None and not live.task.done():
            if live.task is asyncio.current_task():  # a bot's own move sets the next going
                live.task = None
            else:
                live.task.cancel()
        live.task = None
        if not live.owned or self.hub.stopping or live.status != "playing":
            return
        seat = live.state.current_player
        if seat is None:
            return
        if live.bot_at(seat) is not None:
            live.task = asyncio.create_task(
                self._guarded(live, self._bot_turn(live, live.version, seat))
            )
        elif live.deadline is not None:
            live.task = asyncio.create_task(
                self._guarded(live, self._clock(live, live.version, seat))
            )

    async def _guarded(self, live: Live, work: Coroutine[Any, Any, None]) -> None:
        """Run a clock or a bot; if it fails (the database away for a moment),
        say so and set it going again a second later, so that no match
        waits for ever on a move that failed once."""
        try:
            await work
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("troedler serve: match %s: a clock or bot failed; again in 1 s", live.id)
            await asyncio.sleep(1.0)
            if live.task is asyncio.current_task():
                self.schedule(live)

    def stop(self, live: Live) -> None:
        """Stop the match's clock and bots here (another process runs them now,
        or this one stops)."""
        if live.task is not None:
            live.task.cancel()
            live.task = None
        bots = list(live.bots.values())
        live.bots.clear()
        if bots:
            self.hub.bot_pool.submit(tell_game_over, bots, None, "stopped")

    def finish(self, live: Live) -> None:
        """The match is over: its bots hear how it ended."""
        bots = list(live.bots.values())
        live.bots.clear()
        if bots:
            result = outcome(live.state) if live.state.is_over else None
            self.hub.bot_pool.submit(
                tell_game_over, bots, result, "finished" if result else "stopped"
            )

    async def lost(self, live: Live) -> None:
        """A fenced write was refused: let the match's clock and bots go if
        another process owns it now, else read it again. The caller holds
        the match's lock."""
        if not await self.hub.owned_by_me(live):
            live.owned = False
            self.stop(live)
            return
        await self.hub.refresh_locked(live)

    async def _clock(self, live: Live, version: int, seat: int) -> None:
        assert live.deadline is not None
        await asyncio.sleep(max(0.0, live.deadline - self.hub.now()))
        hub = self.hub
        async with live.lock:
            if live.version != version or live.status != "playing":
                return
            if live.settings.on_timeout == "forfeit":
                ending = {"forfeit": seat, "reason": "time"}
                async with hub.engine.begin() as connection:
                    done = await connection.execute(
                        update(matches)
                        .where(
                            matches.c.id == live.id,
                            matches.c.version == version,
                            matches.c.status == "playing",
                            matches.c.owner == hub.name,
                        )
                        .values(status="forfeited", ending=dumps(ending), deadline=None)
                    )
                    telling = hub.cluster.telling(["s", live.id, version])
                    if done.rowcount == 1 and telling is not None:
                        await connection.execute(telling)
                if done.rowcount != 1:  # another process moved first or took the match
                    await self.lost(live)
                    return
                live.status, live.ending, live.deadline = "forfeited", ending, None
                hub.tell_status(live)
                self.finish(live)
                return
        await self._bot_turn(live, version, seat, stand_in=True)

    async def _bot_turn(self, live: Live, version: int, seat: int, stand_in: bool = False) -> None:
        """The bot at ``seat`` (or the stand-in, out of time) makes its move;
        one that fails has a random legal move made for it, and that told."""
        hub = self.hub
        text = live.settings.stand_in if stand_in else live.bot_at(seat)
        assert text is not None
        seen = observe(live.state, seat, recall=live.settings.recall)
        allowed = legal_moves(live.state)
        rng = random.Random(f"troedler-server/{live.first.seed}/{seat}/{version}")
        loop = asyncio.get_running_loop()
        answer: Move | BotFailure
        bot = live.bots.get(seat) if not stand_in else None
        if bot is None:
            made = await loop.run_in_executor(hub.bot_pool, _make_bot, text, hub.bot_seconds)
            if isinstance(made, Exception):
                bot, answer = None, _failure(seat, text, version, seen.round, made)
            else:
                bot = made
                if not stand_in:
                    live.bots[seat] = bot
        if bot is not None:
            asking = functools.partial(
                ask_bot,
                bot,
                seen,
                rng,
                move=version,
                move_time_limit=hub.bot_seconds,
                stop_waiting=True,
            )
            try:
                answer = await asyncio.wait_for(
                    loop.run_in_executor(hub.bot_pool, asking), hub.bot_seconds + GRACE_SECONDS
                )
            except TimeoutError:  # a bot keeping its own time that did not keep it
                late = f"did not answer its move within {hub.bot_seconds:g} s"
                answer = BotFailure(seat, _name(bot, text), version, seen.round, "slow", late)
            except Exception as error:  # what ask_bot does not catch (a name that raises)
                answer = _failure(seat, text, version, seen.round, error)
        move = answer if not isinstance(answer, BotFailure) else rng.choice(allowed)
        async with live.lock:
            if live.version != version or live.status != "playing" or not live.owned:
                return
            after = apply_move(live.state, move, seat=seat)
            if not await hub.commit(live, seat, move, after, None, owner=hub.name):
                await self.lost(live)
                return
            if isinstance(answer, BotFailure):
                hub.tell_bot_failed(live, answer, move)
            if stand_in:
                hub.tell_stood_in(live, seat, text, str(move))


def _make_bot(text: str, seconds: float) -> Bot | Exception:
    """The bot ``text`` names, given ``seconds`` a move where it keeps its own
    time (a program bot); what it raised if it could not be made (a program
    that does not start)."""
    try:
        bot = bot_from_text(text)
    except Exception as error:  # the bot's failure: its seat gets a random move
        return error
    limit_move_times([bot], seconds)
    return bot


def _bounded(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _name(bot: Bot, text: str) -> str:
    """A bot's name as a failure gives it (bounded); its text where it has none."""
    try:
        return _bounded(str(bot.name), MAX_BOT_NAME)
    except Exception:  # a name that raises is the bot's failure, told as its text
        return _bounded(text, MAX_BOT_NAME)


def _failure(seat: int, text: str, move: int, round_: int, error: Exception) -> BotFailure:
    """The bot ``text`` could not be made: a failure of the kind it says
    (a program's), else one that raised."""
    name = _bounded(text, MAX_BOT_NAME)
    if isinstance(error, BotFailed):  # a program's, which says how it failed
        return BotFailure(seat, name, move, round_, error.kind, _bounded(str(error), MAX_DETAIL))
    return BotFailure(seat, name, move, round_, "raised", describe_error(error))
