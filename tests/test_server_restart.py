"""The server killed with SIGKILL in the middle of a match and started
again: the clients reconnect and the match finishes, with no acknowledged
move lost and none applied twice; clocks go on from the database."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("sqlalchemy")
pytest.importorskip("websockets")

from sqlalchemy import select

from tests.server_support import DATABASES, Client, ConnectionClosed, Game, Served, database_url
from troedler import GameRecord
from troedler.server.store import moves, open_database


def move_log(url: str, match: str) -> list[tuple[int, str, str | None]]:
    """The match's move log as the database holds it, read with the server's own engine."""

    async def read() -> list[tuple[int, str, str | None]]:
        engine = open_database(url)
        async with engine.connect() as connection:
            rows = await connection.execute(
                select(moves.c.number, moves.c.move, moves.c.client_id)
                .where(moves.c.match_id == match)
                .order_by(moves.c.number)
            )
            found = [(row[0], row[1], row[2]) for row in rows]
        await engine.dispose()
        return found

    return asyncio.run(read())


@pytest.mark.parametrize("kind", DATABASES)
def test_a_match_survives_sigkills_with_no_acknowledged_move_lost_or_doubled(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    served = Served(database_url(kind, tmp_path), tmp_path)
    request.addfinalizer(served.kill)  # a failed test leaves no server playing on
    match = served.create(players=2)
    tokens = [str(served.join(match, name)["token"]) for name in ("ann", "bob")]
    game = Game([Client(served, match, token) for token in tokens], seed=11)
    kills = 0
    for kill_at in (15, 70, 140):
        # Killed from another thread while the clients keep sending: mid-traffic.
        def killer(at: int = kill_at) -> None:
            while game.version < at and game.status != "finished":
                time.sleep(0.001)
            served.kill()

        thread = threading.Thread(target=killer)
        thread.start()
        game.run()
        thread.join()
        if game.status == "finished":
            break
        assert game.broken
        kills += 1
        served.start()
        game.clients = [Client(served, match, token, since=game.version) for token in tokens]
        game.broken = False
    game.run()
    assert kills >= 2 and game.status == "finished"
    logged = move_log(served.database, match)
    assert [number for number, _, _ in logged] == list(range(game.version))
    assert [move for _, move, _ in logged] == [game.moves[v] for v in range(1, game.version + 1)]
    # Every acknowledged move is in the log once, at the version its answer gave.
    ids = [client_id for _, _, client_id in logged]
    assert len(ids) == len(set(ids)) and game.acks
    for client_id, version in game.acks.items():
        assert logged[version - 1][2] == client_id
    record = GameRecord.from_json(served.http.get(f"/api/matches/{match}/record").text)
    assert len(record.moves) == game.version and record.result is not None
    assert served.stop() == 0


@pytest.mark.parametrize("kind", DATABASES)
def test_a_deadline_outlives_the_server(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    served = Served(database_url(kind, tmp_path), tmp_path)
    request.addfinalizer(served.kill)
    match = served.create(players=2, clock={"move_seconds": 2, "on_timeout": "forfeit"})
    for name in ("ann", "bob"):
        served.join(match, name)
    deadline = served.show(match)["deadline"]
    served.kill()
    time.sleep(max(0.0, deadline - time.time()) + 0.5)
    served.start()  # the deadline passed while no server ran: the seat forfeits now
    end = time.monotonic() + 20
    while served.show(match)["status"] != "forfeited":
        assert time.monotonic() < end
        time.sleep(0.1)
    ending = served.show(match)["ending"]
    assert ending["reason"] == "time" and ending["forfeit"] in (0, 1)
    assert served.stop() == 0


@pytest.mark.parametrize("kind", DATABASES)
def test_a_stopping_server_closes_each_connection_with_1012_and_its_reason(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    served = Served(database_url(kind, tmp_path), tmp_path)
    request.addfinalizer(served.kill)
    match = served.create(players=2)
    seat = Client(served, match, str(served.join(match, "ann")["token"]))
    watcher = Client(served, match)
    assert served.stop() == 0
    for client in (seat, watcher):
        with pytest.raises(ConnectionClosed) as closed:
            while True:
                client.next(timeout=20)
        received = closed.value.rcvd
        assert received is not None and received.code == 1012
        assert received.reason == "the server is stopping: connect again"
