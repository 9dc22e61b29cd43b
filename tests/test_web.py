"""The browser game: a real server on loopback, driven over HTTP and in a real
headless Chromium through selenium, as tests/test_replay_html.py drives the replay."""

from __future__ import annotations

import os
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
from troedler.bots import GreedyBot  # noqa: E402
from troedler.cards import RequestCard  # noqa: E402
from troedler.errors import ConfigurationError  # noqa: E402
from troedler.moves import Move  # noqa: E402
from troedler.scoring import outcome  # noqa: E402
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


def _serve(tmp_path: Path, pause_ms: int = 0, seed: int = SEED) -> Iterator[Served]:
    game = BrowserGame.new(2, seed, ["random"], 0, save=tmp_path / "game.json")
    served = Served(game, pause_ms)
    try:
        yield served
    finally:
        served.close()


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    yield from _serve(tmp_path)


# ---- over HTTP ----------------------------------------------------------------


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


# ---- in Chromium --------------------------------------------------------------

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.wait import WebDriverWait  # noqa: E402

from tests.test_replay_html import (  # noqa: E402
    BOXES,
    CHROMEDRIVER,
    CHROMIUM,
    SMALLEST_FONT,
    _browser,
    _errors,
    keep_screenshots,
    overlaps,
    set_width,
)

WAIT = 30  # seconds: a loaded 2-core machine is slow, never this slow
assert CHROMIUM and CHROMEDRIVER  # test_replay_html skipped the module otherwise


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Any]:
    yield from _browser(tmp_path)


def _seq(driver: Any) -> int:
    return int(driver.find_element(By.ID, "status").get_attribute("data-seq") or -1)


def _wait_for(driver: Any, game: BrowserGame) -> None:
    """Until the page shows the game as it stands and the person may act (or it is over)."""
    WebDriverWait(driver, WAIT).until(
        lambda d: (
            _seq(d) == game.sequence
            and (game.state.is_over or game.state.current_player == game.seat)
        )
    )


def _known_to_seat_0(state: Any, log: tuple[str, ...]) -> set[str]:
    """Every card seat 0 may name: what it sees, and every move made so far, all saw."""
    seen = observe(state, 0)
    known = {str(c) for c in seen.hands[0] or ()}
    known |= {str(c) for pile in seen.dealer_piles if pile for c in pile if c is not None}
    known |= {str(c) for c in seen.discard_pile if c is not None}
    known |= {str(c) for pile in seen.value_piles if pile for c in pile}
    known |= {str(c) for c in seen.played}
    known |= {word for move in log for word in move.split()}
    return known


def _no_leak(text: str, state: Any, log: tuple[str, ...]) -> None:
    """``text`` names no request card of seat 1's hand that seat 0 does not know."""
    known = _known_to_seat_0(state, log)
    secrets = {str(c) for c in state.players[1].hand if isinstance(c, RequestCard)} - known
    for secret in secrets:
        # AB:5 must not be read inside AAB:5 or AB:50.
        assert not re.search(rf"(?<![A-Z]){re.escape(secret)}(?!\d)", text), secret
    for named in re.findall(r'data-card=\\?"([^"\\]+)', text):
        assert named in known, named


def _click_move(driver: Any, game: BrowserGame, move: Move) -> None:
    """Make ``move`` as a person would: on the board, on a card or from the list."""
    text = str(move)
    view = game.view()
    moves = [m for g in view["groups"] for m in g["moves"]]
    entry = next(m for m in moves if m["text"] == text)
    if entry["village"] and sum(m["village"] == entry["village"] for m in moves) == 1:
        target = driver.find_element(
            By.CSS_SELECTOR, f'#board .village[data-village="{entry["village"]}"]'
        )
    elif entry["card"] and sum(m["card"] == entry["card"] for m in moves) == 1:
        target = driver.find_element(By.CSS_SELECTOR, f'#hand button[data-card="{entry["card"]}"]')
    elif entry["pile"] is not None:
        target = driver.find_element(
            By.CSS_SELECTOR, f'#panel .dealer-pile[data-pile="{entry["pile"]}"]'
        )
    else:
        target = driver.find_element(By.CSS_SELECTOR, f'#moves button[data-move="{text}"]')
    target.click()


def _layout_holds(driver: Any, width: int, tmp_path: Path, name: str) -> None:
    set_width(driver, width)
    assert driver.execute_script("return innerWidth") == width
    assert driver.execute_script(SMALLEST_FONT, "#side") >= 11
    boxes = driver.execute_script(BOXES, ["board", "you", "others", "panel", "log", "result"])
    shown = [b for b in boxes if b[3] > b[1]]  # the result is hidden until the end
    assert overlaps(shown) == [], (width, boxes)
    assert driver.execute_script("return document.documentElement.scrollWidth") <= width
    driver.save_screenshot(str(tmp_path / f"game-{name}-{width}.png"))


def test_a_whole_game_in_the_browser(tmp_path: Path, served: Served, browser: Any) -> None:
    game = served.game
    driver = browser
    try:
        driver.get(served.url)
        _wait_for(driver, game)
        for width in (1400, 1024, 800):
            _layout_holds(driver, width, tmp_path, "start")
        set_width(driver, 1400)
        assert not driver.find_element(By.ID, "result").is_displayed()
        me = GreedyBot()
        rng = __import__("random").Random(3)
        pages = [(driver.page_source, game.state, ())]
        while not game.state.is_over:
            seen = observe(game.state, 0)
            assert seen.current_player == 0
            # The final scoring never shows before the end.
            assert not driver.find_element(By.ID, "result").is_displayed()
            before = game.sequence
            _click_move(driver, game, me.choose(seen, seen.legal_moves, rng))
            WebDriverWait(driver, WAIT).until(lambda d, b=before: game.sequence > b)
            _wait_for(driver, game)
            if game.sequence % 20 < 2:
                pages.append((driver.page_source, game.state, tuple(map(str, game.moves))))
        pages.append((driver.page_source, game.state, tuple(map(str, game.moves))))
        result = driver.find_element(By.ID, "result")
        assert result.is_displayed()
        final = outcome(game.state)
        winners = {game.names[s] for s in final.winners}
        rows = driver.find_elements(By.CSS_SELECTOR, "#scores tbody tr")
        shown = {r.find_element(By.CSS_SELECTOR, "td").text: r.text for r in rows}
        assert {n for n, row in shown.items() if row.endswith("winner")} == winners
        for seat, name in enumerate(game.names):
            assert shown[name].split()[-2 if name in winners else -1] == str(final.points[seat])
        # The saved record replays to the result the page shows.
        record = GameRecord.from_json(game.save_path.read_text(encoding="utf-8"))
        assert record.result is not None and record.result.points == final.points
        assert replay(record)[-1] == game.state
        log = driver.find_elements(By.CSS_SELECTOR, "#log li.logged")
        assert [li.text.split(": ", 1)[1] for li in log] == list(record.moves)
        for width in (1400, 1024, 800):
            _layout_holds(driver, width, tmp_path, "end")
        assert _errors(driver) == []
    finally:
        served.close()
    # Seat 0's page, and every body the server sent, hold no hidden card of seat 1.
    assert len(served.bodies) > 100
    for body, state, log in served.bodies:
        _no_leak(body.decode("utf-8"), state, log)
    for page, state, log in pages:
        _no_leak(page, state, log)
    keep_screenshots(tmp_path, "game-*.png")
