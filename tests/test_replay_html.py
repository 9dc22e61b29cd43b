"""The HTML replay, loaded and driven in a real headless Chromium."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from troedler import GameRecord, GameState, replay
from troedler.bots import GreedyBot, RandomBot, play_game
from troedler.svg.html import replay_html, write_replay_html

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
if not (CHROMIUM and CHROMEDRIVER):
    if os.environ.get("CI"):
        raise RuntimeError("CI must have chromium and chromedriver (see .ci/run)")
    pytest.skip("needs chromium and chromedriver", allow_module_level=True)

FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1600,1000",
)
PRESSES = 9


@functools.cache
def _game() -> tuple[GameRecord, tuple[GameState, ...]]:
    played = play_game([GreedyBot(), RandomBot(), GreedyBot()], seed=7, max_rounds=2)
    named = GameRecord(
        rules=played.record.rules,
        fingerprint=played.record.fingerprint,
        seed=played.record.seed,
        starting_dealer=played.record.starting_dealer,
        seats=("Ada", "<b>Bob</b>", "Cy"),
        moves=played.record.moves,
        result=played.record.result,
    )
    return named, replay(named)


def _browser(tmp_path: Path, *extra: str) -> Iterator[object]:
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (*FLAGS, *extra, f"--user-data-dir={tmp_path / 'profile'}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = webdriver.ChromeService(executable_path=CHROMEDRIVER)
    driver = webdriver.Chrome(options=options, service=service)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[object]:
    yield from _browser(tmp_path)


@pytest.fixture
def offline_browser(tmp_path: Path) -> Iterator[object]:
    # Every request that is not the file itself would go to a closed port.
    yield from _browser(
        tmp_path, "--proxy-server=http://127.0.0.1:9", "--proxy-bypass-list=<-loopback>"
    )


def _page(tmp_path: Path) -> Path:
    record, _ = _game()
    path = tmp_path / "replay.html"
    write_replay_html(record, path)
    return path


def _shown(driver: object) -> tuple[int, str, dict[int, str]]:
    """The step shown, the highlighted move's text and the carts drawn."""
    step = int(driver.find_element(By.ID, "step").get_attribute("data-step"))  # type: ignore[attr-defined]
    current = driver.find_element(By.CSS_SELECTOR, "#moves li.current")  # type: ignore[attr-defined]
    assert int(current.get_attribute("data-step")) == step
    carts = {
        int(cart.get_attribute("data-seat")): cart.get_attribute("data-village")
        for cart in driver.find_elements(By.CSS_SELECTOR, "#board svg .cart")  # type: ignore[attr-defined]
    }
    return step, current.text, carts


def _errors(driver: object) -> list[str]:
    logs = driver.get_log("browser")  # type: ignore[attr-defined]
    return [entry["message"] for entry in logs if entry["level"] in ("SEVERE", "ERROR")]


def test_the_replay_steps_through_the_record_in_a_browser(browser: object, tmp_path: Path) -> None:
    record, states = _game()
    driver = browser
    driver.get(_page(tmp_path).as_uri())  # type: ignore[attr-defined]
    assert _shown(driver) == (
        0,
        "start of the game",
        {s: p.cart for s, p in enumerate(states[0].players)},
    )
    body = driver.find_element(By.TAG_NAME, "body")  # type: ignore[attr-defined]
    for _ in range(PRESSES):
        body.send_keys(Keys.ARROW_RIGHT)
    step, move, carts = _shown(driver)
    assert step == PRESSES
    assert move.endswith(record.moves[PRESSES - 1])
    mover = states[PRESSES - 1].current_player
    assert move.startswith(record.seats[mover or 0])
    assert carts == {s: p.cart for s, p in enumerate(states[PRESSES].players)}
    caption = driver.find_element(By.CSS_SELECTOR, "#board .last-move-caption").text  # type: ignore[attr-defined]
    assert record.moves[PRESSES - 1] in caption
    driver.save_screenshot(str(tmp_path / "replay-step.png"))  # type: ignore[attr-defined]
    # Back one step, then jump by clicking a move further on, then to the end.
    body.send_keys(Keys.ARROW_LEFT)
    assert _shown(driver)[0] == PRESSES - 1
    target = len(record.moves) - 3
    driver.find_element(By.CSS_SELECTOR, f'#moves li[data-step="{target}"]').click()  # type: ignore[attr-defined]
    step, _, carts = _shown(driver)
    assert step == target and carts == {s: p.cart for s, p in enumerate(states[target].players)}
    driver.find_element(By.ID, "last").click()  # type: ignore[attr-defined]
    assert _shown(driver)[0] == len(record.moves)
    assert "<b>Bob</b>" in driver.find_element(By.ID, "moves").text  # type: ignore[attr-defined]
    driver.save_screenshot(str(tmp_path / "replay-last.png"))  # type: ignore[attr-defined]
    assert _errors(driver) == []
    assert (tmp_path / "replay-step.png").stat().st_size > 10_000


def test_the_replay_is_self_contained(offline_browser: object, tmp_path: Path) -> None:
    record, states = _game()
    driver = offline_browser
    driver.execute_cdp_cmd("Network.enable", {})  # type: ignore[attr-defined]
    driver.execute_cdp_cmd(  # type: ignore[attr-defined]
        "Network.emulateNetworkConditions",
        {"offline": True, "latency": 0, "downloadThroughput": 0, "uploadThroughput": 0},
    )
    driver.get(_page(tmp_path).as_uri())  # type: ignore[attr-defined]
    driver.find_element(By.TAG_NAME, "body").send_keys(Keys.END)  # type: ignore[attr-defined]
    step, _, carts = _shown(driver)
    assert step == len(record.moves)
    assert carts == {s: p.cart for s, p in enumerate(states[-1].players)}
    loaded = driver.execute_script(  # type: ignore[attr-defined]
        "return performance.getEntriesByType('resource').map((e) => e.name)"
    )
    assert loaded == []
    assert _errors(driver) == []
    driver.save_screenshot(str(tmp_path / "replay-offline.png"))  # type: ignore[attr-defined]


def test_the_page_names_nothing_outside_itself() -> None:
    record, _ = _game()
    text = replay_html(record)
    # The SVG namespace is a name, never fetched.
    assert "http://" not in text.replace("http://www.w3.org/2000/svg", "")
    assert "https://" not in text and "@import" not in text and "url(" not in text
    assert "</script>" not in text.split('id="replay-data">')[1].split("</script>")[0]


def test_replay_html_on_the_command_line(tmp_path: Path) -> None:
    record, _ = _game()
    source = tmp_path / "game.json"
    source.write_text(record.to_json())
    out = tmp_path / "game.html"
    done = subprocess.run(
        [sys.executable, "-m", "troedler", "replay", str(source), "--html", str(out)],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert str(out) in done.stdout
    assert out.read_text(encoding="utf-8") == replay_html(record)
