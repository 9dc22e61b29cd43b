"""The game server with real parts: ``troedler serve`` on loopback, real
websocket clients, a real SQLite file (and PostgreSQL where one is given)."""

from __future__ import annotations

import json
import random
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("sqlalchemy")
pytest.importorskip("websockets")

from tests.server_support import DATABASES, Client, ConnectionClosed, Game, Served, database_url
from troedler import (
    GameRecord,
    apply_move,
    determinize,
    legal_moves,
    new_game,
    observe,
    replay,
)
from troedler.bots.base import check_players
from troedler.cli import main
from troedler.client import asset
from troedler.core.errors import TroedlerError
from troedler.server.protocol import map_for
from troedler.server.replay import replay_html
from troedler.simulation import bot_from_text


@pytest.fixture(scope="module", params=DATABASES)
def served(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    folder = tmp_path_factory.mktemp("server")
    server = Served(database_url(request.param, folder), folder)
    yield server
    assert server.stop() == 0


def two_people(
    served: Served, **settings: object
) -> tuple[str, dict[str, object], dict[str, object]]:
    match = served.create(players=2, **settings)
    return match, served.join(match, "ann"), served.join(match, "bob")


def test_a_match_is_created_listed_joined_and_left(served: Served) -> None:
    public = served.create(players=3, bots=[None, "greedy"])
    hidden = served.create(players=2, public=False)
    listed = {m["match"] for m in served.http.get("/api/matches").json()["matches"]}
    assert public in listed and hidden not in listed
    assert served.show(hidden)["status"] == "waiting"  # the invitation link finds it
    ann = served.join(public, "ann")
    assert ann["seat"] == 0 and len(str(ann["token"])) >= 40
    # Leaving before the start opens the seat again; the token is then nobody's.
    left = served.http.post(
        f"/api/matches/{public}/leave", headers={"Authorization": f"Bearer {ann['token']}"}
    )
    assert left.status_code == 200 and left.json()["seats"][0]["open"]
    again = served.http.post(
        f"/api/matches/{public}/leave", headers={"Authorization": f"Bearer {ann['token']}"}
    )
    assert again.status_code == 403
    assert served.join(public, "cy", 2)["seat"] == 2
    assert served.join(public, "dee")["seat"] == 0
    assert served.show(public)["status"] == "playing"
    full = served.http.post(f"/api/matches/{public}/join", json={"name": "eve"})
    assert full.status_code == 409 and full.json()["code"] == "started"


def test_a_seat_given_up_before_the_start_closes_the_leavers_sockets(served: Served) -> None:
    match = served.create(players=3)
    ann = served.join(match, "ann")
    socket = Client(served, match, str(ann["token"]))
    assert socket.welcome["type"] == "welcome"
    left = served.http.post(
        f"/api/matches/{match}/leave", headers={"Authorization": f"Bearer {ann['token']}"}
    )
    assert left.status_code == 200
    # Whoever takes the seat next is not watched, nor played for, by the leaver.
    assert served.join(match, "dee", 0)["seat"] == 0
    with pytest.raises(ConnectionClosed):
        while True:
            message = socket.next(timeout=10)
            assert "position" not in message or message["position"]["players"][0]["hand"] is None
    socket.close()


def test_the_database_keeps_only_a_hash_of_each_token(served: Served) -> None:
    if not served.database.startswith("sqlite"):
        pytest.skip("read back from the SQLite file")
    match = served.create(players=2)
    token = str(served.join(match, "ann")["token"])
    with sqlite3.connect(served.database.removeprefix("sqlite:///")) as db:
        (stored,) = db.execute(
            "select token_hash from seats where match_id = ? and seat = 0", (match,)
        ).fetchone()
        dump = "\n".join(db.iterdump())
    assert token not in dump and len(stored) == 64


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"players": 5}, "S1"),
        ({"players": 2, "bots": ["module:Class"]}, "bots[0]"),
        ({"players": 2, "bots": ["exec:./mybot"]}, "program bots"),
        ({"players": 2, "bots": ["ismcts:999999"]}, "ismcts"),
        ({"players": 2, "bots": [None, "neural:/etc/passwd"]}, "bots[1]: neural plays the"),
        ({"players": 2, "bots": [None, "ismcts:50:neural:/etc/passwd"]}, "bots[1]: ismcts:N:"),
        ({"players": 2, "bots": [None, "ismcts:50:greedy"]}, "bots[1]: a search is guided by"),
        ({"players": 2, "bots": [None, "ismcts:0:neural"]}, "bots[1]: ismcts:N searches"),
        ({"players": 2, "bots": ["greedy", "greedy"]}, "a person"),
        ({"players": 2, "rules": {"hand_limit": 99}}, "hand_limit"),
        ({"players": 2, "clock": {"move_seconds": -1}}, "move_seconds"),
        ({"players": 2, "recall": "all"}, "recall"),
        ({"players": 2, "seed": 1}, "unknown field"),
    ],
)
def test_a_bad_match_is_refused_naming_the_field(
    served: Served, body: dict[str, object], field: str
) -> None:
    answer = served.http.post("/api/matches", json=body)
    assert answer.status_code in (400, 403)
    assert field in answer.json()["error"]


def test_the_learned_bot_plays_its_player_counts_and_is_refused_at_others(
    served: Served,
) -> None:
    offered = served.http.get("/api/server").json()["bots"]
    assert "neural" in offered and "ismcts:150:neural" in offered
    # At 3 players it is refused at creation, in its own one-line words,
    # naming the field: in a seat, and as the stand-in.
    with pytest.raises(TroedlerError) as refused:
        check_players(bot_from_text("neural"), 3)
    reason = str(refused.value)
    for body, field in (
        ({"players": 3, "bots": [None, None, "neural"]}, "bots[2]"),
        ({"players": 3, "clock": {"stand_in": "neural"}}, "clock.stand_in"),
        ({"players": 3, "bots": [None, "ismcts:20:neural", None]}, "bots[1]"),
    ):
        answer = served.http.post("/api/matches", json=body)
        assert answer.status_code == 400
        assert answer.json()["error"] == f"{field}: {reason}"
        assert "\n" not in answer.json()["error"]
    # The search the networks guide plays a seat too, as the request names it.
    guided = served.create(players=2, bots=[None, "ISMCTS:20:Neural"])
    assert served.show(guided)["settings"]["bots"][1] == "ismcts:20:neural"
    # At 2 and 4 it plays its seats.
    for players in (2, 4):
        match = served.create(players=players, bots=[None] + ["neural"] * (players - 1))
        client = Client(served, match, str(served.join(match, "ann")["token"]))
        game = Game([client], seed=players)
        game.run(stop=lambda g: g.version >= 12)
        made = served.http.get(f"/api/matches/{match}/moves").json()["moves"]
        assert {m["seat"] for m in made} == set(range(players))
        assert served.show(match)["settings"]["bots"][1] == "neural"
        client.close()


def test_two_people_play_a_whole_match_and_its_record_replays(
    served: Served, tmp_path: Path
) -> None:
    match, ann, bob = two_people(served, recall="table")
    watcher = Client(served, match)
    seats = [Client(served, match, str(ann["token"])), Client(served, match, str(bob["token"]))]
    game = Game(seats, seed=3)
    game.run()
    assert game.status == "finished" and game.result is not None
    # Each seat moved as soon as it was told it could, and was never slowed.
    assert game.slowed == 0
    # Every acknowledged move is the one broadcast at its version, once.
    assert sorted(game.acks.values()) == list(range(1, game.version + 1))
    answer = served.http.get(f"/api/matches/{match}/record")
    assert answer.status_code == 200
    record = GameRecord.from_json(answer.text)
    assert list(record.moves) == [game.moves[v] for v in range(1, game.version + 1)]
    assert record.seats == ("ann", "bob")
    assert record.result is not None and list(record.result.points) == game.result["points"]
    positions = replay(record)
    assert positions[-1].is_over
    # The moves with the seat that made each (the record names only the moves).
    made = served.http.get(f"/api/matches/{match}/moves").json()
    assert made["version"] == game.version
    assert [m["move"] for m in made["moves"]] == list(record.moves)
    assert [m["version"] for m in made["moves"]] == list(range(1, game.version + 1))
    assert [m["seat"] for m in made["moves"]] == [s.current_player for s in positions[:-1]]
    path = tmp_path / "match.json"
    path.write_text(answer.text)
    assert main(["replay", str(path)]) == 0
    # The spectator saw every move and never a hand; each seat never the other's.
    watcher.until("moved")
    while True:
        try:
            watcher.next(timeout=1)
        except TimeoutError:
            break
    positions = [m["position"] for m in watcher.seen if "position" in m]
    moved = [m for m in watcher.seen if m["type"] in ("welcome", "moved")]
    assert len(moved) == game.version + 1  # the welcome, and each move
    for position in positions:
        assert position["seat"] is None and position["legal_moves"] == []
        assert all(p["hand"] is None and p["value_pile"] is None for p in position["players"])
    for seat, client in enumerate(seats):
        for message in client.seen:
            if "position" in message:
                players = message["position"]["players"]
                assert players[1 - seat]["hand"] is None and players[seat]["hand"] is not None
    # Finished matches are listed, and a rematch seats the same people again.
    finished = served.http.get("/api/matches", params={"status": "finished"}).json()["matches"]
    assert match in {m["match"] for m in finished}
    headers = {"Authorization": f"Bearer {ann['token']}"}
    first = served.http.post(f"/api/matches/{match}/rematch", headers=headers).json()
    second = served.http.post(
        f"/api/matches/{match}/rematch", headers={"Authorization": f"Bearer {bob['token']}"}
    ).json()
    assert first["match"] == second["match"] != match
    assert (first["seat"], second["seat"]) == (0, 1)
    assert served.show(first["match"])["status"] == "playing"
    # Asked again (an answer lost on the way), a rematch gives the same seat
    # and token, once the new match runs as before it.
    for asked, token in ((first, ann["token"]), (second, bob["token"])):
        again = served.http.post(
            f"/api/matches/{match}/rematch", headers={"Authorization": f"Bearer {token}"}
        )
        assert again.status_code == 201 and again.json() == asked
    # The rematch is for these people: it is not listed for others to join.
    listed = served.http.get("/api/matches", params={"status": "playing"}).json()["matches"]
    assert first["match"] not in {m["match"] for m in listed}
    for client in [*seats, watcher]:
        client.close()


def test_a_position_carries_each_legal_move_with_its_facts(served: Served) -> None:
    match, ann, _bob = two_people(served)
    seat = Client(served, match, str(ann["token"]))
    position = seat.welcome["position"]
    # One entry per legal move, in the same order: what the page needs to
    # show it (its card, its feed) comes with it, never worked out by a client.
    assert [facts["move"] for facts in position["moves"]] == position["legal_moves"]
    assert {facts["type"] for facts in position["moves"]} == {"discard_pile"}
    assert all(facts["card"] is None and facts["feed_cost"] == 0 for facts in position["moves"])
    # What stays the same all game comes once, with the welcome.
    table = seat.welcome["table"]
    assert len(table["villages"]) == 17
    assert table["cards"]["feed"] == {"type": "feed", "label": "feed", "name": "special feed"}
    # Each card's face: what is written on it (a request: its goods and
    # points) and its name, for the page to draw it without knowing cards.
    for code, face in table["cards"].items():
        assert face["name"], code
        assert ("label" in face) != (face["type"] == "request"), code
    assert table["cards"]["trail"]["label"] == "trail"
    assert seat.welcome["settings"]["players"] == 2
    seat.close()


def test_stale_repeated_and_illegal_moves_change_nothing(served: Served) -> None:
    match, ann, bob = two_people(served)
    first, second = (
        Client(served, match, str(ann["token"])),
        Client(served, match, str(bob["token"])),
    )
    to_move = first if first.welcome["position"]["legal_moves"] else second
    other = second if to_move is first else first
    legal = to_move.welcome["position"]["legal_moves"]
    to_move.send({"type": "move", "version": 5, "move": legal[0], "id": "a"})
    stale = to_move.until("error")
    assert (stale["code"], stale["id"], stale["version"]) == ("stale", "a", 0)
    to_move.send({"type": "move", "version": 0, "move": "take 9", "id": "b"})
    illegal = to_move.until("error")
    assert (
        illegal["code"] == "illegal"
        and illegal["rule"]
        and illegal["message"].startswith(illegal["rule"] + ":")
    )
    other.send({"type": "move", "version": 0, "move": legal[0], "id": "c"})
    assert other.until("error")["code"] == "not_your_turn"
    to_move.send({"type": "move", "version": 0, "move": legal[0], "id": "d"})
    accepted = to_move.until("accepted")
    assert accepted == {"type": "accepted", "protocol": 1, "id": "d", "version": 1}
    # The same id again: the first answer, and the move is not made twice.
    to_move.send({"type": "move", "version": 0, "move": legal[0], "id": "d"})
    assert to_move.until("accepted") == accepted
    # A refused id keeps its first answer, even now that version 1 is current.
    to_move.send({"type": "move", "version": 1, "move": legal[0], "id": "a"})
    assert to_move.until("error") == stale
    assert served.show(match)["version"] == 1
    for client in (first, second):
        client.close()


def test_a_reconnecting_seat_gets_every_move_since_its_version(served: Served) -> None:
    match, ann, bob = two_people(served)
    seats = [Client(served, match, str(ann["token"])), Client(served, match, str(bob["token"]))]
    game = Game(seats, seed=5)
    game.run(stop=lambda g: g.version >= 12)
    seats[0].close()
    time.sleep(0.2)
    assert served.show(match)["version"] >= 12
    back = Client(served, match, str(ann["token"]), since=4)
    welcome = back.welcome
    assert [m["version"] for m in welcome["moves"]] == list(range(5, welcome["version"] + 1))
    assert all(game.moves.get(m["version"], m["move"]) == m["move"] for m in welcome["moves"])
    assert welcome["connected"] == [True, True]
    seats[1].close()
    assert back.until("status")["connected"] == [True, False]
    back.close()


def test_a_match_against_bots_plays_out_and_a_leaver_is_handed_to_a_bot(served: Served) -> None:
    match = served.create(players=3, bots=[None, "greedy", "random"])
    ann = served.join(match, "ann")
    client = Client(served, match, str(ann["token"]))
    game = Game([client], seed=1)
    game.run(stop=lambda g: g.version >= 10)
    left = served.http.post(
        f"/api/matches/{match}/leave", headers={"Authorization": f"Bearer {ann['token']}"}
    )
    assert left.status_code == 200 and left.json()["seats"][0]["left"]
    end = time.monotonic() + 120
    while served.show(match)["status"] == "playing":
        assert time.monotonic() < end
        time.sleep(0.2)
    assert served.show(match)["status"] == "finished"
    record = GameRecord.from_json(served.http.get(f"/api/matches/{match}/record").text)
    assert record.result
    drawn = served.http.get(f"/api/matches/{match}/map.svg")
    assert drawn.status_code == 200
    assert drawn.headers["content-type"].startswith("image/svg+xml")
    assert record.seats == ("ann", "greedy", "random")
    assert drawn.text == map_for(replay(record)[-1], list(record.seats))
    client.close()


def test_each_seat_is_shown_by_one_name_that_tells_it_apart(served: Served) -> None:
    # A person by their name; a bot by its kind, numbered where two share it
    # (never by a seat number, which a kind ending in digits would run into).
    match = served.create(players=4, bots=[None, "greedy", "ismcts:100", "greedy"])
    shown = [seat["shown"] for seat in served.show(match)["seats"]]
    assert shown == ["open seat", "greedy (1)", "ismcts:100", "greedy (2)"]
    served.join(match, "ann")
    listed = served.http.get("/api/matches?status=playing").json()["matches"]
    names = [[s["shown"] for s in m["seats"]] for m in listed if m["match"] == match]
    assert names == [["ann", "greedy (1)", "ismcts:100", "greedy (2)"]]


def test_the_map_is_given_once_the_match_starts_and_only_to_its_seats_if_private(
    served: Served,
) -> None:
    waiting = served.create(players=2)
    answer = served.http.get(f"/api/matches/{waiting}/map.svg")
    assert answer.status_code == 409 and answer.json()["code"] == "not_started"
    closed, ann, _ = two_people(served, spectators=False)
    assert served.http.get(f"/api/matches/{closed}/map.svg").status_code == 403
    seat = {"Authorization": f"Bearer {ann['token']}"}
    shown = served.http.get(f"/api/matches/{closed}/map.svg", headers=seat)
    assert shown.status_code == 200 and shown.text.startswith("<svg")


@pytest.mark.parametrize("seed", [3, 8])
def test_the_map_holds_nothing_a_spectator_does_not_see(seed: int) -> None:
    # Every state a spectator cannot tell apart from the game's (its hidden
    # cards dealt again at random) has the same map.
    state = new_game(3, seed=seed)
    rng = random.Random(seed)
    for _ in range(60):
        state = apply_move(state, rng.choice(legal_moves(state)))
    names = ["a", "b", "c"]
    for twin_seed in range(3):
        twin = determinize(observe(state, 0, recall="table"), random.Random(twin_seed))
        assert twin.players != state.players or twin.game_round_pile != state.game_round_pile
        assert map_for(twin, names) == map_for(state, names)


def test_a_seat_out_of_time_is_played_by_its_stand_in_or_forfeits(served: Served) -> None:
    match, ann, bob = two_people(served, clock={"move_seconds": 1, "on_timeout": "bot"})
    spectator = Client(served, match)
    deadline = served.show(match)["deadline"]
    assert deadline is not None and deadline > time.time()
    end = time.monotonic() + 30
    while served.show(match)["version"] < 2:  # both seats time out in turn
        assert time.monotonic() < end
        time.sleep(0.2)
    # Everyone watching is told, after the move, that the stand-in made it.
    moved = spectator.until("moved")
    stood = spectator.until("stood_in")
    assert stood == {
        "type": "stood_in",
        "protocol": 1,
        "version": moved["version"],
        "seat": moved["seat"],
        "bot": "random",
        "move": moved["move"],
    }
    # The move's facts say where the mover's cart stood before it.
    assert moved["version"] == 1 and moved["facts"]["move"] == moved["move"]
    before = spectator.welcome["position"]["players"][moved["seat"]]["cart"]
    assert moved["facts"]["from"] == before
    spectator.close()
    for token in (ann["token"], bob["token"]):  # the stand-ins finish the match
        served.http.post(
            f"/api/matches/{match}/leave", headers={"Authorization": f"Bearer {token}"}
        )
    match, ann, _ = two_people(served, clock={"move_seconds": 1, "on_timeout": "forfeit"})
    watcher = Client(served, match, str(ann["token"]))
    ending = watcher.until("status", timeout=30)
    while ending["status"] != "forfeited":
        ending = watcher.until("status", timeout=30)
    assert ending["ending"]["reason"] == "time" and ending["version"] == 0
    assert served.show(match)["status"] == "forfeited"
    # An unfinished record: the moves made, no result.
    record = GameRecord.from_json(served.http.get(f"/api/matches/{match}/record").text)
    assert record.result is None
    watcher.close()


def test_the_record_of_a_match_in_play_is_withheld(served: Served) -> None:
    match, _, _ = two_people(served)
    answer = served.http.get(f"/api/matches/{match}/record")
    assert answer.status_code == 409 and "seed" not in answer.text


def test_spectating_can_be_turned_off_and_a_spectator_cannot_move(served: Served) -> None:
    closed, _, _ = two_people(served, spectators=False)
    with pytest.raises(ConnectionClosed):
        refused = Client(served, closed)
        assert refused.welcome["code"] == "hello"
        refused.next()
    match, _, _ = two_people(served)
    watcher = Client(served, match)
    watcher.send({"type": "move", "version": 0, "move": "take 1", "id": "x"})
    assert watcher.until("error")["code"] == "forbidden"
    watcher.close()


def test_hosts_origins_sizes_and_rates_are_bounded(served: Served) -> None:
    wrong_host = served.http.get("/api/matches", headers={"Host": "evil.example"})
    assert wrong_host.status_code == 400
    foreign = served.http.post(
        "/api/matches", json={"players": 2}, headers={"Origin": "http://evil.example"}
    )
    assert foreign.status_code == 403
    match, ann, _ = two_people(served)
    with pytest.raises(Exception, match="403|rejected"):
        Client(served, match, str(ann["token"]), origin="http://evil.example")
    big = served.http.post(
        "/api/matches",
        content=b"{" + b" " * 10_000 + b"}",
        headers={"Content-Type": "application/json"},
    )
    assert big.status_code == 413
    # One size limit, the websocket's: a message at it is read, one past it
    # closes the connection with 1009 and a reason.
    client = Client(served, match, str(ann["token"]))
    at_limit = json.dumps({"type": "ping", "pad": ""})
    at_limit = json.dumps({"type": "ping", "pad": "x" * (4096 - len(at_limit))})
    assert len(at_limit) == 4096
    client.send(at_limit)
    assert client.until("pong")["type"] == "pong"
    client.send(json.dumps({"type": "ping", "pad": "x" * 4097}))
    with pytest.raises(ConnectionClosed) as closed:
        client.next(timeout=10)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
    assert "4096" in closed.value.rcvd.reason
    # Past the rate: told "rate", then, sending on, closed with 1008 and a reason.
    client = Client(served, match, str(ann["token"]))
    for _ in range(200):
        try:
            client.send({"type": "ping"})
        except ConnectionClosed:
            break
    codes = []
    with pytest.raises(ConnectionClosed) as closed:
        while True:
            codes.append(client.next(timeout=5).get("code"))
    assert "rate" in codes
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 1008
    assert closed.value.rcvd.reason == "too many messages"
    assert served.show(match)["version"] == 0


def test_a_move_refused_for_its_rate_is_named_and_made_when_sent_again(served: Served) -> None:
    match, ann, _ = two_people(served)
    client = Client(served, match, str(ann["token"]))
    ours = client.welcome["position"]["legal_moves"]
    legal = ours or ["take 1"]
    for _ in range(40):  # past the burst of 30
        client.send({"type": "ping"})
    move = {"type": "move", "version": 0, "move": legal[0], "id": "late"}
    client.send(move)
    refused = client.until("error")
    while refused.get("id") != "late":
        assert refused["code"] == "rate"
        refused = client.until("error")
    assert refused["code"] == "rate" and 0 < refused["retry_after"] <= 10
    assert served.show(match)["version"] == 0  # not made
    time.sleep(refused["retry_after"] + 0.2)
    client.send(move)
    answer = client.next()
    while answer["type"] not in ("accepted", "error"):
        answer = client.next()
    assert answer["id"] == "late"
    # The answer any move gets when the rate allows: made if it is ann's turn.
    if ours:
        assert answer["type"] == "accepted" and answer["version"] == 1
    else:
        assert answer["code"] == "not_your_turn"
    client.close()


def test_match_creation_is_bounded_per_address_and_in_waiting_matches(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    limited = Served(
        f"sqlite:///{tmp_path / 'matches.sqlite3'}", tmp_path,
        "--max-waiting", "4", "--creates-per-minute", "6",
    )  # fmt: skip
    request.addfinalizer(limited.kill)
    waiting = [limited.create(players=2) for _ in range(4)]
    busy = limited.http.post("/api/matches", json={"players": 2})
    assert busy.status_code == 503 and busy.json()["code"] == "busy"
    assert len(limited.http.get("/api/matches").json()["matches"]) == 4
    for name in ("ann", "bob"):  # one match starts: a match may wait again
        limited.join(waiting[0], name)
    limited.create(players=2)
    # Six creations in a minute from this address (the refused one counts too).
    hurried = limited.http.post("/api/matches", json={"players": 2})
    assert hurried.status_code == 429 and hurried.json()["code"] == "rate"
    assert len(limited.http.get("/api/matches").json()["matches"]) == 5
    assert limited.stop() == 0


def test_serve_refuses_a_database_it_cannot_use(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--database", "mysql://somewhere/db"]) == 2
    assert "SQLite or PostgreSQL" in capsys.readouterr().err
    assert main(["serve", "--database", "sqlite://"]) == 2
    assert "must be a file" in capsys.readouterr().err
    assert main(["serve", "--port", "70000"]) == 2
    assert main(["serve", "--max-waiting", "0"]) == 2


def test_the_page_and_its_files_are_served_under_a_strict_policy(served: Served) -> None:
    page = served.http.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    policy = page.headers["content-security-policy"]
    assert "default-src 'none'" in policy and "script-src 'self'" in policy
    assert "unsafe-inline" not in policy and "http" not in policy
    # The page is the client package's own file, and names only its own files.
    assert page.text == asset("page.html")
    for name in ("client.css", "draw.js", "live.js", "replay.js"):
        answer = served.http.get(f"/client/{name}")
        assert answer.status_code == 200 and answer.text == asset(name)
        assert answer.headers["x-content-type-options"] == "nosniff"
    for other in ("page.html", "..%2Fapp.py", "__init__.py"):
        assert served.http.get(f"/client/{other}").status_code == 404
    about = served.http.get("/api/server").json()
    assert about["local"] is False and "greedy" in about["bots"] and "token" not in about


def test_a_finished_matchs_replay_page_is_the_client_built_from_its_record(
    served: Served,
) -> None:
    match = served.create(players=2, bots=[None, "greedy"], rules={"end_threshold": 1})
    seat = Client(served, match, str(served.join(match, "ann")["token"]))
    refused = served.http.get(f"/api/matches/{match}/replay")
    assert refused.status_code == 409 and refused.json()["code"] == "not_over"
    Game([seat], seed=2).run()
    page = served.http.get(f"/api/matches/{match}/replay")
    assert page.status_code == 200
    record = GameRecord.from_json(served.http.get(f"/api/matches/{match}/record").text)
    assert page.text == replay_html(record)
    seat.close()
