"""The built documentation site, read in a real headless Chromium with no network.

The site is served from 127.0.0.1 (the search runs in a web worker, which
browsers refuse to start from file:// pages); every other address goes to
a closed proxy port, so a page that needed the network would show it.
"""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import threading
from collections.abc import Iterator

import pytest

from tests.site_build import built_site, require_docs_extra

require_docs_extra()
webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.by import By  # noqa: E402
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
    # Everything but loopback goes to a closed port: the site must need no network.
    "--proxy-server=http://127.0.0.1:9",
)
WAIT = 30  # seconds: a loaded 2-core machine may be slow, never this slow


@pytest.fixture(scope="module")
def site_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
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


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    profile = tmp_path_factory.mktemp("profile")
    for flag in (*FLAGS, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = webdriver.ChromeService(executable_path=CHROMEDRIVER)
    driver = webdriver.Chrome(options=options, service=service)
    try:
        yield driver
    finally:
        driver.quit()


def _errors(driver: object) -> list[str]:
    logs = driver.get_log("browser")  # type: ignore[attr-defined]
    return [entry["message"] for entry in logs if entry["level"] in ("SEVERE", "ERROR")]


def test_the_start_page_renders(browser: object, site_url: str) -> None:
    driver = browser
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
    # The stylesheet applied: the header bar is laid out as a fixed bar.
    header = driver.find_element(By.CSS_SELECTOR, "header.md-header")  # type: ignore[attr-defined]
    assert header.value_of_css_property("position") in ("sticky", "fixed")
    assert _errors(driver) == []


def test_an_api_page_renders_signatures_and_docstrings(browser: object, site_url: str) -> None:
    driver = browser
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


def test_the_search_finds_a_function(browser: object, site_url: str) -> None:
    driver = browser
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
