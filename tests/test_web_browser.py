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
    BOARD_FONT,
    BOXES,
    CLIPPED,
    SMALLEST_FONT,
    _browser,
    _errors,
    keep_screenshots,
    overlaps,
    set_width,
)
from tests.test_web import SEED, Served, serve_game
from troedler import UNKNOWN, GameRecord, legal_moves, new_game, observe, replay
from troedler.bots import GreedyBot
from troedler.core.invariants import cards_in_state
from troedler.core.moves import DiscardPile, EndTurn, Move, TakePile
from troedler.core.scoring import outcome
from troedler.core.state import Phase
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


PHONE = (390, 844)  # CSS pixels: a phone held upright
WIDE = (800, 1024, 1400)

# Every element of the decision (the hand, the notes, the moves or the choices
# open), its box [what, left, top, right, bottom] in the window's pixels.
DECISION = """
const out = [];
for (const e of document.querySelectorAll(arguments[0])) {
  if (!e.getClientRects().length) continue;
  const r = e.getBoundingClientRect();
  out.push([e.textContent.slice(0, 30), r.left, r.top, r.right, r.bottom]);
}
return out;
"""
# Whether the cart of seat 0 lies inside the board's visible part.
CART_IN_BOARD = """
const frame = document.getElementById('board').getBoundingClientRect();
const cart = document.querySelector('#board .cart.seat-0').getBoundingClientRect();
return cart.left >= frame.left && cart.right <= frame.right && cart.top >= frame.top
  && cart.bottom <= frame.bottom;
"""
# A person pans the board away from their cart, as far as it goes.
PAN_AWAY = """
const b = document.getElementById('board');
const frame = b.getBoundingClientRect();
const cart = b.querySelector('.cart.seat-0').getBoundingClientRect();
const x = cart.left - frame.left + b.scrollLeft, y = cart.top - frame.top + b.scrollTop;
b.scrollLeft = x < b.scrollWidth / 2 ? b.scrollWidth : 0;
b.scrollTop = y < b.scrollHeight / 2 ? b.scrollHeight : 0;
"""
# The smallest side of every tap target: buttons, villages, dealer piles.
TAP_TARGETS = """
const out = [];
for (const e of document.querySelectorAll(
    'button, #board .village, #panel .dealer-pile')) {
  if (!e.getClientRects().length) continue;
  const r = e.getBoundingClientRect();
  out.push([e.dataset.village || e.dataset.pile || e.textContent.slice(0, 20),
            Math.min(r.width, r.height)]);
}
return out;
"""


PAN = "arguments[0].scrollIntoView({block: 'center', inline: 'center'})"


def _known_to_seat_0(state: Any, log: tuple[str, ...]) -> set[str]:
    """Every card seat 0 may name: what it sees, and every move made so far, all saw."""
    seen = observe(state, 0)
    known = {str(c) for c in cards_in_state(seen) if c is not UNKNOWN}
    known |= {word for move in log for word in move.split()}
    return known


def _no_leak(text: str, state: Any, log: tuple[str, ...]) -> None:
    """``text`` names no card that seat 0 does not know (the game's own cards
    are all known at its end)."""
    if state.is_over:
        return
    known = _known_to_seat_0(state, log)
    for named in re.findall(r'data-card=\\?"([^"\\]+)', text):
        assert named in known, named


def _tap_move(driver: Any, game: BrowserGame, move: Move, *, listed: bool = False) -> str:
    """Make ``move`` as a person would: on the board, on a card, on a dealer pile
    or in the list; which of these it was. A tap that fits several moves, or
    spends special feed, offers them, and the move is then chosen there.
    ``listed``: from the list where it folds several moves under one button."""
    text = str(move)
    view = game.view()
    moves = [m for g in view["groups"] for m in g["moves"]]
    entry = next(m for m in moves if m["text"] == text)
    village, card, pile = entry["village"], entry["card"], entry["pile"]
    feed = text.startswith("feed") or " with " in text  # spends special feed
    option = next(o for g in view["groups"] for o in g["options"] if text in _texts(o))
    if listed and len(option["choices"]) > 1:
        village = card = pile = None
    if village:
        kind, asks = "village", sum(m["village"] == village for m in moves) > 1 or feed
        target = driver.find_element(By.CSS_SELECTOR, f'#board .village[data-village="{village}"]')
    elif card and card != "feed":  # feed: one card, many moves; the list is quicker
        kind, asks = "card", sum(m["card"] == card for m in moves) > 1 or feed
        target = driver.find_element(By.CSS_SELECTOR, f'#hand button[data-card="{card}"]')
    elif pile is not None:
        kind, asks = "pile", False
        target = driver.find_element(By.CSS_SELECTOR, f'#panel .dealer-pile[data-pile="{pile}"]')
    elif len(option["choices"]) == 1:
        kind, asks = "list", False
        target = driver.find_element(By.CSS_SELECTOR, f'#moves button[data-move="{text}"]')
    else:
        kind, asks = "list", True
        label = option["label"]
        target = driver.find_element(By.CSS_SELECTOR, f'#moves button[data-option="{label}"]')
    # As a person pans the board (and the page) until the village is in sight.
    driver.execute_script(PAN, target)
    target.click()
    if asks:
        choice = WebDriverWait(driver, WAIT).until(
            lambda d: d.find_element(By.CSS_SELECTOR, f'#choices button[data-move="{text}"]')
        )
        # The choices are in view where the tap was made, the page not scrolled.
        _decision_in_view(driver, PHONE[0], scroll=False, parts="#choices > *")
        choice.click()
        kind += " then a choice"
    return kind


def _texts(option: dict[str, Any]) -> list[str]:
    return [c["text"] for c in option["choices"]]


def _decision_in_view(driver: Any, width: int, *, scroll: bool = True, parts: str = "") -> int:
    """Every element of the decision (``parts``: the hand, the moves and the
    choices) lies inside the window, the page first scrolled to its top if
    ``scroll``, else as the page itself left it; how many there are."""
    parts = parts or "#hand > *, #discard-note, #moves > *, #choices > *"
    if scroll:
        driver.execute_script("window.scrollTo(0, 0)")
    wide, high = driver.execute_script("return [innerWidth, innerHeight]")
    assert wide == width
    boxes = driver.execute_script(DECISION, parts)
    assert boxes
    outside = [b for b in boxes if b[1] < 0 or b[2] < 0 or b[3] > wide or b[4] > high]
    assert outside == [], (width, outside)
    return len(boxes)


def _phone_holds(driver: Any) -> None:
    """At 390 px: a thumb's tap targets, board text that reads, nothing wider than the window."""
    assert driver.execute_script("return document.documentElement.scrollWidth") <= PHONE[0]
    small = [t for t in driver.execute_script(TAP_TARGETS) if t[1] < 44]
    assert small == [], small
    assert driver.execute_script(BOARD_FONT) >= 9
    assert driver.execute_script(SMALLEST_FONT, "#side") >= 11


def _layout_holds(driver: Any, width: int, tmp_path: Path, name: str) -> None:
    set_width(driver, width)
    assert driver.execute_script(SMALLEST_FONT, "#side") >= 11
    for box in ("panel", "you", "others"):
        assert driver.execute_script(CLIPPED, box) == 0, (width, box)
    boxes = driver.execute_script(BOXES, ["board", "you", "others", "panel", "log", "result"])
    shown = [b for b in boxes if b[3] > b[1]]  # the result is hidden until the end
    assert overlaps(shown) == [], (width, boxes)
    assert driver.execute_script("return document.documentElement.scrollWidth") <= width
    driver.save_screenshot(str(tmp_path / f"game-{name}-{width}.png"))


def test_a_whole_game_by_tapping_on_a_phone(tmp_path: Path, served: Served, browser: Any) -> None:
    """A whole game at 390 px, every move a tap; at some decisions the page is
    also seen at 800, 1,024 and 1,400 px, the decision in view at each."""
    game = served.game
    driver = browser
    try:
        set_width(driver, *PHONE)
        driver.get(served.url)
        _wait_for(driver, game)
        _phone_holds(driver)
        assert not driver.find_element(By.ID, "result").is_displayed()
        me = GreedyBot()
        rng = random.Random(3)
        pages = [(driver.page_source, game.state, ())]
        tapped: Counter[str] = Counter()
        wide_checks = panned = decisions = pile_buttons = 0
        most = 0
        while not game.state.is_over:
            seen = observe(game.state, 0)
            assert seen.current_player == 0
            # The final scoring never shows before the end.
            assert not driver.find_element(By.ID, "result").is_displayed()
            # As the page stands when the decision comes, after the taps far down
            # the page that made the last one: in view without scrolling.
            most = max(most, _decision_in_view(driver, PHONE[0], scroll=False))
            decisions += 1
            if seen.phase is Phase.TAKE_PILES:
                # Each pile's cards are on its own button, in the decision's view.
                for b in driver.find_elements(By.CSS_SELECTOR, "#moves button[data-move]"):
                    word, _, pile = b.get_attribute("data-move").partition(" ")
                    shown = len(b.find_elements(By.CSS_SELECTOR, ".card"))
                    if word in ("take", "discard"):
                        assert shown == len(seen.dealer_piles[int(pile)] or ()), pile
                        pile_buttons += 1
            if not game.log or game.log[-1][1] != 0:
                # The turn has come back: the board was panned to the person's cart.
                assert driver.execute_script(CART_IN_BOARD), game.sequence
            if wide_checks < 3 and len(legal_moves(seen)) >= 4 * wide_checks + 3:
                # The same decision at the wider widths: beside the board, in view.
                for width in WIDE:
                    _layout_holds(driver, width, tmp_path, f"turn{wide_checks}")
                    _decision_in_view(driver, width)
                set_width(driver, *PHONE)
                _phone_holds(driver)
                driver.save_screenshot(str(tmp_path / f"game-turn{wide_checks}-390.png"))
                wide_checks += 1
            before = game.sequence
            chosen = me.choose(seen, legal_moves(seen), rng)
            if isinstance(chosen, EndTurn | TakePile | DiscardPile):
                # The turn passes to the bots: the person looks elsewhere on the board.
                driver.execute_script(PAN_AWAY)
                assert not driver.execute_script(CART_IN_BOARD)
                panned += 1
            tapped[_tap_move(driver, game, chosen, listed=game.sequence % 3 == 0)] += 1
            WebDriverWait(driver, WAIT).until(lambda d, b=before: game.sequence > b)
            _wait_for(driver, game)
            if game.sequence % 20 < 2:
                pages.append((driver.page_source, game.state, tuple(map(str, game.moves))))
        pages.append((driver.page_source, game.state, tuple(map(str, game.moves))))
        assert wide_checks == 3 and most >= 8 and panned > 10
        # Every decision of the person's was measured, each in view (above).
        assert decisions == sum(1 for entry in game.log if entry[1] == 0) > 60
        assert pile_buttons > 10
        # Villages, cards, dealer piles and the list were all tapped.
        assert {k.split()[0] for k in tapped} == {"village", "card", "pile", "list"}, tapped
        assert tapped["village then a choice"] and tapped["list then a choice"], tapped
        result = driver.find_element(By.ID, "result")
        assert result.is_displayed()
        # The final scoring fits the phone's width.
        assert driver.execute_script(CLIPPED, "result-wrap") == 0
        _phone_holds(driver)
        driver.save_screenshot(str(tmp_path / "game-end-390.png"))
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
        assert [li.get_attribute("textContent").split(": ", 1)[1] for li in log] == list(
            record.moves
        )
        for width in WIDE:
            _layout_holds(driver, width, tmp_path, "end")
            assert driver.execute_script(CLIPPED, "result-wrap") == 0
        assert _errors(driver) == []
    finally:
        served.close()
    # Seat 0's page, and every body the server sent, hold no card seat 0 cannot know.
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


NOTICE_IN_VIEW = """
const r = document.getElementById('notice').getBoundingClientRect();
return r.height > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight
  && r.right <= innerWidth;
"""
WIDER = "const b = document.getElementById('board'); return b.scrollWidth - b.clientWidth"
BEFORE = "return getComputedStyle(document.getElementById('message'), '::before').content"


@pytest.mark.parametrize("width", [PHONE[0], 1400])
def test_a_refused_tap_is_shown_in_view_and_the_step_button_shows_one_move(
    paused: Served, browser: Any, width: int, tmp_path: Path
) -> None:
    game = paused.game
    driver = browser
    set_width(driver, width)
    driver.get(paused.url)
    _wait_for(driver, game)
    assert game.state.phase.value == "take piles"
    # A village in the take-piles phase, tapped low on the page: the rules
    # refuse it, and the page says why where the person is looking.
    village = driver.find_element(By.CSS_SELECTOR, '#board .village[data-village="Ballindalloch"]')
    village.click()
    message = driver.find_element(By.ID, "message")
    WebDriverWait(driver, WAIT).until(lambda d: message.text)
    assert message.get_attribute("data-rule") == "T1"
    assert "T1" in message.text and "take piles" in message.text
    assert driver.execute_script(NOTICE_IN_VIEW)
    assert "Refused" in driver.execute_script(BEFORE)
    driver.save_screenshot(str(tmp_path / f"refused-{width}.png"))
    assert game.sequence == 0 and _seq(driver) == 0
    driver.find_element(By.ID, "dismiss").click()
    if width < 800:
        # "whole board" shows all of it at once, and a second tap makes it readable again.
        zoom, board = driver.find_element(By.ID, "zoom"), driver.find_element(By.ID, "board")
        wide = driver.execute_script(WIDER)
        assert wide > 0
        zoom.click()
        assert driver.execute_script(WIDER) <= 0 and zoom.text == "readable board"
        zoom.click()
        assert driver.execute_script(WIDER) == wide and board.is_displayed()
    assert not driver.find_element(By.ID, "notice").is_displayed()
    # A dealer pile tapped in the panel is the move of that pile.
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
    assert [li.get_attribute("textContent") for li in log] == [
        f"{game.names[s]}: {m}" for _, s, m in game.log
    ]
    assert log[-1].get_attribute("textContent").startswith("random 1: ")
    # The refusal is the one error the browser logs (a 422 answer), and nothing else.
    assert [e for e in _errors(driver) if "status of 422" not in e] == []
    keep_screenshots(tmp_path, "refused-*.png")


class _Raising:
    """A bot with a bug: it raises at its first move."""

    name = "buggy"

    def choose(self, observation: Any, legal_moves: Any, rng: random.Random) -> Any:
        raise KeyError("no such pile")


@pytest.fixture
def failing(tmp_path: Path) -> Iterator[Served]:
    path = tmp_path / "game.json"
    game = BrowserGame(
        new_game(2, seed=SEED),
        seat=0,
        bots=[None, _Raising()],
        names=["you", "buggy 1"],
        save=path,
        texts=[None, "buggy:Bot"],
    )
    game.save()
    served = Served(game, 0)
    try:
        yield served
    finally:
        served.close()


def test_a_failing_bot_is_shown_as_its_failure_with_the_way_on(
    failing: Served, browser: Any, tmp_path: Path
) -> None:
    game = failing.game
    driver = browser
    set_width(driver, *PHONE)
    driver.get(failing.url)
    _wait_for(driver, game)
    driver.find_element(By.CSS_SELECTOR, "#moves button.move").click()
    message = driver.find_element(By.ID, "message")
    WebDriverWait(driver, WAIT).until(lambda d: message.text)
    assert message.text.startswith(
        "The bot of seat 1, buggy, raised an error at move 2 (round 1): KeyError: 'no such pile'"
    )
    assert "Bot failure" in driver.execute_script(BEFORE)
    assert "Refused" not in driver.execute_script(BEFORE)
    assert driver.execute_script(NOTICE_IN_VIEW)
    resume = driver.find_element(By.ID, "resume")
    assert resume.text == "troedler play --browser --resume game.json --seat 0 --bots greedy"
    # docs/play.md shows the same notice.
    page = (Path(__file__).parent.parent / "docs" / "play.md").read_text(encoding="utf-8")
    example = re.findall(r"```text\n(.*?)```", page, re.S)[0].splitlines()
    cut = message.text.rsplit(" (", 1)[0]  # the example's bot is in another file
    assert example[0].startswith("Bot failure: " + cut) and example[2] == resume.text
    assert "with the 1 move made before" in driver.find_element(By.ID, "saved").text
    assert driver.find_element(By.ID, "status").text == "The game stopped: a bot failed."
    assert not driver.find_element(By.ID, "step").is_enabled()
    driver.save_screenshot(str(tmp_path / "failure-390.png"))
    # A reload shows the failure again, and still nothing more is tried.
    driver.refresh()
    WebDriverWait(driver, WAIT).until(lambda d: d.find_element(By.ID, "message").text)
    assert driver.find_element(By.ID, "message").text.startswith("The bot of seat 1, buggy,")
    assert game.sequence == 1
    keep_screenshots(tmp_path, "failure-*.png")
