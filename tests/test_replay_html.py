"""The HTML replay and the documentation site, loaded and driven in a real headless Chromium.

The site is served from 127.0.0.1 (its search runs in a web worker, which
browsers refuse to start from file:// pages); every other address goes to
a closed proxy port, so a page that needed the network would show it.
"""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.site_build import built_site, require_docs_extra
from troedler import GameRecord, GameState, replay
from troedler.bots import GreedyBot, RandomBot, play_game
from troedler.server.replay import replay_html, write_replay_html

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support import expected_conditions  # noqa: E402
from selenium.webdriver.support.wait import WebDriverWait  # noqa: E402

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
WAIT = 30  # seconds for the site's search: a loaded 2-core machine is slow, never this slow


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


@pytest.fixture
def site_browser(tmp_path: Path) -> Iterator[object]:
    # Loopback (the site's server) is reached; every other address is a closed port.
    yield from _browser(tmp_path, "--proxy-server=http://127.0.0.1:9")


@pytest.fixture(scope="module")
def site_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    require_docs_extra(module_level=False)
    handler = functools.partial(_QuietHandler, directory=str(built_site(tmp_path_factory)))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


def _page(tmp_path: Path) -> Path:
    record, _ = _game()
    path = tmp_path / "replay.html"
    write_replay_html(record, path)
    return path


def _shown(driver: object) -> tuple[int, str, dict[int, str]]:
    """The step shown, the highlighted move's text and the carts drawn."""
    step = int(driver.find_element(By.ID, "step").get_attribute("data-step"))  # type: ignore[attr-defined]
    current = driver.find_element(By.CSS_SELECTOR, "#log li.current")  # type: ignore[attr-defined]
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
    caption = driver.find_element(By.ID, "last-move").text  # type: ignore[attr-defined]
    assert record.moves[PRESSES - 1] in caption
    driver.save_screenshot(str(tmp_path / "replay-step.png"))  # type: ignore[attr-defined]
    # Back one step, then jump by clicking a move further on, then to the end.
    body.send_keys(Keys.ARROW_LEFT)
    assert _shown(driver)[0] == PRESSES - 1
    target = len(record.moves) - 3
    driver.find_element(By.CSS_SELECTOR, f'#log li[data-step="{target}"]').click()  # type: ignore[attr-defined]
    step, _, carts = _shown(driver)
    assert step == target and carts == {s: p.cart for s, p in enumerate(states[target].players)}
    driver.find_element(By.ID, "last").click()  # type: ignore[attr-defined]
    assert _shown(driver)[0] == len(record.moves)
    # A name is shown as text, never as markup.
    assert "<b>Bob</b>" in driver.find_element(By.ID, "log").text  # type: ignore[attr-defined]
    assert not driver.find_elements(By.CSS_SELECTOR, "#log b, #panel b.name")  # type: ignore[attr-defined]
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


def test_a_four_player_page_stays_under_a_megabyte() -> None:
    # The size docs/pictures.md gives; a whole game of four, as in the docs.
    played = play_game([GreedyBot(), RandomBot(), GreedyBot(), RandomBot()], seed=3)
    assert played.final.is_over
    assert len(replay_html(played.record).encode("utf-8")) < 1_000_000


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


def test_the_start_page_renders(site_browser: object, site_url: str) -> None:
    driver = site_browser
    driver.get(site_url + "index.html")  # type: ignore[attr-defined]
    assert driver.title.startswith("troedler")  # type: ignore[attr-defined]
    heading = driver.find_element(By.CSS_SELECTOR, "article h1")  # type: ignore[attr-defined]
    assert heading.text == "troedler"
    blocks = driver.find_elements(By.CSS_SELECTOR, "article .highlight code")  # type: ignore[attr-defined]
    assert any("troedler.new_game(3, seed=2024)" in block.text for block in blocks)
    nav = driver.find_elements(By.CSS_SELECTOR, "nav.md-nav--primary a")  # type: ignore[attr-defined]
    assert {"The rules", "API reference", "Changelog"} <= {
        a.get_attribute("textContent").strip() for a in nav
    }
    board = driver.find_element(By.CSS_SELECTOR, "article img[src$='board.svg']")  # type: ignore[attr-defined]
    assert board.get_attribute("naturalWidth") not in (None, "0")
    # The stylesheet applied: the header bar is laid out as a fixed bar.
    header = driver.find_element(By.CSS_SELECTOR, "header.md-header")  # type: ignore[attr-defined]
    assert header.value_of_css_property("position") in ("sticky", "fixed")
    assert _errors(driver) == []


def test_an_api_page_renders_signatures_and_docstrings(site_browser: object, site_url: str) -> None:
    driver = site_browser
    driver.get(site_url + "api/game.html")  # type: ignore[attr-defined]
    entry = driver.find_element(By.ID, "troedler.new_game")  # type: ignore[attr-defined]
    assert "new_game" in entry.text
    signature = driver.find_element(  # type: ignore[attr-defined]
        By.XPATH,
        "//*[@id='troedler.new_game']/following-sibling::div[contains(@class,'doc-signature')]",
    )
    assert "num_players: int" in signature.text and "GameState" in signature.text
    link = signature.find_element(By.LINK_TEXT, "GameState")
    assert link.get_attribute("href").endswith("state.html#troedler.GameState")
    assert _errors(driver) == []


def test_the_search_finds_a_function(site_browser: object, site_url: str) -> None:
    driver = site_browser
    driver.get(site_url + "index.html")  # type: ignore[attr-defined]
    box = driver.find_element(By.CSS_SELECTOR, "input.md-search__input")  # type: ignore[attr-defined]
    box.click()
    box.send_keys("determinize")
    first = WebDriverWait(driver, WAIT).until(
        expected_conditions.visibility_of_element_located(
            (By.CSS_SELECTOR, ".md-search-result__list .md-search-result__item a")
        )
    )
    assert "determinize" in first.text.lower()
    hrefs = [
        a.get_attribute("href")
        for a in driver.find_elements(By.CSS_SELECTOR, ".md-search-result__list a")  # type: ignore[attr-defined]
    ]
    assert any("api/views.html" in href for href in hrefs), hrefs
    assert _errors(driver) == []


def test_the_replay_embedded_in_the_site_steps(site_browser: object, site_url: str) -> None:
    driver = site_browser
    driver.get(site_url + "tutorials/records.html")  # type: ignore[attr-defined]
    frame = driver.find_element(By.CSS_SELECTOR, "iframe.replay")  # type: ignore[attr-defined]
    driver.execute_script("arguments[0].scrollIntoView()", frame)  # type: ignore[attr-defined]
    driver.switch_to.frame(frame)  # type: ignore[attr-defined]
    WebDriverWait(driver, WAIT).until(
        expected_conditions.presence_of_element_located((By.CSS_SELECTOR, "#board svg .cart"))
    )
    assert _shown(driver)[0] == 0
    driver.find_element(By.ID, "next").click()  # type: ignore[attr-defined]
    assert _shown(driver)[0] == 1
    # Once the reader clicks into the replay, the arrow keys step it.
    driver.find_element(By.ID, "board").click()  # type: ignore[attr-defined]
    ActionChains(driver).send_keys(Keys.ARROW_RIGHT).perform()
    assert _shown(driver)[0] == 2
    driver.switch_to.default_content()  # type: ignore[attr-defined]
    assert _errors(driver) == []


WIDTHS = (1400, 1024, 800, 390)
WIDE = 900
"""From this width on, the side column stands beside the board (the page's style)."""

# The smallest font size, in CSS pixels, of any visible text under a selector.
SMALLEST_FONT = """
let least = Infinity;
for (const e of document.querySelectorAll(arguments[0] + ' *')) {
  if (!e.getClientRects().length || !e.textContent.trim()) continue;
  least = Math.min(least, parseFloat(getComputedStyle(e).fontSize));
}
return least;
"""
# The smallest text of the board as drawn, in CSS pixels: its font size in the
# picture's units times the picture's scale (the replay's and the game's pages).
BOARD_FONT = """
const svg = document.querySelector('#board svg');
const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
let least = Infinity;
for (const t of svg.querySelectorAll('text')) {
  if (!t.getClientRects().length || !t.textContent.trim()) continue;
  least = Math.min(least, parseFloat(getComputedStyle(t).fontSize) * scale);
}
return least;
"""
CLIPPED = """
const e = document.getElementById(arguments[0]);
return e.scrollWidth - e.clientWidth;
"""
# The smallest village name and goods letter as drawn, in CSS pixels.
BOARD_NAMES = """
const svg = document.querySelector('#board svg');
const r = svg.getBoundingClientRect();
const box = svg.viewBox.baseVal;
const scale = Math.min(r.width / box.width, r.height / box.height);
const least = (css) => Math.min(...[...svg.querySelectorAll(css)].map(
  (t) => parseFloat(t.getAttribute('font-size')) * scale));
return [least('.village-name'), least('.good-letter')];
"""
PANS = """
const e = document.getElementById('board');
return e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1;
"""
BOXES = """
return arguments[0].map((id) => {
  const r = document.getElementById(id).getBoundingClientRect();
  return [id, r.left, r.top, r.right, r.bottom];
});
"""


def set_width(driver: object, width: int, height: int = 900) -> None:
    """Lay the page out ``width`` CSS pixels wide, as a phone below 600."""
    driver.execute_cdp_cmd(  # type: ignore[attr-defined]
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600},
    )


def overlaps(boxes: list[list[object]]) -> list[tuple[object, object]]:
    """The pairs of boxes ``[id, left, top, right, bottom]`` that overlap."""
    found = []
    for i, (a, *ra) in enumerate(boxes):
        for b, *rb in boxes[i + 1 :]:
            ax0, ay0, ax1, ay1 = (float(v) for v in ra)  # type: ignore[arg-type]
            bx0, by0, bx1, by1 = (float(v) for v in rb)  # type: ignore[arg-type]
            if min(ax1, bx1) - max(ax0, bx0) > 0.5 and min(ay1, by1) - max(ay0, by0) > 0.5:
                found.append((a, b))
    return found


def keep_screenshots(tmp_path: Path, pattern: str) -> None:
    """Copy the screenshots to $TROEDLER_SCREENSHOTS, where a person wants to look at them."""
    keep = os.environ.get("TROEDLER_SCREENSHOTS")
    if keep:
        for png in tmp_path.glob(pattern):
            shutil.copy(png, keep)


def test_the_replay_reads_at_every_width(browser: object, tmp_path: Path) -> None:
    record, _ = _game()
    driver = browser
    driver.get(_page(tmp_path).as_uri())  # type: ignore[attr-defined]
    body = driver.find_element(By.TAG_NAME, "body")  # type: ignore[attr-defined]
    result = driver.find_element(By.ID, "result")  # type: ignore[attr-defined]
    for width in WIDTHS:
        set_width(driver, width)
        body.send_keys(Keys.HOME)
        # The final scoring waits for the end of the replay.
        assert not result.is_displayed()
        for _ in range(PRESSES):
            body.send_keys(Keys.ARROW_RIGHT)
        assert driver.execute_script("return innerWidth") == width  # type: ignore[attr-defined]
        assert driver.execute_script(SMALLEST_FONT, "#panel") >= 11  # type: ignore[attr-defined]
        assert driver.execute_script(SMALLEST_FONT, "#log") >= 11  # type: ignore[attr-defined]
        # Nothing in the panel is cut off at its edge.
        assert driver.execute_script(CLIPPED, "panel") == 0, width  # type: ignore[attr-defined]
        boxes = driver.execute_script(  # type: ignore[attr-defined]
            BOXES, ["board", "replay-controls", "panel", "log-box", "result"]
        )
        assert overlaps(boxes) == [], (width, boxes)
        # Nothing wider than the window: no sideways scrolling.
        wide = driver.execute_script("return document.documentElement.scrollWidth")  # type: ignore[attr-defined]
        assert wide <= width
        driver.save_screenshot(str(tmp_path / f"replay-{width}.png"))  # type: ignore[attr-defined]
        if width < WIDE:
            # A phone: the village names read, the board pans, and a tap
            # shows the whole of it at once.
            assert driver.execute_script(BOARD_FONT) >= 9  # type: ignore[attr-defined]
            assert driver.execute_script(CLIPPED, "board") > 0  # type: ignore[attr-defined]
            zoom = driver.find_element(By.ID, "zoom")  # type: ignore[attr-defined]
            zoom.click()
            assert driver.execute_script(CLIPPED, "board") <= 0  # type: ignore[attr-defined]
            assert driver.execute_script(BOARD_FONT) < 9  # type: ignore[attr-defined]
            zoom.click()
        else:
            # Beside the side column, the board reads too; it is offered
            # whole only where it pans.
            assert min(driver.execute_script(BOARD_NAMES)) >= 11  # type: ignore[attr-defined]
            pans = driver.execute_script(PANS)  # type: ignore[attr-defined]
            assert driver.find_element(By.ID, "zoom").is_displayed() == pans  # type: ignore[attr-defined]
        # End steps to the end without scrolling the page, and shows the
        # scoring beside or below the move list, never under it.
        driver.execute_script("window.scrollTo(0, 40)")  # type: ignore[attr-defined]
        before = driver.execute_script("return scrollY")  # type: ignore[attr-defined]
        body.send_keys(Keys.END)
        assert driver.execute_script("return scrollY") == before  # type: ignore[attr-defined]
        assert _shown(driver)[0] == len(record.moves)
        assert result.is_displayed()
        boxes = driver.execute_script(BOXES, ["log-box", "result", "panel", "board"])  # type: ignore[attr-defined]
        assert overlaps(boxes) == [], (width, boxes)
        driver.save_screenshot(str(tmp_path / f"replay-end-{width}.png"))  # type: ignore[attr-defined]
    assert _errors(driver) == []
    keep_screenshots(tmp_path, "replay-*.png")


def test_the_scoring_of_a_finished_game_shows_at_its_end(browser: object, tmp_path: Path) -> None:
    played = play_game([GreedyBot(), RandomBot()], seed=5)
    assert played.final.is_over and played.record.result is not None
    path = tmp_path / "whole.html"
    write_replay_html(played.record, path)
    driver = browser
    driver.get(path.as_uri())  # type: ignore[attr-defined]
    result = driver.find_element(By.ID, "result")  # type: ignore[attr-defined]
    assert not result.is_displayed()
    driver.find_element(By.ID, "last").click()  # type: ignore[attr-defined]
    assert result.is_displayed() and "winner" in result.text
    # The engine's scoring, as the record holds it: each seat's points.
    cells = driver.find_elements(By.CSS_SELECTOR, "#scores tbody tr")  # type: ignore[attr-defined]
    points = [int(row.find_element(By.CSS_SELECTOR, "td.points").text) for row in cells]
    assert points == list(played.record.result.points)
    assert _errors(driver) == []
