"""The browser game: a real server on loopback, driven over HTTP.

tests/test_web_browser.py plays it in a real headless Chromium.
"""

from __future__ import annotations

import json
import os
import random
import re
import shlex
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
httpx = pytest.importorskip("httpx")
import uvicorn  # noqa: E402

from troedler import (  # noqa: E402
    UNKNOWN,
    GameRecord,
    legal_moves,
    new_game,
    observe,
    replay,
    verify_move,
)
from troedler.bots.base import BotFailed  # noqa: E402
from troedler.core.errors import ConfigurationError, IllegalMoveError  # noqa: E402
from troedler.core.invariants import cards_in_state  # noqa: E402
from troedler.core.moves import DiscardCard, EndTurn, PlayFeedMove, PlayRoute, TakePile  # noqa: E402
from troedler.core.state import Phase  # noqa: E402
from troedler.svg.panel_html import card_html  # noqa: E402
from troedler.web import BrowserGame, Refused  # noqa: E402
from troedler.web.game import FEED_WARNING  # noqa: E402
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
            game.move(game.sequence, str(legal_moves(seen)[0]))
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
            ends = [m for m in legal_moves(seen) if str(m) == "end"]
            game.move(game.sequence, str(ends[0] if ends else rng.choice(legal_moves(seen))))
        else:
            game.step(game.sequence)
    assert view["discard"].startswith("Hand limit (T7): discard")
    seen = observe(game.state, 0)
    may_go = {str(m.card) for m in legal_moves(seen) if hasattr(m, "card")}
    hand = game.state.players[0].hand
    reasons = [card["why"] for card in view["hand"] if card["why"]]
    # Each card that may not go has the engine's own reason (never a
    # "None"), and each reason shows once, not between every card it holds for.
    refused = set()
    for held, card in zip(hand, view["hand"], strict=True):
        assert card["mayGo"] == (card["card"] in may_go)
        if card["mayGo"]:
            assert card["why"] == ""
            continue
        with pytest.raises(IllegalMoveError) as error:
            verify_move(game.state, DiscardCard(held))
        assert error.value.rule == "T7"
        refused.add(str(error.value))
    assert refused  # this game reaches cards that may not go
    assert sorted(reasons) == sorted(refused)
    assert len(reasons) == len(set(reasons))
    assert not any("None" in reason for reason in reasons)


def test_the_python_example_of_docs_play_runs() -> None:
    page = (Path(__file__).parent.parent / "docs" / "play.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", page, re.S)
    assert len(blocks) == 1
    exec(compile(blocks[0], "docs/play.md", "exec"), {})  # noqa: S102 - our own docs


def test_clicks_make_the_one_move_list_several_or_name_the_rule(tmp_path: Path) -> None:
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
        for card in {str(c) for c in seen.players[0].hand}:
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
                # Several moves fit, or one that spends special feed: nothing is made yet.
                texts = [c["text"] for c in answer["choices"]]
                assert len(texts) > 1 or answer["warning"] == FEED_WARNING
                assert set(texts) <= {str(m) for m in legal_moves(seen)}
                assert game.sequence == before
                game.move(before, texts[0])
            else:
                assert game.sequence == before + 1
            break
        else:
            game.move(game.sequence, str(rng.choice(legal_moves(seen))))
    assert checked >= 5


def _to_your_turn(game: BrowserGame, rng: random.Random) -> None:
    """Play on (the person at random) until seat 0 is to play a card, or the game ends."""
    while not game.state.is_over:
        state = game.state
        if state.current_player != game.seat:
            game.step(game.sequence)
        elif state.phase is Phase.PLAY_TURNS and not state.turn.discards_due:
            return
        else:
            seen = observe(state, game.seat)
            game.move(game.sequence, str(rng.choice(legal_moves(seen))))


def test_T2_a_village_no_route_reaches_is_refused_by_name(tmp_path: Path) -> None:
    game = BrowserGame.new(2, 4, ["greedy"], 0, save=tmp_path / "game.json")
    rng = random.Random(2)
    checked = 0
    while checked < 6:
        _to_your_turn(game, rng)
        state = game.state
        here = state.players[0].cart
        board = state.board
        far = [v.name for v in board.villages if v.name not in (here, *board.neighbours(here))]
        before = game.sequence
        for there in far[:3]:
            with pytest.raises(Refused) as refused:
                game.click(before, village=there)
            assert str(refused.value) == f"T2: no route leads from {here} to {there}"
            assert refused.value.rule == "T2" and refused.value.status == 422
            checked += 1
        with pytest.raises(Refused, match=f"T2: your cart is in {here} already"):
            game.click(before, village=here)
        assert game.sequence == before
        seen = observe(state, 0)
        game.move(before, str(rng.choice(legal_moves(seen))))


def test_a_click_that_only_means_special_feed_asks_first(tmp_path: Path) -> None:
    """A village that only a feed move reaches, and the feed card: nothing is
    played at once; the moves are offered with the damage they cost."""
    asked = {"village": 0, "card": 0}
    for seed in range(1, 30):
        game = BrowserGame.new(2, seed, ["greedy"], 0, save=tmp_path / f"game{seed}.json")
        rng = random.Random(seed)
        for _ in range(8):
            _to_your_turn(game, rng)
            if game.state.is_over:
                break
            seen = observe(game.state, 0)
            before = game.sequence
            feed_only = {
                m.to
                for m in legal_moves(seen)
                if isinstance(m, PlayFeedMove)
                and not any(isinstance(r, PlayRoute) and r.to == m.to for r in legal_moves(seen))
            }
            for village in sorted(feed_only)[:1]:
                answer = game.click(before, village=village)
                assert answer["warning"] == FEED_WARNING and game.sequence == before
                texts = {c["text"] for c in answer["choices"]}
                assert texts == {
                    str(m)
                    for m in legal_moves(seen)
                    if isinstance(m, PlayFeedMove) and m.to == village
                }
                assert all(c["feed"] == 1 for c in answer["choices"])
                asked["village"] += 1
            if "feed" in {str(c) for c in seen.players[0].hand}:
                answer = game.click(before, card="feed")
                assert answer["warning"] == FEED_WARNING and game.sequence == before
                asked["card"] += 1
            game.move(before, str(rng.choice(legal_moves(seen))))
        if min(asked.values()) >= 2:
            break
    assert min(asked.values()) >= 2, asked


def test_the_move_list_offers_every_legal_move_once_by_its_head(tmp_path: Path) -> None:
    game = BrowserGame.new(3, 6, ["greedy"], 0, save=tmp_path / "game.json")
    rng = random.Random(6)
    most = 0
    for _ in range(15):
        _to_your_turn(game, rng)
        if game.state.is_over:
            break
        view = game.view()
        seen = observe(game.state, 0)
        offered = [c["text"] for g in view["groups"] for o in g["options"] for c in o["choices"]]
        assert sorted(offered) == sorted(str(m) for m in legal_moves(seen))
        buttons = sum(len(g["options"]) for g in view["groups"])
        most = max(most, len(offered) - buttons)
        for group in view["groups"]:
            for option in group["options"]:
                # The button's label is the head of each of its moves.
                assert all(c["text"].startswith(option["label"]) for c in option["choices"])
                if len(option["choices"]) > 1:
                    labels = [c["label"] for c in option["choices"]]
                    assert len(set(labels)) == len(labels)
        game.move(game.sequence, str(rng.choice(legal_moves(seen))))
    assert most > 0  # some decisions had moves folded under one button


class _Raising:
    name = "raiser"

    def choose(self, observation: Any, legal_moves: Any, rng: random.Random) -> Any:
        if observation.round > 1:
            raise ZeroDivisionError("a bug in the bot")
        return legal_moves[0]


class _Cheating:
    name = "cheat"

    def choose(self, observation: Any, legal_moves: Any, rng: random.Random) -> Any:
        if observation.round > 1:
            return EndTurn() if not isinstance(legal_moves[0], EndTurn) else TakePile(9)
        return legal_moves[0]


class _Hanging:
    name = "sleeper"

    def choose(self, observation: Any, legal_moves: Any, rng: random.Random) -> Any:
        if observation.round > 1:
            raise BotFailed("slow", "sleeper (seat 1) did not answer its move within 5 s")
        return legal_moves[0]


class _Slow:
    name = "snail"

    def choose(self, observation: Any, legal_moves: Any, rng: random.Random) -> Any:
        if observation.round > 1:
            time.sleep(0.3)
        return legal_moves[0]


@pytest.mark.parametrize(
    ("bot", "did", "detail"),
    [
        (_Raising(), "raised an error", "ZeroDivisionError: a bug in the bot (test_web.py:"),
        (_Cheating(), "gave an answer that is not a legal move", "which is not legal"),
        (_Hanging(), "did not answer in time", "sleeper (seat 1) did not answer"),
        (_Slow(), "did not answer in time", "did not answer its move within 0.1 s"),
    ],
)
def test_a_failing_bot_is_named_and_the_game_goes_on_with_another(
    tmp_path: Path, bot: Any, did: str, detail: str
) -> None:
    path = tmp_path / "game.json"
    first = new_game(2, seed=3)
    game = BrowserGame(
        first,
        seat=0,
        bots=[None, bot],
        names=["you", "odd 1"],
        save=path,
        texts=[None, "odd"],
        move_time_limit=0.1,
    )
    game.save()
    served = Served(game, 0)
    rng = random.Random(1)
    try:
        with httpx.Client(base_url=served.url, timeout=30) as client:
            while True:
                view = client.get("state").json()
                if view["yours"]:
                    seen = observe(game.state, 0)
                    move = str(rng.choice(legal_moves(seen)))
                    assert client.post("move", json={"seq": view["seq"], "move": move}).is_success
                    continue
                answer = client.post("step", json={"seq": view["seq"]})
                if answer.status_code != 200:
                    break
            assert answer.status_code == 502
            failure = answer.json()["failure"]
            view = client.get("state").json()
    finally:
        served.close()
    # One line: the seat, the bot, what it did; no traceback, no "Refused".
    line = failure["line"]
    assert line.startswith(f"The bot of seat 1, {bot.name}, {did} at move "), line
    assert detail in line and failure["kind"] in ("raised", "illegal", "slow")
    assert "\n" not in line and "Traceback" not in line and "Refused" not in line
    assert view["failure"] == failure and not view["waiting"]
    # The save holds every move made before the failure ...
    record = GameRecord.from_json(path.read_text(encoding="utf-8"))
    assert record.moves == tuple(str(m) for m in game.moves)
    assert f"all {len(record.moves)} moves" in failure["saved"]
    # ... and the command goes on with another bot in that seat.
    words = shlex.split(failure["resume"])
    assert words[:5] == ["troedler", "play", "--browser", "--resume", "game.json"]
    assert words[5:] == ["--seat", "0", "--bots", "greedy"]
    again = BrowserGame.resume(path, words[-1].split(","), int(words[6]))
    assert again.state == game.state
    again.step(again.sequence)
    assert again.sequence == game.sequence + 1 and again.failure is None


def test_perfect_recall_shows_the_hands_the_seat_knows(tmp_path: Path) -> None:
    for recall in ("perfect", "table"):
        game = BrowserGame.new(3, 2, ["greedy"], 0, recall=recall, save=tmp_path / f"{recall}.json")
        _to_your_turn(game, random.Random(1))
        panel = game.view()["panel"]
        for seat in (1, 2):
            row = re.search(rf'<div class="row hand seat-{seat}".*?</div>', panel)
            assert row, panel
            hand = game.state.players[seat].hand
            if recall == "perfect":
                assert re.findall(r'data-card="([^"]+)"', row.group(0)) == [str(c) for c in hand]
            else:
                assert f"{len(hand)} cards, not known" in row.group(0)
        # The person's own hand is shown once, as the hand's buttons, not in the panel.
        assert 'class="row hand seat-0"' not in panel


def _known(seen: Any, log: Sequence[str]) -> set[str]:
    """Every card a seat may see named: what it observes, and the moves all saw."""
    known = {str(c) for c in cards_in_state(seen) if c is not UNKNOWN}
    known |= {word for move in log for word in move.split()}
    return known


def test_the_page_is_never_sent_the_hidden_position_until_the_end(tmp_path: Path) -> None:
    """With the table's recall, no answer names a card the seat cannot see,
    nor the seed that would tell every shuffle; after the end it may."""
    seed = 48_151_623
    game = BrowserGame.new(2, seed, ["greedy"], 0, recall="table", save=tmp_path / "g.json")
    rng = random.Random(4)
    sent = 0
    while True:
        view = game.view()
        text = json.dumps(view)
        if game.state.is_over:
            break
        sent += 1
        assert str(seed) not in text
        seen = observe(game.state, 0, recall="table")
        known = _known(seen, [str(m) for m in game.moves])
        for named in re.findall(r'data-card=\\?"([^"\\]+)', text):
            assert named in known, named
        if view["yours"]:
            game.move(game.sequence, str(rng.choice(legal_moves(seen))))
        else:
            game.step(game.sequence)
    assert sent > 50
    assert view["seed"] == seed
    # After the end every hand is shown.
    for player in game.state.players:
        for card in player.hand:
            assert f'data-card="{card}"' in view["panel"]


def test_the_default_save_file_does_not_name_the_seed(tmp_path: Path) -> None:
    """The page shows the save file's name, so it must not tell the seed."""
    env = {**os.environ, "BROWSER": "true", "PYTHONPATH": str(Path("src").resolve())}
    process = subprocess.Popen(
        [sys.executable, "-m", "troedler", "play", "--browser", "--players", "2",
         "--seed", "48151623"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=tmp_path,
    )  # fmt: skip
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        url = re.search(r"http://127\.0\.0\.1:\d+/[\w-]+/", line)
        assert url, line
        answer = httpx.get(url.group(0) + "state", timeout=30)
        assert answer.json()["seq"] == 0 and "48151623" not in answer.text
        saved = [p.name for p in tmp_path.glob("troedler-game-*.json")]
        assert len(saved) == 1 and "48151623" not in saved[0]
        assert GameRecord.from_json((tmp_path / saved[0]).read_text()).seed == 48151623
    finally:
        process.send_signal(signal.SIGINT)
        process.communicate(timeout=60)


@pytest.fixture
def number() -> int:
    """The number of the ``sleep`` a spawning bot starts, its own in this test."""
    return random.SystemRandom().randrange(10**6, 10**7) * 10 + 7


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="needs /proc (Linux)")
def test_ctrl_c_in_the_browser_game_ends_every_process_its_bots_started(
    tmp_path: Path, number: int
) -> None:
    from tests.test_no_orphans import none_left, sleepers, spawner, troedler

    command = spawner(tmp_path, number, "plays")
    running = troedler(
        "play", "--browser", "--players", "3", "--bots", f"exec:{command}",
        "--save", str(tmp_path / "game.json"), cwd=tmp_path,
    )  # fmt: skip
    try:
        assert running.stdout is not None
        line = running.stdout.readline()
        assert "http://127.0.0.1:" in line, line
        assert len(sleepers(number)) == 4  # two bots, each with two grandchildren
    finally:
        os.killpg(running.pid, signal.SIGINT)
        out, err = running.communicate(timeout=60)
    assert "saved" in out, (out, err)
    assert none_left(number)


@pytest.mark.skipif(not Path("/proc/self/cmdline").exists(), reason="needs /proc (Linux)")
def test_a_program_bot_that_fails_in_the_browser_game_leaves_no_process(
    tmp_path: Path, number: int
) -> None:
    from tests.test_no_orphans import none_left, sleepers, spawner

    command = spawner(tmp_path, number, "cheats")
    game = BrowserGame.new(2, 1, [f"exec:{command}"], 0, save=tmp_path / "game.json")
    assert len(sleepers(number)) == 2
    game.move(0, str(legal_moves(observe(game.state, 0))[0]))
    with pytest.raises(Refused) as refused:
        game.step(1)
    assert refused.value.failure is not None and refused.value.failure["kind"] == "illegal"
    game.close()
    assert none_left(number)


def test_R4_each_dealer_piles_cards_are_shown_on_its_own_button(tmp_path: Path) -> None:
    # The piles are chosen where their cards are seen: each take (and, two
    # players, discard) button carries the faces of its pile's cards.
    for players in (2, 3):
        game = BrowserGame.new(players, 5, ["greedy"], 0, save=tmp_path / f"game{players}.json")
        while game.state.current_player != game.seat:
            game.step(game.sequence)
        seen = observe(game.state, game.seat)
        assert seen.phase is Phase.TAKE_PILES
        options = [o for g in game.view()["groups"] for o in g["options"]]
        piles = [o for o in options if o["label"].split()[0] in ("take", "discard")]
        assert piles
        for option in piles:
            pile = seen.dealer_piles[int(option["label"].split()[-1])]
            assert option["cards"] == "".join(card_html(card) for card in pile or ())
            assert option["cards"].count('class="card') == len(pile or ())
        assert all(o["cards"] == "" for o in options if o not in piles)
