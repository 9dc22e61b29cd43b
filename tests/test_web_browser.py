"""The browser game played in a real headless Chromium through selenium, on a
real server on loopback, as tests/test_replay_html.py drives the replay."""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")
pytest.importorskip("selenium")

from selenium.webdriver.common.by import By
from selenium.webdriver.support.wait import WebDriverWait

from tests.test_replay_html import (  # this skips the module where Chromium is missing
    BOXES,
    CLIPPED,
    SMALLEST_FONT,
    _browser,
    _errors,
    keep_screenshots,
    overlaps,
    set_width,
)
from tests.test_web import Served, serve_game
from troedler import GameRecord, observe, replay
from troedler.bots import GreedyBot
from troedler.cards import RequestCard
from troedler.moves import Move
from troedler.scoring import outcome
from troedler.web import BrowserGame

WAIT = 30  # seconds: a loaded 2-core machine is slow, never this slow


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Any]:
    yield from _browser(tmp_path)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    yield from serve_game(tmp_path)


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


def _click_move(driver: Any, game: BrowserGame, move: Move) -> str:
    """Make ``move`` as a person would: on the board, on a card, on a dealer pile or
    from the list; which of these it was. A click that fits several moves lists
    them, and the move is then chosen from that short list."""
    text = str(move)
    view = game.view()
    moves = [m for g in view["groups"] for m in g["moves"]]
    entry = next(m for m in moves if m["text"] == text)
    village, card, pile = entry["village"], entry["card"], entry["pile"]
    if village:
        kind, fits = "village", sum(m["village"] == village for m in moves)
        target = driver.find_element(By.CSS_SELECTOR, f'#board .village[data-village="{village}"]')
    elif card and card != "feed":  # feed: one card, many moves; the list is quicker
        kind, fits = "card", sum(m["card"] == card for m in moves)
        target = driver.find_element(By.CSS_SELECTOR, f'#hand button[data-card="{card}"]')
    elif pile is not None:
        kind, fits = "pile", 1
        target = driver.find_element(By.CSS_SELECTOR, f'#panel .dealer-pile[data-pile="{pile}"]')
    else:
        kind, fits = "list", 1
        target = driver.find_element(By.CSS_SELECTOR, f'#moves button[data-move="{text}"]')
    target.click()
    if fits > 1:
        choice = WebDriverWait(driver, WAIT).until(
            lambda d: d.find_element(By.CSS_SELECTOR, f'#choices button[data-move="{text}"]')
        )
        choice.click()
        kind += " then a choice"
    return kind


def _layout_holds(driver: Any, width: int, tmp_path: Path, name: str) -> None:
    set_width(driver, width)
    assert driver.execute_script("return innerWidth") == width
    assert driver.execute_script(SMALLEST_FONT, "#side") >= 11
    for box in ("panel", "you", "others"):
        assert driver.execute_script(CLIPPED, box) == 0, (width, box)
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
        rng = random.Random(3)
        pages = [(driver.page_source, game.state, ())]
        clicked: Counter[str] = Counter()
        while not game.state.is_over:
            seen = observe(game.state, 0)
            assert seen.current_player == 0
            # The final scoring never shows before the end.
            assert not driver.find_element(By.ID, "result").is_displayed()
            before = game.sequence
            clicked[_click_move(driver, game, me.choose(seen, seen.legal_moves, rng))] += 1
            WebDriverWait(driver, WAIT).until(lambda d, b=before: game.sequence > b)
            _wait_for(driver, game)
            if game.sequence % 20 < 2:
                pages.append((driver.page_source, game.state, tuple(map(str, game.moves))))
        pages.append((driver.page_source, game.state, tuple(map(str, game.moves))))
        # Villages, cards, dealer piles and the list were all clicked.
        assert {k.split()[0] for k in clicked} == {"village", "card", "pile", "list"}, clicked
        assert any(k.endswith("a choice") for k in clicked), clicked
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


@pytest.fixture
def paused(tmp_path: Path) -> Iterator[Served]:
    # The opponents' moves wait ten minutes: only the step button shows them.
    yield from serve_game(tmp_path, pause_ms=600_000)


def test_an_illegal_click_shows_the_rule_and_the_step_button_shows_one_move(
    paused: Served, browser: Any
) -> None:
    game = paused.game
    driver = browser
    driver.get(paused.url)
    _wait_for(driver, game)
    assert game.state.phase.value == "take piles"
    # A village in the take-piles phase: the rules refuse it, and the page says why.
    driver.find_element(By.CSS_SELECTOR, '#board .village[data-village="Keith"]').click()
    message = driver.find_element(By.ID, "message")
    WebDriverWait(driver, WAIT).until(lambda d: message.text)
    assert message.get_attribute("data-rule") == "T1"
    assert "T1" in message.text and "take piles" in message.text
    assert game.sequence == 0 and _seq(driver) == 0
    # A dealer pile clicked in the panel is the move of that pile.
    driver.find_element(By.CSS_SELECTOR, '#panel .dealer-pile[data-pile="0"]').click()
    WebDriverWait(driver, WAIT).until(lambda d: _seq(d) == 1)
    assert str(game.moves[0]) in ("take 0", "discard 0")
    # The bot is to move; nothing happens until the step button is pressed.
    assert game.state.current_player == 1
    step = driver.find_element(By.ID, "step")
    assert step.is_enabled()
    step.click()
    WebDriverWait(driver, WAIT).until(lambda d: _seq(d) == 2)
    log = driver.find_elements(By.CSS_SELECTOR, "#log li.logged")
    assert [li.text for li in log] == [f"{game.names[s]}: {m}" for _, s, m in game.log]
    assert log[-1].text.startswith("random 1: ")
    # The refusal is the one error the browser logs (a 422 answer), and nothing else.
    assert [e for e in _errors(driver) if "status of 422" not in e] == []
