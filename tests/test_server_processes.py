"""Two server processes sharing one PostgreSQL database: a match is served by
the process that holds its lease; the other sends its clients there, and
takes the match over when its owner dies and the lease runs out."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

pytest.importorskip("sqlalchemy")
pytest.importorskip("websockets")

from tests.server_support import Client, ConnectionClosed, Game, Served, database_url
from troedler import GameRecord


def test_a_match_has_one_owner_and_is_taken_over_when_it_dies(tmp_path: Path) -> None:
    url = database_url("postgresql", tmp_path)
    first = Served(url, tmp_path, "--name", "first", "--lease-seconds", "2")
    second = Served(url, tmp_path, "--name", "second", "--lease-seconds", "2")
    try:
        match = first.create(players=2, bots=[None, "greedy"])
        token = str(first.join(match, "ann")["token"])
        # The other process sends a client to the owner, request and websocket alike.
        sent = second.http.get(f"/api/matches/{match}/record")
        assert sent.status_code == 307
        assert sent.headers["location"] == first.url.rstrip("/") + f"/api/matches/{match}/record"
        elsewhere = Client(second, match, token).welcome
        assert elsewhere["code"] == "elsewhere"
        assert elsewhere["address"] == first.url.rstrip("/")
        # Both show the match; only its owner plays it.
        assert second.show(match)["status"] == "playing"
        game = Game([Client(first, match, token)], seed=2)
        game.run(stop=lambda g: g.version >= 8)
        first.kill()
        end = time.monotonic() + 30
        while True:  # the lease runs out; the other process takes the match over
            assert time.monotonic() < end, "the match was not taken over"
            try:
                client = Client(second, match, token, since=game.version)
            except ConnectionClosed:
                time.sleep(0.5)
                continue
            if client.welcome["type"] == "welcome":
                break
            client.close()
            time.sleep(0.5)
        game.clients = [client]
        game.run()
        assert game.status == "finished"
        record = GameRecord.from_json(second.http.get(f"/api/matches/{match}/record").text)
        assert list(record.moves) == [game.moves[v] for v in range(1, game.version + 1)]
    finally:
        first.kill()
        assert second.stop() == 0
