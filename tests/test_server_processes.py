"""Three server processes sharing one PostgreSQL database: any process
serves any client, every process tells its own connections each move, who
is connected is known everywhere, and when the owner of a match (the
process running its bot) is killed, another takes it over and the match
goes on, its clients reconnecting to whichever process they pick."""

from __future__ import annotations

import random
import time
from pathlib import Path

import pytest

pytest.importorskip("sqlalchemy")
pytest.importorskip("websockets")

from tests.server_support import Client, ConnectionClosed, Game, Served, database_url
from troedler import GameRecord, replay


def test_three_processes_serve_any_client_and_take_over_a_dead_owner(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    url = database_url("postgresql", tmp_path)
    processes = [Served(url, tmp_path, "--name", name) for name in ("a", "b", "c")]
    for served in processes:
        request.addfinalizer(served.kill)
    rng = random.Random(4)
    owner = processes[0]
    match = owner.create(players=3, bots=[None, None, "greedy"])
    # The lobby through any process.
    tokens = [str(rng.choice(processes).join(match, name)["token"]) for name in ("ann", "bob")]
    assert processes[1].show(match)["status"] == "playing"
    # ann through the owner, bob and a spectator through the others.
    ann = Client(owner, match, tokens[0])
    bob = Client(processes[1], match, tokens[1])
    watcher = Client(processes[2], match)
    for client in (ann, bob, watcher):
        assert client.welcome["type"] == "welcome", client.welcome
    # Who is connected through another process is known from the welcome on,
    # by a process that had nobody connected to the match before.
    assert bob.welcome["connected"] == [True, True, False]
    assert watcher.welcome["connected"] == [True, True, False]
    assert watcher.welcome["spectators"] == 1
    # And told to those connected before.
    end = time.monotonic() + 20
    seen = bob.welcome
    while seen.get("connected") != [True, True, False] or seen.get("spectators") != 1:
        assert time.monotonic() < end, seen
        seen = bob.next(timeout=20)
    game = Game([ann, bob], seed=9)
    game.run(stop=lambda g: g.version >= 30)
    assert not game.broken
    owner.kill()  # mid-match: its bot's seat must be played by another process now
    survivors = processes[1:]
    game.clients = [
        Client(rng.choice(survivors), match, token, since=game.version) for token in tokens
    ]
    for client in game.clients:
        assert client.welcome["type"] == "welcome", client.welcome
    game.run()
    assert game.status == "finished" and not game.broken
    # Every acknowledged move is the one told at its version; the record replays.
    assert sorted(game.acks.values()) == sorted(set(game.acks.values()))
    record = GameRecord.from_json(survivors[0].http.get(f"/api/matches/{match}/record").text)
    assert list(record.moves) == [game.moves[v] for v in range(1, game.version + 1)]
    assert replay(record)[-1].is_over
    # The bot's seat moved after the owner died: another process took it over.
    made = survivors[1].http.get(f"/api/matches/{match}/moves").json()["moves"]
    assert any(m["seat"] == 2 and m["version"] > 30 for m in made)
    # The spectator on the third process was told every move before the kill, in order.
    told = []
    try:
        while True:
            message = watcher.next(timeout=1)
            if message["type"] == "moved":
                told.append((message["version"], message["move"]))
    except (TimeoutError, ConnectionClosed):
        pass
    versions = [version for version, _ in told]
    assert versions == list(range(1, len(told) + 1)) and len(told) >= 30
    assert all(game.moves[version] == move for version, move in told)
    for served in survivors:
        assert served.stop() == 0
