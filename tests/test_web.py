"""The browser game: a real server on loopback, driven over HTTP.

tests/test_web_browser.py plays it in a real headless Chromium.
"""

from __future__ import annotations

import os
import random
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
httpx = pytest.importorskip("httpx")
import uvicorn  # noqa: E402

from troedler import GameRecord, observe, replay  # noqa: E402
from troedler.errors import ConfigurationError  # noqa: E402
from troedler.web import BrowserGame  # noqa: E402
from troedler.web.server import make_app  # noqa: E402

TOKEN = "test-token-0123456789"  # noqa: S105 (a test game's address)
SEED = 1  # a 2-player game of about 120 moves against a random bot


class Served:
    """A game served on loopback, every response body kept with the state it was sent in."""

    def __init__(self, game: BrowserGame, pause_ms: int) -> None:
        self.game = game
        self.bodies: list[tuple[bytes, Any, tuple[str, ...]]] = []
        inner = make_app(game, TOKEN, pause_ms=pause_ms)

        async def recording(scope: Any, receive: Any, send: Any) -> None:
            if scope["type"] != "http":
                await inner(scope, receive, send)
                return
            chunks: list[bytes] = []

            async def keep(message: Any) -> None:
                if message["type"] == "http.response.body":
                    chunks.append(message.get("body", b""))
                await send(message)

            await inner(scope, receive, keep)
            done = tuple(str(m) for m in game.moves)
            self.bodies.append((b"".join(chunks), game.state, done))

        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.bind(("127.0.0.1", 0))
        self.port = listener.getsockname()[1]
        config = uvicorn.Config(recording, log_level="warning", lifespan="off")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [listener]}, daemon=True
        )
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.02)
        self.root = f"http://127.0.0.1:{self.port}"
        self.url = f"{self.root}/{TOKEN}/"

    def close(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)


def serve_game(tmp_path: Path, pause_ms: int = 0, seed: int = SEED) -> Iterator[Served]:
    game = BrowserGame.new(2, seed, ["random"], 0, save=tmp_path / "game.json")
    served = Served(game, pause_ms)
    try:
        yield served
    finally:
        served.close()


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    yield from serve_game(tmp_path)


def test_requests_without_the_token_are_refused(served: Served) -> None:
    with httpx.Client(base_url=served.root, timeout=30) as client:
        assert client.get(f"/{TOKEN}/").status_code == 200
        for path in ("/", "/state", "/x/state", f"/{TOKEN[:-1]}/state", f"/{TOKEN}x/"):
            answer = client.get(path)
            assert answer.status_code in (403, 404), path
            assert "hand" not in answer.text and "svg" not in answer.text
        moved = client.post("/wrong/step", json={"seq": 0})
        assert moved.status_code == 403 and "token" in moved.json()["error"]
        # Another host name (a page elsewhere rebinding its name to loopback) is refused.
        assert client.get(f"/{TOKEN}/state", headers={"Host": "evil.example"}).status_code == 400
    assert served.game.sequence == 0


def test_bad_and_replayed_requests_change_nothing(served: Served) -> None:
    game = served.game
    with httpx.Client(base_url=f"{served.url}", timeout=30) as client:
        first = client.get("state").json()
        assert first["seq"] == 0 and first["yours"]
        text = first["groups"][0]["moves"][0]["text"]
        bad = [
            client.post("move", content=b"{not json", headers={"Content-Type": "application/json"}),
            client.post("move", content=b"seq=0", headers={"Content-Type": "text/plain"}),
            client.post("move", json=[0, text]),
            client.post("move", json={"move": text}),
            client.post("move", json={"seq": "0", "move": text}),
            client.post("move", json={"seq": 0, "move": "fly to the moon"}),
            client.post("move", json={"seq": 0, "move": "x" * 5000}),
            client.post("click", json={"seq": 0, "village": "Atlantis"}),
            client.post("click", json={"seq": 0, "card": "feed" * 20}),
            client.post("step", json={"seq": 0}),
        ]
        assert [b.status_code for b in bad] == [400, 415, 400, 400, 400, 400, 413, 400, 400, 409]
        assert all(b.json()["error"] for b in bad)
        # A body sent in chunks, with no length declared, is cut off at the bound too.
        chunks = (b" " * 1024 for _ in range(8))
        big = client.post("move", content=chunks, headers={"Content-Type": "application/json"})
        assert big.status_code == 413 and "at most" in big.json()["error"]
        assert game.sequence == 0
        made = client.post("move", json={"seq": 0, "move": text})
        assert made.status_code == 200 and made.json()["seq"] == 1
        again = client.post("move", json={"seq": 0, "move": text})
        assert again.status_code == 409 and "move 0" in again.json()["error"]
        assert game.sequence == 1 and game.moves[0].__str__() == text
    record = GameRecord.from_json((served.game.save_path).read_text(encoding="utf-8"))
    assert record.moves == (text,)


def test_a_new_game_never_overwrites_a_file(tmp_path: Path) -> None:
    path = tmp_path / "kept.json"
    path.write_text("precious", encoding="utf-8")
    with pytest.raises(ConfigurationError, match="exists already"):
        BrowserGame.new(2, 1, ["random"], 0, save=path)
    assert path.read_text(encoding="utf-8") == "precious"


def test_a_saved_game_resumes_where_it_stopped(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    game = BrowserGame.new(3, 5, ["greedy"], 1, save=path)
    for _ in range(12):
        if game.state.current_player == 1:
            seen = observe(game.state, 1)
            game.move(game.sequence, str(seen.legal_moves[0]))
        else:
            game.step(game.sequence)
    again = BrowserGame.resume(path, ["greedy"], 1)
    assert again.state == game.state and again.moves == game.moves
    assert again.names == game.names and again.sequence == 12
    assert replay(GameRecord.from_json(path.read_text(encoding="utf-8")))[-1] == game.state


def test_play_browser_on_the_command_line_serves_the_game(tmp_path: Path) -> None:
    save = tmp_path / "cli.json"
    env = {**os.environ, "BROWSER": "true", "PYTHONPATH": str(Path("src").resolve())}
    process = subprocess.Popen(
        [sys.executable, "-m", "troedler", "play", "--browser", "--players", "2",
         "--save", str(save)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path,
    )  # fmt: skip
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        url = re.search(r"http://127\.0\.0\.1:\d+/[\w-]+/", line)
        assert url, line
        view = httpx.get(url.group(0) + "state", timeout=30).json()
        assert view["seq"] == 0 and view["mover"]
        assert save.exists()
    finally:
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    assert "saved" in out, (out, err)


def test_the_hand_limit_shows_which_cards_may_go(tmp_path: Path) -> None:
    game = BrowserGame.new(2, 3, ["greedy"], 0, save=tmp_path / "game.json")
    rng = __import__("random").Random(5)
    while not game.state.is_over:
        view = game.view()
        if view["discard"]:
            break
        if view["yours"]:
            seen = observe(game.state, 0)
            # Keep cards: end the turn as soon as it may end.
            ends = [m for m in seen.legal_moves if str(m) == "end"]
            game.move(game.sequence, str(ends[0] if ends else rng.choice(seen.legal_moves)))
        else:
            game.step(game.sequence)
    assert view["discard"].startswith("Hand limit (T7): discard")
    seen = observe(game.state, 0)
    may_go = {str(m.card) for m in seen.legal_moves if hasattr(m, "card")}
    for card in view["hand"]:
        assert card["mayGo"] == (card["card"] in may_go)
        assert (card["why"] == "") == card["mayGo"]
        if card["why"]:
            assert card["why"].startswith("T7: ")


def test_the_python_example_of_docs_play_runs() -> None:
    page = (Path(__file__).parent.parent / "docs" / "play.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", page, re.S)
    assert len(blocks) == 1
    exec(compile(blocks[0], "docs/play.md", "exec"), {})  # noqa: S102 - our own docs


def test_clicks_make_the_one_move_list_several_or_name_the_rule(tmp_path: Path) -> None:
    from troedler.web import Refused

    game = BrowserGame.new(2, 2, ["greedy"], 0, save=tmp_path / "game.json")
    with pytest.raises(Refused) as refused:
        game.click(0, village="Keith")
    assert refused.value.rule == "T1" and game.sequence == 0
    checked = 0
    rng = random.Random(1)
    while not game.state.is_over and checked < 30:
        if game.state.current_player != 0:
            game.step(game.sequence)
            continue
        seen = observe(game.state, 0)
        for card in {str(c) for c in seen.hands[0] or ()}:
            before = game.sequence
            try:
                answer = game.click(before, card=card)
            except Refused as error:
                # No legal move uses the card: the rules say why, and nothing changed.
                assert error.rule is not None and re.fullmatch(r"[A-Z]\d+[a-z]?", error.rule)
                assert game.sequence == before
                checked += 1
                continue
            if "choices" in answer:
                assert len(answer["choices"]) > 1
                assert set(answer["choices"]) <= {str(m) for m in seen.legal_moves}
                game.move(before, answer["choices"][0])
            else:
                assert game.sequence == before + 1
            break
        else:
            game.move(game.sequence, str(rng.choice(seen.legal_moves)))
    assert checked >= 5
