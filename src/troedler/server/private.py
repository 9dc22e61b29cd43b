"""``troedler play --browser``: the game server, run privately for one person.

:func:`play_in_browser` runs the server of ``troedler serve`` on 127.0.0.1
at a free port, every address under a random token, with bots in the other
seats and an SQLite file of its own as its store. It prints the address
and opens it in a browser: the same page ``troedler serve`` gives people
(:mod:`troedler.client`), going straight to the person's match. The store
is the save: every move is in it before the page hears of it, ``--resume``
opens it again (or imports an unfinished game record), and a finished
match's record is downloaded from the page, as from any server.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import sqlite3
import sys
import threading
import time
import webbrowser
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from sqlalchemy import insert, select, update

from troedler.core.errors import ConfigurationError, FormatError
from troedler.core.rulebook import Rules
from troedler.io.records import GameRecord, replay
from troedler.seat import Recall
from troedler.server.app import ServerSettings, make_app
from troedler.server.hub import Hub
from troedler.server.lobby import rematch_token
from troedler.server.match import Live, hash_token
from troedler.server.running import Stoppable, listener, run
from troedler.server.settings import BadRequest, MatchSettings
from troedler.server.store import dumps, matches, moves, seats

__all__ = ["AFTER_THE_END", "IDLE_LIMIT", "play_in_browser"]

IDLE_LIMIT = 4 * 3600.0
"""Seconds with no page connected after which the private server stops."""
AFTER_THE_END = 60.0
"""Seconds the private server stays up once the person's last match is over
and no page is connected."""
MAX_RECORD_BYTES = 10_000_000
"""The largest record file ``--resume`` reads."""
SQLITE_HEADER = b"SQLite format 3\x00"


def _default_store() -> Path:
    """A new file name in the current folder for a new game's store.

    It does not name the seed: the seed would tell every card still face down.
    """
    return Path(f"troedler-game-{time.strftime('%Y%m%d-%H%M%S')}.sqlite3")


def _is_store(path: Path) -> bool:
    with open(path, "rb") as opened:
        return opened.read(len(SQLITE_HEADER)) == SQLITE_HEADER


def _read_record(path: Path) -> GameRecord:
    size = path.stat().st_size
    if size > MAX_RECORD_BYTES:
        raise FormatError(str(path), "", f"{size} bytes, more than a saved game holds")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise FormatError(str(path), "", "neither a game's store nor a game record") from None
    return GameRecord.from_json(text)


def _match_settings(players: int, bots: list[str | None], recall: Recall) -> MatchSettings:
    """The settings of the private match: any bot the person names, an exec:
    bot too (it is their own machine); not listed (nobody else looks)."""
    data = {"players": players, "bots": bots, "recall": recall, "public": False}
    try:
        return MatchSettings.from_data(data, allow_exec=True, any_bot=True)
    except BadRequest as error:
        raise ConfigurationError(f"--bots: {error}") from None


def _seat_bots(bots: Sequence[str], seat: int, players: int) -> list[str | None]:
    """Each seat's bot (None at the person's seat): ``bots`` repeated in seat order."""
    return [None if s == seat else bots[(s - (s > seat)) % len(bots)] for s in range(players)]


class _Private:
    """The person's games in the private server: the first match, and the
    person's seat and token in it (a rematch's token is made from it)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.first = ""
        self.seat = 0
        self.token = ""

    async def latest(self, hub: Hub) -> tuple[Live, str]:
        """The person's newest match (the last of the rematches) and their token in it."""
        live = await hub.load(self.first)
        token = self.token
        assert live is not None
        while live.rematch is not None:
            following = await hub.load(live.rematch)
            if following is None or following.seat_of(rematch_token(token, following.id)) is None:
                break
            token = rematch_token(token, following.id)
            live = following
        return live, token

    async def about(self, hub: Hub) -> dict[str, Any]:
        """What the page is told of the person's game (``GET /api/server``)."""
        live, token = await self.latest(hub)
        return {"match": live.id, "seat": self.seat, "token": token, "name": self.name}


async def _new(hub: Hub, game: _Private, settings: MatchSettings, seed: int) -> None:
    live = await hub.lobby.create(settings, seed=seed)
    game.first = live.id
    game.seat, game.token = await hub.lobby.join(live, game.name, game.seat)


async def _resumed(hub: Hub, game: _Private) -> None:
    """The store's unfinished match: its person's seat gets a new token (the
    store keeps only the old one's hash)."""
    async with hub.engine.connect() as connection:
        found = (
            await connection.execute(
                select(matches.c.id)
                .where(matches.c.status == "playing")
                .order_by(matches.c.created.desc())
                .limit(1)
            )
        ).first()
    if found is None:
        raise ConfigurationError("--resume: the store holds no unfinished game")
    live = await hub.load(found[0])
    assert live is not None
    people = [seat for seat, held in enumerate(live.seats) if held.bot is None]
    game.seat = people[0]
    game.name = live.seats[game.seat].name or game.name
    game.first, game.token = live.id, secrets.token_urlsafe(32)
    async with live.lock:
        async with hub.engine.begin() as connection:
            await connection.execute(
                update(seats)
                .where(seats.c.match_id == live.id, seats.c.seat == game.seat)
                .values(token_hash=hash_token(game.token), left=False)
            )
        await hub.refresh_locked(live)


async def _imported(hub: Hub, game: _Private, record: GameRecord, settings: MatchSettings) -> None:
    """An unfinished game record, as a match of the store at its last move."""
    match_id = secrets.token_urlsafe(12)
    game.token = secrets.token_urlsafe(32)
    now = hub.now()
    async with hub.engine.begin() as connection:
        await connection.execute(
            insert(matches).values(
                id=match_id,
                created=now,
                status="playing",
                public=False,
                players=settings.players,
                settings=dumps(settings.to_data()),
                seed=record.seed,
                version=len(record.moves),
                owner=hub.name,
                turn_started=now,
            )
        )
        await connection.execute(
            insert(seats),
            [
                {
                    "match_id": match_id,
                    "seat": seat,
                    "name": game.name if bot is None else None,
                    "token_hash": hash_token(game.token) if bot is None else None,
                    "bot": bot,
                    "left": False,
                }
                for seat, bot in enumerate(settings.bots)
            ],
        )
        if record.moves:
            await connection.execute(
                insert(moves),
                [
                    {
                        "match_id": match_id,
                        "number": number,
                        "seat": mover,
                        "move": text,
                        "client_id": None,
                        "at": now,
                    }
                    for number, (mover, text) in enumerate(
                        zip(record.movers or (), record.moves, strict=True)
                    )
                ],
            )
    live = await hub.load(match_id)
    assert live is not None
    live.owned = True
    hub.turns.schedule(live)
    game.first = match_id


def _watch(hub: Hub, game: _Private, stop: threading.Event) -> Awaitable[None]:
    """Stop the server once nobody has looked for :data:`IDLE_LIMIT`, or
    :data:`AFTER_THE_END` after the person's last match ended."""

    async def watch() -> None:
        quiet_since = time.monotonic()
        while not stop.is_set():
            await asyncio.sleep(0.5)
            if any(live.connections for live in hub.live.values()):
                quiet_since = time.monotonic()
                continue
            live, _ = await game.latest(hub)
            over = live.status in ("finished", "forfeited")
            quiet = time.monotonic() - quiet_since
            if quiet > IDLE_LIMIT or (over and quiet > AFTER_THE_END):
                stop.set()

    return watch()


def play_in_browser(
    players: int,
    seed: int,
    bots: Sequence[str],
    seat: int,
    recall: Recall = "perfect",
    *,
    save: str | Path | None = None,
    name: str = "you",
    resume: str | Path | None = None,
    open_browser: bool = True,
    write: Callable[[str], None] = print,
    move_time_limit: float | None = None,
    ready: Callable[[str], None] | None = None,
) -> int:
    """Play in the browser on a private game server; the exit status (130 after Ctrl-C).

    A new game of ``players`` dealt from ``seed`` puts the person called
    ``name`` at ``seat`` and ``bots`` (repeated in seat order) in the other
    seats, stored in ``save`` (default: a new file in the current folder),
    which must not exist yet. ``resume`` goes on with the unfinished game of
    a store this wrote, or of a game record (from ``troedler play``), which
    is stored in ``save`` (default: a new file) with ``bots`` in the other
    seats. A bot gets ``move_time_limit`` seconds a move (default 600),
    after which a random legal move is made for it, as on any server.
    ``ready`` is called with the page's address once the server listens.
    :class:`~troedler.TroedlerError` for bad settings, before any server starts.
    """
    if not bots:
        raise ConfigurationError("name at least one bot for the other seats")
    game = _Private(name)
    record: GameRecord | None = None
    store: Path
    if resume is not None:
        source = Path(resume)
        try:
            is_store = _is_store(source)
        except OSError as error:
            raise ConfigurationError(f"cannot read {source}: {error.strerror}") from None
        if is_store:
            store = source
            if save is not None and Path(save) != source:
                raise ConfigurationError("--save: a resumed store is saved in itself")
            if not _unfinished(store):
                raise ConfigurationError(
                    f"--resume: {store} holds no unfinished game; its finished ones "
                    "are downloaded as records from the page"
                )
        else:
            record = _read_record(source)
            if replay(record)[-1].is_over:
                raise ConfigurationError(
                    f"the game in {source} is over; watch it with: troedler replay {source}"
                )
            store = Path(save) if save is not None else _default_store()
            players = len(record.seats)
            if record.rules != Rules.for_players(players):
                raise ConfigurationError(f"--resume: {source} was played with other rules")
    else:
        store = Path(save) if save is not None else _default_store()
    if (resume is None or record is not None) and store.exists():
        raise ConfigurationError(
            f"{store} exists already: resume its game with --resume, or choose another file"
        )
    if not 0 <= seat < players:
        raise ConfigurationError(f"seat must be 0 to {players - 1}, not {seat}")
    if record is not None and name in record.seats:
        seat = record.seats.index(name)  # the person's seat: the one named as they are
    game.seat = seat
    settings = _match_settings(players, _seat_bots(bots, seat, players), recall)

    token = secrets.token_urlsafe(24)
    stop = threading.Event()

    async def prepare(hub: Hub) -> Callable[[], Awaitable[dict[str, Any]]]:
        if resume is not None and record is None:
            await _resumed(hub, game)
        elif record is not None:
            await _imported(hub, game, record, settings)
        else:
            await _new(hub, game, settings, seed)
        hub.spawn(_watch(hub, game, stop))
        return lambda: game.about(hub)

    bound = listener("127.0.0.1", 0)
    url = f"http://127.0.0.1:{bound.getsockname()[1]}/{token}/"
    server_settings = ServerSettings(
        database=f"sqlite:///{store.resolve()}",
        allowed_hosts=("127.0.0.1",),
        allow_exec=True,
        any_bot=True,
        bot_seconds=move_time_limit if move_time_limit is not None else 600.0,
        name="private",
        address=url,
        base=f"/{token}",
    )

    def started(server: Stoppable) -> None:
        write(f"Your game is at {url}")
        write("Keep this address to yourself: it lets whoever has it play your seat.")
        sys.stdout.flush()  # a pipe would hold the address back
        if ready is not None:
            ready(url)
        if open_browser:
            try:
                opened = webbrowser.open(url)
            except webbrowser.Error:
                opened = False
            if not opened:
                write("No browser could be opened: open the address above in one.")
        stop.wait()
        server.should_exit = True

    try:
        status = run(
            lambda on_ready: make_app(server_settings, on_ready=on_ready, prepare=prepare),
            bound,
            max_message=server_settings.max_message,
            started=started,
        )
    finally:
        stop.set()
    write(f"The game is saved in {store}.")
    if _unfinished(store):
        write(f"It is not over: resume it with: troedler play --browser --resume {store}")
    sys.stdout.flush()
    return status


def _unfinished(store: Path) -> bool:
    """Whether the store holds a match still being played."""
    with contextlib.suppress(sqlite3.Error), contextlib.closing(sqlite3.connect(store)) as db:
        row = db.execute("SELECT count(*) FROM matches WHERE status = 'playing'").fetchone()
        return bool(row and row[0])
    return False
