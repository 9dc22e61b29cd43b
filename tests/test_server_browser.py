"""The server's page in real headless Chromium windows: two people play a
whole match against each other by clicking, a third window watches and
never sees a hand, and the record replays to the result the page shows."""

from __future__ import annotations

import contextlib
import random
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("sqlalchemy")
pytest.importorskip("websockets")
pytest.importorskip("selenium")

from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.wait import WebDriverWait

from tests.server_support import Served
from tests.test_replay_html import _browser, _errors  # skips the module where Chromium is missing
from troedler import GameRecord, replay

WAIT = 60


@pytest.fixture
def windows(tmp_path: Path) -> Iterator[list[Any]]:
    opened: list[Iterator[object]] = [_browser(tmp_path / name) for name in ("a", "b", "c")]
    drivers = [next(each) for each in opened]
    try:
        yield drivers
    finally:
        for each in opened:
            with contextlib.suppress(StopIteration):
                next(each)


def _text(driver: Any, element: str) -> str:
    return str(driver.find_element(By.ID, element).text)


def _take_a_seat(driver: Any, url: str, name: str) -> None:
    driver.get(url)
    WebDriverWait(driver, WAIT).until(lambda d: d.find_element(By.ID, "join").is_displayed())
    driver.find_element(By.ID, "name").send_keys(name)
    driver.find_element(By.ID, "join").click()
    WebDriverWait(driver, WAIT).until(
        lambda d: not d.find_element(By.ID, "join-box").is_displayed()
    )


def test_two_windows_play_a_match_by_clicking_while_a_third_watches(
    windows: list[Any], tmp_path: Path
) -> None:
    served = Served(f"sqlite:///{tmp_path / 'matches.sqlite3'}", tmp_path)
    try:
        ann, bob, watcher = windows
        # A short match: it ends with the round in which a first request is fulfilled.
        match = served.create(players=2, rules={"end_threshold": 1})
        ann.get(served.url)
        WebDriverWait(ann, WAIT).until(
            lambda d: match in d.find_element(By.ID, "open-matches").get_attribute("innerHTML")
        )
        ann.find_element(By.CSS_SELECTOR, f'button[data-match="{match}"]').click()
        _take_a_seat(ann, ann.current_url, "ann")
        invitation = _text(ann, "invite")
        assert invitation.endswith(f"/#match={match}")
        bob.set_window_size(390, 844)  # a phone: nothing wider than the screen, thumb-sized buttons
        _take_a_seat(bob, invitation, "bob")
        watcher.get(invitation)
        for driver in (bob, watcher):  # the map is drawn, for a seat and a spectator
            WebDriverWait(driver, WAIT).until(
                lambda d: d.execute_script("return document.getElementById('map').naturalWidth > 0")
            )
        # On the phone the map reads (drawn wider than the screen, panned in its box).
        assert bob.find_element(By.ID, "map").size["width"] > 390
        assert bob.execute_script(
            "return document.documentElement.scrollWidth <= window.innerWidth"
        )
        heights = [b.size["height"] for b in bob.find_elements(By.CSS_SELECTOR, "button")]
        assert heights and min(h for h in heights if h) >= 44
        rng = random.Random(4)
        end = time.monotonic() + 900
        while served.show(match)["status"] != "finished":
            assert time.monotonic() < end, "the match did not finish"
            for driver in (ann, bob):
                buttons = driver.find_elements(By.CSS_SELECTOR, "#moves button")
                if buttons:
                    with contextlib.suppress(StaleElementReferenceException, WebDriverException):
                        rng.choice(buttons).click()
            assert "hand:" not in _text(watcher, "position")
        for driver in (ann, bob, watcher):
            WebDriverWait(driver, WAIT).until(lambda d: "Game over" in _text(d, "position"))
        shown = re.search(r"Game over: points (\d+), (\d+)", _text(watcher, "position"))
        assert shown is not None
        record = GameRecord.from_json(served.http.get(f"/api/matches/{match}/record").text)
        assert record.result is not None and replay(record)[-1].is_over
        assert list(record.result.points) == [int(shown.group(1)), int(shown.group(2))]
        assert record.seats == ("ann", "bob")
        assert "hand:" in _text(ann, "position") and "hand:" not in _text(watcher, "position")
        for driver in windows:
            assert _errors(driver) == []
    finally:
        served.stop()
