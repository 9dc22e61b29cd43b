"""Driving the page (troedler.client) in real headless Chromium windows, as a
person would: tapping moves, villages and cards, and measuring, at every
decision, whether it is in view as the page stands when the turn starts."""

from __future__ import annotations

import contextlib
import random
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("selenium")

from selenium.common.exceptions import (
    ElementClickInterceptedException,
    ElementNotInteractableException,
    StaleElementReferenceException,
)
from selenium.webdriver.common.by import By
from selenium.webdriver.support.wait import WebDriverWait

from tests.test_replay_html import (  # skips without Chromium
    BOARD_NAMES,
    _browser,
    _errors,
    set_width,
)

WAIT = 60  # seconds: a loaded 2-core machine is slow, never this slow
PHONE = (390, 844)
DESKTOP = (1400, 900)
WIDE = 900
"""From this width on, the side column stands beside the board."""

# Whether an element is seen whole as the page stands: inside the window and
# inside every ancestor that clips it (scrolls, or hides what overflows).
# A browser driver counts a clipped element as displayed: this does not.
SEEN = """
const inView = (e) => {
  const r = e.getBoundingClientRect();
  if (!(r.width > 0 && r.height > 0)) return false;
  // A pixel's slack: a box's client size is a whole number of pixels.
  const within = (b) => r.top >= b.top - 1 && r.left >= b.left - 1
    && r.bottom <= b.bottom + 1 && r.right <= b.right + 1;
  if (!within({top: 0, left: 0, bottom: innerHeight, right: innerWidth})) return false;
  for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) {
    const style = getComputedStyle(a);
    if (style.display === 'contents') continue;  // no box of its own: clips nothing
    if (style.overflowX === 'visible' && style.overflowY === 'visible') continue;
    const box = a.getBoundingClientRect();
    const inner = {top: box.top + a.clientTop, left: box.left + a.clientLeft,
      bottom: box.top + a.clientTop + a.clientHeight,
      right: box.left + a.clientLeft + a.clientWidth};
    if (!within(inner)) return false;
  }
  return true;
};
"""
# Whether the decision is in view, as the page stands: every card of the
# hand, every move (or choice) button, and the line with the clock; and
# whether the newest move of the log is.
DECISION = (
    SEEN
    + """
const shown = (e) => e.getClientRects().length > 0;
const hand = [...document.querySelectorAll('#hand > *')].filter(shown);
const moves = [...document.querySelectorAll('#moves button, #choices button')].filter(shown);
const line = document.getElementById('turn-line');
const rows = new Set(hand.map((e) => Math.round(e.getBoundingClientRect().top)));
return {
  discarding: shown(document.getElementById('discard-note')),
  handRows: rows.size,
  between: [...document.getElementById('hand').children].some((e) => e.tagName !== 'BUTTON'),
  kept: hand.filter((e) => e.classList.contains('kept')).length,
  reasons: document.querySelectorAll('#refusals li').length,
  reasonTexts: [...document.querySelectorAll('#refusals li')].map((e) => e.textContent),
  hand: hand.length > 0 && hand.every(inView),
  moves: moves.length > 0 && moves.every(inView),
  clock: inView(line),
  clockText: document.getElementById('my-clock').textContent,
  status: document.getElementById('status').textContent,
  kinds: [...document.querySelectorAll('#moves h3')].map((e) => e.textContent),
  newest: (() => {
    const last = document.querySelector('#log li:last-child');
    return !last || inView(last);
  })(),
  scrolled: scrollY,
};
"""
)


def after_paint(script: str) -> str:
    """`script`, run once the page's next two frames are drawn: what a person
    sees. A change's layout observers (the log kept at its newest move when
    its box resizes) run in the frame after it, so a script run between the
    two reads a state no one ever sees on the screen."""
    return (
        "const done = arguments[arguments.length - 1];\n"
        "requestAnimationFrame(() => requestAnimationFrame(() => done((() => {\n"
        + script
        + "\n})())));"
    )


# Whether the end is in view as the page stands: the scoring table, each of
# its cells, and each button after it; what is not, by its text.
END = (
    SEEN
    + """
const parts = [...document.querySelectorAll(
  '#result h2, #scores table, #scores th, #scores td, #after .button, #after button')];
return {
  parts: parts.length,
  rows: document.querySelectorAll('#scores tbody tr').length,
  buttons: document.querySelectorAll('#after .button, #after button').length,
  out: parts.filter((e) => !inView(e)).map((e) => (e.id || e.tagName) + ': ' +
    e.textContent.slice(0, 30)),
};
"""
)
# The smallest side of every tap target shown: buttons, links, inputs, piles,
# and (arguments[0]) the map's villages.
TAP_TARGETS = """
const out = [];
for (const e of document.querySelectorAll(
    'button, a.button, select, input:not([type=checkbox]), label.check, .dealer-pile.can-take'
    + (arguments[0] ? ', #board .village' : ''))) {
  if (!e.getClientRects().length) continue;
  const r = e.getBoundingClientRect();
  out.push([e.id || e.dataset.village || e.textContent.slice(0, 20), Math.min(r.width, r.height)]);
}
return out;
"""


# The smallest village name and goods letter of the map as drawn, in CSS pixels.
BOARD_TEXT = BOARD_NAMES


@contextlib.contextmanager
def window(folder: Path, size: tuple[int, int]) -> Iterator[Any]:
    """A Chromium window of ``size`` CSS pixels (a phone below 600 wide)."""
    opened = _browser(folder)
    driver = next(opened)
    try:
        set_width(driver, *size)
        driver.execute_cdp_cmd(
            "Browser.setDownloadBehavior", {"behavior": "allow", "downloadPath": str(folder)}
        )
        yield driver
    finally:
        with contextlib.suppress(StopIteration):
            next(opened)


def wait(driver: Any, condition: Callable[[Any], object], timeout: float = WAIT) -> Any:
    return WebDriverWait(
        driver, timeout, ignored_exceptions=(StaleElementReferenceException,)
    ).until(condition)


def shown_version(driver: Any) -> int:
    return int(driver.execute_script("return document.body.dataset.version || '-1'"))


def my_turn(driver: Any) -> bool:
    return bool(
        driver.execute_script(
            "const y = document.getElementById('you');"
            "return !y.hidden && y.classList.contains('yours') && !y.classList.contains('busy')"
            " && document.querySelectorAll('#moves button').length > 0"
        )
    )


def errors(driver: Any) -> list[str]:
    return _errors(driver)


def end_in_view(driver: Any) -> dict[str, Any]:
    """The end as the page stands: how many parts of the scoring and the
    buttons after it there are, and those not in view (``out``)."""
    return dict(driver.execute_script(END))


class Decisions:
    """A count of decisions, and of those whose hand, moves and clock were in view."""

    def __init__(self) -> None:
        self.seen = 0
        self.in_view = 0
        self.out: list[dict[str, Any]] = []
        self.discards = 0
        """Decisions over the hand limit: the engine's reasons under the hand,
        never between its cards; every card that may not go greyed."""

    def measure(self, driver: Any, timed: bool) -> None:
        found = driver.execute_async_script(after_paint(DECISION))
        self.seen += 1
        if found["discarding"]:
            self.discards += 1
            # The reasons never sit between the cards; a hand over the limit
            # (up to nine cards) takes at most three rows of a side column.
            assert found["handRows"] <= 3 and not found["between"], found
            assert (found["kept"] > 0) == (found["reasons"] > 0), found
            # Each reason reads as words, its rule's id last: "... (rule T7)".
            for reason in found["reasonTexts"]:
                assert not re.match(r"[A-Z][0-9]+[a-z]?: ", reason), reason
                assert re.search(r"\S \(rule [A-Z][0-9]+[a-z]?\)$", reason), reason
        # The status line says what the moves are, never another kind.
        said = found["status"].split(" · ")[-1]
        if found["discarding"]:
            assert said.startswith("your move: discard "), found
        elif len(found["kinds"]) == 1:
            assert said == "your move: " + found["kinds"][0], found
        else:
            assert said == "your move", found
        clock = found["clock"] and (not timed or ":" in found["clockText"])
        # On a desktop the newest move is in view too (a phone has it under
        # the board, scrolled to when wanted; the bar says the last move).
        wide = driver.execute_script("return innerWidth") >= DESKTOP[0]
        if wide and found["hand"] and found["moves"] and clock and not found["newest"]:
            # The log follows its newest move within a moment: at about one
            # decision in a hundred it was still scrolling two frames in.
            time.sleep(0.5)
            found["newest"] = driver.execute_async_script(after_paint(DECISION))["newest"]
        if found["hand"] and found["moves"] and clock and (found["newest"] or not wide):
            self.in_view += 1
        else:
            found["width"] = driver.execute_script("return innerWidth")
            # What was out of view first, where an assertion's message shows it.
            missed = [key for key in ("hand", "moves", "clock", "newest") if not found[key]]
            self.out.append({"missed": missed, **found})


def _click(driver: Any, element: Any) -> bool:
    try:
        element.click()
        return True
    except (
        StaleElementReferenceException,
        ElementClickInterceptedException,
        ElementNotInteractableException,
    ):
        return False


def _visible(driver: Any, selector: str) -> list[Any]:
    found = []
    for element in driver.find_elements(By.CSS_SELECTOR, selector):
        with contextlib.suppress(StaleElementReferenceException):
            if element.is_displayed():
                found.append(element)
    return found


def _named(button: Any) -> str:
    """The move (or folded move) a button makes."""
    return str(button.get_attribute("data-move") or button.get_attribute("data-option") or "")


def tap_a_move(driver: Any, rng: random.Random) -> None:
    """One decision, by tapping as a person would: a delivery where there is
    one, else now and then a village of the map or a card of the hand, else
    a move button; a folded move's choices, or a tap's, by one of them."""
    for _ in range(3):
        choices = _visible(driver, "#choices button.move")
        if choices:
            taking = [c for c in choices if "take no" not in c.text]
            _click(driver, rng.choice(taking or choices))
            return
        buttons = _visible(driver, "#moves button")
        if not buttons:
            return
        deliveries = [
            b for b in buttons if (b.get_attribute("data-move") or "").startswith("deliver")
        ]
        deliveries += [
            b for b in buttons if (b.get_attribute("data-option") or "").startswith("deliver")
        ]
        if deliveries:
            target = rng.choice(deliveries)
        elif rng.random() < 0.3 and _visible(driver, "#board .village.can-go"):
            target = rng.choice(_visible(driver, "#board .village.can-go"))
            driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", target)
        elif rng.random() < 0.3 and _visible(driver, "#hand button.usable"):
            target = rng.choice(_visible(driver, "#hand button.usable"))
        else:
            target = rng.choice(buttons)
        if _click(driver, target):
            time.sleep(0.05)
            if not _visible(driver, "#choices button.move"):
                return


def play_until_over(
    drivers: list[Any],
    over: Callable[[], bool],
    version: Callable[[], int],
    decisions: list[Decisions],
    *,
    timed: bool,
    rng: random.Random,
    watch: Callable[[], None] = lambda: None,
    timeout: float = 1500,
) -> None:
    """Each window taps its moves when its turn comes, until the match is
    over; each decision is measured as the page stands when the turn starts."""
    end = time.monotonic() + timeout
    measured: set[tuple[int, int]] = set()
    while not over():
        assert time.monotonic() < end, "the match did not finish"
        moved = False
        now = version()
        for number, driver in enumerate(drivers):
            if shown_version(driver) != now or not my_turn(driver):
                continue
            if (number, now) not in measured:
                measured.add((number, now))
                decisions[number].measure(driver, timed)
            tap_a_move(driver, rng)
            moved = True
        watch()
        if not moved:
            time.sleep(0.1)
