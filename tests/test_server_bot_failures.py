"""A bot that fails its move in a server's match: the match goes on with a
random legal move for it, and every connection of the match, seats and
spectators, through any process, is told which seat, which bot and what it
did. On a server open to others the bot's own words (its error output,
which may tell what its seat knows) stay in the server's log."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path

import pytest

pytest.importorskip("sqlalchemy")
pytest.importorskip("websockets")

from tests.server_support import DATABASES, Client, Game, Served, database_url
from troedler import GameRecord, replay
from troedler.server.protocol import BOT_FAILED_FIELDS, MAX_NOTICE

HAND = "my-hand-is-hidden"
# A program bot that plays three moves, then writes what its seat knows to
# its error output and dies.
DYING = f"""\
import json, sys
sys.stdin.readline()
print(json.dumps({{"type": "hello", "protocol": 1, "name": "dying"}}), flush=True)
for number, line in enumerate(sys.stdin):
    if number >= 3:
        print("{HAND}" + "!" * 5000, file=sys.stderr, flush=True)
        sys.exit(3)
    message = json.loads(line)
    print(json.dumps({{"type": "move", "move": message["legal_moves"][0]}}), flush=True)
"""


def moves_of(served: Served, match: str) -> list[dict[str, object]]:
    return list(served.http.get(f"/api/matches/{match}/moves").json()["moves"])


@pytest.mark.parametrize("kind", DATABASES)
def test_a_dying_program_bot_is_told_to_every_connection_and_the_match_goes_on(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    url = database_url(kind, tmp_path)
    program = tmp_path / "dying.py"
    program.write_text(DYING)
    owner = Served(url, tmp_path, "--allow-exec", "--name", "exec-a")
    request.addfinalizer(owner.kill)
    # On PostgreSQL a spectator watches through another process.
    other = owner
    if kind == "postgresql":
        other = Served(url, tmp_path, "--name", "exec-b")
        request.addfinalizer(other.kill)
    text = f"exec:{sys.executable} {program}"
    match = owner.create(players=2, bots=[None, text])
    seat = Client(owner, match, str(owner.join(match, "ann")["token"]))
    watcher = Client(other, match)
    game = Game([seat], seed=2)
    game.run(stop=lambda g: any(m["type"] == "bot_failed" for m in seat.seen))
    told = next(m for m in seat.seen if m["type"] == "bot_failed")
    heard = watcher.until("bot_failed")
    assert {key: heard[key] for key in BOT_FAILED_FIELDS} == {
        key: told[key] for key in BOT_FAILED_FIELDS
    }
    assert told["seat"] == 1 and told["bot"] == "dying" and told["kind"] == "crashed"
    assert told["detail"] is None and len(told["message"]) <= MAX_NOTICE
    assert told["message"].startswith("The bot of seat 1, dying, stopped running at move ")
    assert told["message"].endswith(f"A random legal move was played instead: {told['move']}.")
    # The move made instead is the one the match holds at that version.
    made = owner.http.get(f"/api/matches/{match}/moves").json()["moves"]
    instead = made[told["version"] - 1]
    assert (instead["version"], instead["seat"], instead["move"]) == (
        told["version"],
        1,
        told["move"],
    )
    # Nobody watching is sent what the program wrote; the operator's log has it.
    for client in (seat, watcher):
        assert not any(HAND in str(message) for message in client.seen)
    assert any(HAND in line for line in owner.stderr)
    # The match goes on to its end, the dead program's seat moving at random.
    game.run()
    assert game.status == "finished"
    with contextlib.suppress(TimeoutError):
        while True:
            watcher.next(timeout=2)
    # Each of the dead program's moves is told once to each connection,
    # wherever the bot ran.
    told_seat = [m["version"] for m in seat.seen if m["type"] == "bot_failed"]
    told_watcher = [m["version"] for m in watcher.seen if m["type"] == "bot_failed"]
    dead = [m["version"] for m in moves_of(owner, match) if m["seat"] == 1]
    dead = [version for version in dead if version >= told["version"]]
    assert told_seat == told_watcher == dead
    record = GameRecord.from_json(owner.http.get(f"/api/matches/{match}/record").text)
    assert replay(record)[-1].is_over
    for client in (seat, watcher):
        client.close()
    for served in {id(owner): owner, id(other): other}.values():
        assert served.stop() == 0
