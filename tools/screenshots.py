"""Take the documentation's screenshots of the page again: the lobby, a match
and its end, at 390 (a phone) and 1,400 pixels wide, in headless Chromium.

    python tools/screenshots.py            # writes docs/images/{lobby,match,end}-{390,1400}.png

It starts ``troedler serve`` on a new SQLite file, makes a few matches for
the lobby to list, and has two windows play a match by tapping, one at each
width. Needs the server and browser extras, chromium and chromedriver.
"""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select
from selenium.webdriver.support.wait import WebDriverWait

ROOT = Path(__file__).resolve().parents[1]
IMAGES = ROOT / "docs" / "images"
SIZES = {"1400": (1400, 900), "390": (390, 844)}


def browser(folder: Path, width: int, height: int) -> Any:
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or shutil.which("chromium-browser") or ""
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                 f"--user-data-dir={folder}"):  # fmt: skip
        options.add_argument(flag)
    service = webdriver.ChromeService(executable_path=shutil.which("chromedriver"))
    driver = webdriver.Chrome(options=options, service=service)
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600},
    )
    return driver


def call(url: str, method: str = "GET", body: object = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    headers = {"Content-Type": "application/json"} if body is not None else {}
    request = urllib.request.Request(url, data=data, method=method, headers=headers)  # noqa: S310
    with urllib.request.urlopen(request, timeout=30) as answer:  # noqa: S310 - our own server
        return json.loads(answer.read())


def until(driver: Any, check: Any, seconds: float = 60) -> Any:
    return WebDriverWait(driver, seconds).until(check)


def tap(driver: Any, rng: random.Random) -> None:
    """One move, tapped: a delivery where there is one, else any move button."""
    try:
        choices = [c for c in driver.find_elements(By.CSS_SELECTOR, "#choices .move")
                   if c.is_displayed()]  # fmt: skip
        if choices:
            rng.choice(choices).click()
            return
        buttons = [b for b in driver.find_elements(By.CSS_SELECTOR, "#moves button")
                   if b.is_displayed()]  # fmt: skip
        named = [b for b in buttons if "deliver" in (b.get_attribute("data-move") or "")
                 + (b.get_attribute("data-option") or "")]  # fmt: skip
        if named or buttons:
            rng.choice(named or buttons).click()
    except WebDriverException:
        pass  # redrawn under the tap: tapped again next time


def my_turn(driver: Any) -> bool:
    return bool(driver.execute_script(
        "const y = document.getElementById('you');"
        "return !y.hidden && y.classList.contains('yours') && !y.classList.contains('busy')"
    ))  # fmt: skip


def main() -> None:
    IMAGES.mkdir(parents=True, exist_ok=True)
    rng = random.Random(2024)  # noqa: S311 - which move to tap, not a secret
    with tempfile.TemporaryDirectory() as folder:
        server = subprocess.Popen(  # noqa: S603 - our own command
            [sys.executable, "-m", "troedler", "serve", "--port", "0", "--database",
             f"sqlite:///{folder}/shots.sqlite3"],
            stdout=subprocess.PIPE, text=True, cwd=folder,
        )  # fmt: skip
        assert server.stdout is not None
        url = server.stdout.readline().split("listening on ")[1].strip()
        api = url + "api/"
        windows = {name: browser(Path(folder) / name, *size) for name, size in SIZES.items()}
        try:
            # Matches for the lobby to list: one waiting for a player, one being played.
            waiting = call(api + "matches", "POST", {"players": 3, "bots": [None, None, "greedy"]})
            call(api + f"matches/{waiting['match']}/join", "POST", {"name": "Freya"})
            playing = call(api + "matches", "POST", {"players": 2, "bots": [None, "greedy"]})
            call(api + f"matches/{playing['match']}/join", "POST", {"name": "Scott"})
            wide, phone = windows["1400"], windows["390"]
            # Ivy makes a match with clocks in the lobby and sits down; Jack joins.
            wide.get(url)
            until(wide, lambda d: d.find_element(By.ID, "create").is_displayed())
            wide.find_element(By.ID, "my-name").send_keys("Ivy")
            Select(wide.find_element(By.ID, "move-seconds")).select_by_value("120")
            Select(wide.find_element(By.ID, "game-seconds")).select_by_value("1800")
            time.sleep(0.5)
            wide.save_screenshot(str(IMAGES / "lobby-1400.png"))
            phone.get(url)  # on a phone the lists come first, the form behind a button
            until(phone, lambda d: d.find_element(By.ID, "waiting-matches").text.strip())
            time.sleep(0.5)
            phone.save_screenshot(str(IMAGES / "lobby-390.png"))
            wide.find_element(By.ID, "create").click()
            until(wide, lambda d: "#match=" in d.current_url)
            match = wide.current_url.split("#match=")[1]
            phone.get(url + f"#match={match}")
            until(phone, lambda d: d.find_element(By.ID, "join").is_displayed())
            phone.find_element(By.ID, "join-name").send_keys("Jack")
            phone.find_element(By.ID, "join").click()
            until(phone, lambda d: d.find_element(By.ID, "you").is_displayed())
            # They play; each one's first screen is taken at a decision of round 3.
            taken: set[str] = set()
            while call(api + f"matches/{match}")["status"] == "playing":
                for name, driver in windows.items():
                    if not my_turn(driver):
                        continue
                    status = driver.find_element(By.ID, "status").text
                    round_now = re.search(r"Round (\d+)", status)
                    if (
                        name not in taken
                        and round_now
                        and int(round_now.group(1)) >= 3
                        and "dealer pile" not in status
                    ):
                        time.sleep(0.5)
                        driver.save_screenshot(str(IMAGES / f"match-{name}.png"))
                        taken.add(name)
                    tap(driver, rng)
                time.sleep(0.15)
            for name, driver in windows.items():
                until(driver, lambda d: d.find_element(By.ID, "result").is_displayed())
                driver.execute_script("scrollTo(0, 0)")
                time.sleep(0.5)
                driver.save_screenshot(str(IMAGES / f"end-{name}.png"))
        finally:
            for driver in windows.values():
                driver.quit()
            server.terminate()
            server.wait(30)
    for name in sorted(IMAGES.glob("*-*.png")):
        print(name.relative_to(ROOT))


if __name__ == "__main__":
    main()
