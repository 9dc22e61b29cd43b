"""``troedler play --browser``: the game server run privately, played in a
real headless Chromium at 390 by 844 by tapping, as a new user would, from the
first decision to the end, then a new game; stopped and resumed from its
store, and an unfinished record from the terminal game resumed too."""

from __future__ import annotations

import os
import queue
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("sqlalchemy")
pytest.importorskip("uvicorn")

import httpx
from selenium.webdriver.common.by import By

from tests.page_support import (
    PHONE,
    TAP_TARGETS,
    Decisions,
    errors,
    my_turn,
    play_until_over,
    shown_version,
    tap_a_move,
    wait,
    window,
)
from tests.server_support import ROOT
from troedler import GameRecord, apply_move, legal_moves, new_game
from troedler.bots.base import check_players
from troedler.core.errors import TroedlerError
from troedler.simulation import bot_from_text

START_SECONDS = 60


class Private:
    """``troedler play --browser ARGS`` in a process of its own, and its page's address."""

    def __init__(self, folder: Path, *args: str, browser: str = "true") -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = str(ROOT / "src")
        env["BROWSER"] = browser  # the browser it opens: by default a program that does nothing
        self.process = subprocess.Popen(
            [sys.executable, "-m", "troedler", "play", "--browser", *args],
            cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        )  # fmt: skip
        self.lines: queue.Queue[str] = queue.Queue()
        out = self.process.stdout
        assert out is not None
        threading.Thread(target=lambda: [self.lines.put(line) for line in out], daemon=True).start()
        first = self.lines.get(timeout=START_SECONDS)
        assert first.startswith("Your game is at "), first + self._stderr()
        self.url = first.split(" at ", 1)[1].strip()
        self.http = httpx.Client(base_url=self.url, timeout=30)

    def _stderr(self) -> str:
        if self.process.poll() is None:
            return ""
        assert self.process.stderr is not None
        return self.process.stderr.read()

    def about(self) -> dict[str, Any]:
        return dict(self.http.get("api/server").json())

    def show(self, match: str) -> dict[str, Any]:
        return dict(self.http.get(f"api/matches/{match}").json())

    def stop(self) -> tuple[int, str]:
        """Ctrl-C, as a person stops it: its exit status and what it said."""
        self.process.send_signal(signal.SIGINT)
        status = self.process.wait(60)
        said = []
        while not self.lines.empty():
            said.append(self.lines.get())
        return status, "".join(said)

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(30)


def test_a_whole_local_game_tapped_at_390_then_a_new_game_stopped_and_resumed(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    store = tmp_path / "game.sqlite3"
    private = Private(tmp_path, "--players", "2", "--seed", "3", "--bots", "greedy",
                      "--name", "ann", "--save", str(store))  # fmt: skip
    request.addfinalizer(private.kill)
    # Every address but under the random token is refused.
    outside = httpx.get(private.url.rsplit("/", 2)[0] + "/api/server", timeout=30)
    assert outside.status_code == 404
    about = private.about()
    match = about["match"]
    assert about["local"] and about["name"] == "ann" and store.exists()
    with window(tmp_path / "page", PHONE) as driver:
        driver.get(private.url)
        # Straight to the person's match, in their seat.
        wait(driver, lambda d: d.find_element(By.ID, "you").is_displayed())
        assert driver.current_url.endswith(f"#match={match}")
        assert not driver.find_element(By.ID, "to-lobby").is_displayed()
        sides = driver.execute_script(TAP_TARGETS, True)
        assert min(side for _, side in sides) >= 44, sides
        decisions = [Decisions()]
        play_until_over(
            [driver],
            lambda: private.show(match)["status"] == "finished",
            lambda: int(private.show(match)["version"]),
            decisions,
            timed=False,
            rng=random.Random(3),
        )
        count = decisions[0]
        print(
            f"local game at 390 px: {count.in_view} of {count.seen} decisions in view, "
            f"{count.discards} of them over the hand limit"
        )
        assert count.seen > 10 and count.in_view == count.seen, count.out
        # The end: the scoring, and a new game with the same bots.
        wait(driver, lambda d: d.find_element(By.ID, "result").is_displayed())
        assert "winner" in driver.find_element(By.ID, "scores").text
        again = driver.find_element(By.ID, "rematch")
        assert again.text == "New game"
        again.click()
        wait(driver, lambda d: not d.current_url.endswith(f"#match={match}"))
        second = driver.current_url.split("#match=")[1]
        wait(driver, lambda d: d.find_element(By.ID, "you").is_displayed())
        first_token = private.about()["token"]
        assert private.about()["match"] == second
        assert errors(driver) == []
    status, said = private.stop()
    assert status == 130
    assert f"The game is saved in {store}." in said
    assert f"troedler play --browser --resume {store}" in said
    # Resumed from its store: the same match, a new address and a new seat token.
    resumed = Private(tmp_path, "--resume", str(store))
    request.addfinalizer(resumed.kill)
    assert resumed.url != private.url
    about = resumed.about()
    assert about["match"] == second and about["token"] != first_token
    with window(tmp_path / "again", PHONE) as driver:
        driver.get(resumed.url)
        wait(driver, lambda d: d.find_element(By.ID, "you").is_displayed())
        assert driver.current_url.endswith(f"#match={second}")
        assert errors(driver) == []
    assert resumed.stop()[0] == 130


def test_an_unfinished_record_is_resumed_in_a_store_of_its_own(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    rng = random.Random(5)
    state = new_game(2, seed=8)
    made = []
    for _ in range(12):
        move = rng.choice(legal_moves(state))
        made.append(move)
        state = apply_move(state, move)
    source = tmp_path / "game.json"
    record = GameRecord.of_game(new_game(2, seed=8), made, seats=("ann", "greedy 1"))
    source.write_text(record.to_json())
    private = Private(tmp_path, "--resume", str(source), "--name", "ann",
                      "--save", str(tmp_path / "store.sqlite3"))  # fmt: skip
    request.addfinalizer(private.kill)
    about = private.about()
    shown = private.show(about["match"])
    assert shown["version"] >= len(made) and about["seat"] == 0
    moves = private.http.get(f"api/matches/{about['match']}/moves").json()["moves"]
    assert [m["move"] for m in moves[: len(made)]] == [str(move) for move in made]
    assert private.stop()[0] == 130
    # The record is not written over, and a store that exists is not either.
    done = subprocess.run(
        [sys.executable, "-m", "troedler", "play", "--browser", "--save",
         str(tmp_path / "store.sqlite3")],
        capture_output=True, text=True, timeout=120, cwd=tmp_path, check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src"), "BROWSER": "true"},
    )  # fmt: skip
    assert done.returncode == 2 and "exists already" in done.stderr


def test_a_bot_that_cannot_play_the_player_count_is_refused_before_the_server_starts(
    tmp_path: Path,
) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "troedler", "play", "--browser", "--players", "3",
         "--bots", "neural"],
        capture_output=True, text=True, timeout=120, cwd=tmp_path, check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src"), "BROWSER": "true"},
    )  # fmt: skip
    with pytest.raises(TroedlerError) as refused:
        check_players(bot_from_text("neural"), 3)
    # One line, the bot's own reason, and no server, page or store.
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == f"troedler: --bots: bots[1]: {refused.value}\n"
    assert list(tmp_path.iterdir()) == []


FAILING = """\
class Raiser:
    name = "raiser"

    def __init__(self):
        self.calls = 0

    def choose(self, observation, legal_moves, rng):
        self.calls += 1
        if self.calls > 2:
            raise ValueError(
                "<img src=x onerror=\\"document.title='owned'\\"> " + "no idea " * 500
            )
        return rng.choice(legal_moves)
"""


def test_a_bot_that_raises_in_a_local_game_is_shown_and_the_game_goes_on(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    (tmp_path / "failing_bots.py").write_text(FAILING)
    private = Private(tmp_path, "--players", "2", "--seed", "5", "--bots",
                      "failing_bots:Raiser", "--name", "ann")  # fmt: skip
    request.addfinalizer(private.kill)
    match = private.about()["match"]
    rng = random.Random(5)
    with window(tmp_path / "page", PHONE) as driver:
        driver.get(private.url)
        wait(driver, lambda d: d.find_element(By.ID, "you").is_displayed())
        box = driver.find_element(By.ID, "bot-failures")
        assert not box.is_displayed()
        while not box.is_displayed():  # the person plays until the bot fails
            assert int(private.show(match)["version"]) < 40, "the bot never failed"
            if my_turn(driver):
                tap_a_move(driver, rng)
            time.sleep(0.1)
        # Which seat, which bot, what it did and said (as text, bounded), and
        # the random legal move made instead.
        line = box.find_element(By.CSS_SELECTOR, "li").text
        assert line.startswith("The bot of seat 1, raiser, raised an error at move "), line
        assert "ValueError: <img src=x onerror=" in line and "no idea" in line
        assert "A random legal move was played instead: " in line and len(line) <= 500
        assert not driver.find_elements(By.CSS_SELECTOR, "#bot-failures img")
        assert driver.title != "owned"
        assert box.find_element(By.TAG_NAME, "h2").text == "A bot failed"
        # The game goes on: the person's next move is made.
        wait(driver, my_turn)
        before = int(private.show(match)["version"])
        tap_a_move(driver, rng)
        wait(driver, lambda d: int(private.show(match)["version"]) > before)
        assert private.show(match)["status"] in ("playing", "finished")
        # Closed, it stays closed until a bot fails again.
        driver.find_element(By.ID, "bot-failures-close").click()
        assert not box.is_displayed()
        assert errors(driver) == []
    assert private.stop()[0] == 130


def test_paused_the_bots_moves_are_held_and_shown_one_at_a_time(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    private = Private(tmp_path, "--players", "3", "--seed", "7", "--bots", "greedy",
                      "--name", "ann")  # fmt: skip
    request.addfinalizer(private.kill)
    match = private.about()["match"]
    rng = random.Random(7)
    with window(tmp_path / "page", PHONE) as driver:
        driver.get(private.url)
        wait(driver, lambda d: d.find_element(By.ID, "you").is_displayed())
        pause = driver.find_element(By.ID, "pause-moves")
        step = driver.find_element(By.ID, "next-move")
        assert pause.is_displayed() and not step.is_enabled()
        pause.click()
        assert pause.get_attribute("aria-pressed") == "true" and pause.text == "go on"
        # The person plays; the bots' moves that follow wait, told but not shown.
        while not step.is_enabled():
            assert int(private.show(match)["version"]) < 40, "no bot moved"
            if my_turn(driver):
                tap_a_move(driver, rng)
            time.sleep(0.1)
        # Each tap of "next move" shows one move more, until the person's turn.
        steps = 0
        while not my_turn(driver):
            shown = shown_version(driver)
            assert shown < int(private.show(match)["version"])
            held = int(step.text.removeprefix("next move (").removesuffix(")"))
            assert held >= 1
            step.click()
            wait(driver, lambda d, then=shown: shown_version(d) == then + 1)
            steps += 1
            assert steps < 40
        assert shown_version(driver) == int(private.show(match)["version"])
        assert not step.is_enabled() and steps >= 2
        # Going on, the bots' moves are shown by themselves again.
        pause.click()
        assert pause.get_attribute("aria-pressed") == "false" and pause.text == "pause"
        before = shown_version(driver)
        tap_a_move(driver, rng)
        wait(driver, lambda d: my_turn(d) and shown_version(d) > before + 1)
        assert shown_version(driver) == int(private.show(match)["version"])
        assert errors(driver) == []
    assert private.stop()[0] == 130


def test_no_open_prints_the_address_and_opens_no_browser(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    opener = tmp_path / "opener"  # a "browser" that leaves a mark when opened
    opener.write_text('#!/bin/sh\ntouch "$(dirname "$0")/opened"\n')
    opener.chmod(0o755)
    mark = tmp_path / "opened"
    for opens in (True, False):
        private = Private(tmp_path, "--players", "2", "--name", "ann",
                          *([] if opens else ["--no-open"]), browser=str(opener))  # fmt: skip
        request.addfinalizer(private.kill)
        assert private.about()["local"]  # the address printed is the game's
        end = time.monotonic() + 5
        while opens and not mark.exists():
            assert time.monotonic() < end, "the browser was not opened"
            time.sleep(0.1)
        if not opens:
            time.sleep(2)
            assert not mark.exists()
        assert private.stop()[0] == 130
        mark.unlink(missing_ok=True)
