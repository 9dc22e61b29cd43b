"""The server's page in real headless Chromium windows: a match made in the
lobby, two people playing it to the end by tapping, one on a phone and one
on a desktop, a third window watching; at every decision the hand, the
moves and the clock are in view as the page stands when the turn starts.
Then a rematch, played too, and the record downloaded and replayed."""

from __future__ import annotations

import json
import random
import re
import socket
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("sqlalchemy")
pytest.importorskip("websockets")

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from tests.page_support import (
    BOARD_TEXT,
    DESKTOP,
    PHONE,
    SEEN,
    TAP_TARGETS,
    WIDE,
    Decisions,
    end_in_view,
    errors,
    play_until_over,
    wait,
    window,
)
from tests.server_support import DATABASES, Served, database_url
from tests.test_replay_html import set_width
from troedler import GameRecord, replay
from troedler.bots.base import check_players
from troedler.core.errors import TroedlerError
from troedler.simulation import bot_from_text

LONG = "Maximiliane-Wilhelmine von Hohenzollern"
"""A long name, which must not push the scoring out of its box."""
HOSTILE = "<b>bob</b><script>document.title='owned'</script>"
"""A seat name that would be markup, were it not shown as text."""
MARKUP = """
return [...document.querySelectorAll('#match b, #match script')].some(
  (e) => e.tagName === 'SCRIPT' || e.textContent === 'bob');
"""


def _open_the_form(driver: Any) -> None:
    """The lobby's form for a new match; on a phone, behind its button."""
    wait(driver, lambda d: d.find_element(By.ID, "waiting-matches").is_displayed())
    opener = driver.find_element(By.ID, "new-match")
    if opener.is_displayed():
        opener.click()
    wait(driver, lambda d: d.find_element(By.ID, "create").is_displayed())


def _take_a_seat(driver: Any, url: str, name: str) -> None:
    driver.get(url)
    wait(driver, lambda d: d.find_element(By.ID, "join").is_displayed())
    # Before joining: the match's settings; no board yet.
    settings = driver.find_element(By.ID, "match-settings").text
    assert "2:00 a move" in settings and "30:00 a game" in settings, settings
    assert not driver.find_element(By.ID, "board-box").is_displayed()
    box = driver.find_element(By.ID, "join-name")
    box.clear()
    box.send_keys(name)
    driver.find_element(By.ID, "join").click()
    wait(driver, lambda d: not d.find_element(By.ID, "join-box").is_displayed())


def _create_in_the_lobby(driver: Any, url: str, name: str) -> str:
    """A two-person match with clocks, made in the lobby's form; its id."""
    driver.get(url)
    wait(driver, lambda d: d.find_element(By.ID, "create").is_displayed())
    driver.find_element(By.ID, "my-name").send_keys(name)
    Select(driver.find_element(By.ID, "move-seconds")).select_by_value("120")
    Select(driver.find_element(By.ID, "game-seconds")).select_by_value("1800")
    driver.find_element(By.ID, "create").click()
    wait(driver, lambda d: re.search(r"#match=", d.current_url))
    return str(driver.current_url.split("#match=")[1])


def _play(
    served: Served, match: str, players: list[Any], watcher: Any, rng: random.Random
) -> list[Decisions]:
    decisions = [Decisions() for _ in players]

    def version() -> int:
        return int(served.show(match)["version"])

    def over() -> bool:
        return served.show(match)["status"] in ("finished", "forfeited")

    def watch() -> None:
        # The spectator never holds a hand, nor sees one during the game.
        hidden = watcher.execute_script(
            "return document.getElementById('you').hidden"
            " && !document.querySelector('#panel .hand .cards')"
        )
        assert hidden

    play_until_over(players, over, version, decisions, timed=True, rng=rng, watch=watch)
    return decisions


def _final_points(driver: Any) -> list[int]:
    wait(driver, lambda d: d.find_element(By.ID, "result").is_displayed())
    rows = driver.find_elements(By.CSS_SELECTOR, "#scores tbody tr")
    return [int(row.find_element(By.CSS_SELECTOR, "td.points").text) for row in rows]


@pytest.mark.parametrize("kind", DATABASES)
def test_two_windows_play_a_match_and_its_rematch_by_tapping_while_a_third_watches(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    served = Served(database_url(kind, tmp_path), tmp_path)
    request.addfinalizer(served.kill)
    rng = random.Random(4)
    with (
        window(tmp_path / "ann", DESKTOP) as ann,
        window(tmp_path / "bob", PHONE) as bob,
        window(tmp_path / "watcher", (1024, 768)) as watcher,
    ):
        match = _create_in_the_lobby(ann, served.url, "ann")
        # The creator sits at once; the invitation link brings the others.
        wait(ann, lambda d: d.find_element(By.ID, "invite").text.endswith(f"#match={match}"))
        invitation = ann.find_element(By.ID, "invite").text
        _take_a_seat(bob, invitation, HOSTILE)
        watcher.get(invitation)
        for driver in (ann, bob, watcher):
            wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#board svg .cart"))
        # Names are text: the hostile name is shown as typed, and ran nothing.
        for driver in (ann, bob, watcher):
            wait(driver, lambda d: HOSTILE in d.find_element(By.ID, "seats").text)
            assert driver.title != "owned"
            assert not driver.execute_script(MARKUP)
        # Who is connected, from the welcome on: both seats, and one watching.
        wait(watcher, lambda d: d.find_element(By.ID, "watching").text == "1 watching")
        assert watcher.find_element(By.ID, "seats").text.count("connected") == 2
        # Every tap target on the phone is a thumb's size; nothing is wider than it.
        sides = bob.execute_script(TAP_TARGETS, True)
        assert sides and min(side for _, side in sides) >= 44, sides
        assert bob.execute_script("return document.documentElement.scrollWidth") <= PHONE[0]
        # The carts are marked by their people's initials, not seat numbers.
        marks = ann.execute_script(
            "return [...document.querySelectorAll('#board .cart text')].map((t) => t.textContent)"
        )
        assert marks == ["A", "<"], marks
        # ann's game on a desktop fits the window: the page does not scroll;
        # the map's village names and goods letters read at 11 pixels or more.
        assert ann.execute_script("return document.documentElement.scrollHeight") <= DESKTOP[1]
        assert min(ann.execute_script(BOARD_TEXT)) >= 11
        decisions = _play(served, match, [ann, bob], watcher, rng)
        for count, width in zip(decisions, (DESKTOP[0], PHONE[0]), strict=True):
            print(f"match at {width} px: {count.in_view} of {count.seen} decisions in view")
            assert count.seen > 5 and count.in_view == count.seen, count.out
        # The end: the engine's scoring, the same in every window and the record.
        shown = [_final_points(driver) for driver in (ann, bob, watcher)]
        record = GameRecord.from_json(served.http.get(f"/api/matches/{match}/record").text)
        assert record.result is not None and replay(record)[-1].is_over
        assert shown == [list(record.result.points)] * 3
        assert record.seats == ("ann", HOSTILE)
        # The record, downloaded from the page, replays.
        ann.find_element(By.ID, "download").click()
        saved = tmp_path / "ann" / f"troedler-{match}.json"
        wait(ann, lambda d: saved.exists() and saved.stat().st_size > 0)
        assert GameRecord.from_json(saved.read_text()).moves == record.moves
        # The replay page, from its link.
        ann.get(ann.find_element(By.ID, "replay").get_attribute("href"))
        wait(ann, lambda d: d.find_elements(By.CSS_SELECTOR, "#board svg .cart"))
        ann.find_element(By.ID, "last").click()
        assert _final_points(ann) == list(record.result.points)
        ann.back()
        # A rematch: both ask; bob asks again from the old match, as after a
        # lost answer, and gets the same seat of the same new match.
        rematches = []
        for driver in (ann, bob, bob):
            driver.get(served.url + f"#match={match}")
            wait(driver, lambda d: d.find_element(By.ID, "rematch").is_displayed())
            driver.find_element(By.ID, "rematch").click()
            wait(driver, lambda d: not d.current_url.endswith(f"#match={match}"))
            rematches.append(driver.current_url.split("#match=")[1])
            if len(rematches) == 1:  # ann waits for bob: nothing of the last match shows
                wait(ann, lambda d: d.find_element(By.ID, "waiting-room").is_displayed())
                assert ann.find_element(By.ID, "last-move").text == ""
                assert not ann.find_element(By.ID, "result").is_displayed()
        assert rematches[0] == rematches[1] == rematches[2] != match
        rematch = rematches[0]
        watcher.get(served.url + f"#match={rematch}")
        wait(bob, lambda d: d.find_element(By.ID, "you").is_displayed())
        assert served.show(rematch)["status"] == "playing"
        decisions = _play(served, rematch, [ann, bob], watcher, rng)
        for count, width in zip(decisions, (DESKTOP[0], PHONE[0]), strict=True):
            print(f"rematch at {width} px: {count.in_view} of {count.seen} decisions in view")
            assert count.in_view == count.seen, count.out
        assert served.http.get(f"/api/matches/{rematch}/record").status_code == 200
        for driver in (ann, bob, watcher):
            assert errors(driver) == []
    assert served.stop() == 0


def test_the_first_screens_of_the_lobby_a_match_and_the_end_at_800_and_1024(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    served = Served(database_url("sqlite", tmp_path), tmp_path)
    request.addfinalizer(served.kill)
    for width, height in ((800, 1000), (1024, 768)):
        # A short match of four, one with a long name: the bar above the
        # game wraps to several lines.
        match = served.create(
            players=4, bots=[None, "random", "greedy", "random"], rules={"end_threshold": 1}
        )
        token = served.join(match, LONG)["token"]
        with window(tmp_path / f"w{width}", (width, height)) as driver:
            driver.get(served.url)
            wait(driver, lambda d: d.find_element(By.ID, "waiting-matches").is_displayed())
            _no_overflow(driver, width)
            driver.save_screenshot(str(tmp_path / f"lobby-{width}.png"))
            _sit(driver, served, match, LONG, token)
            wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#board svg .cart"))
            wait(driver, lambda d: d.find_element(By.ID, "you").is_displayed())
            _no_overflow(driver, width)
            # The map reads: village names and goods letters at 11 pixels or
            # more; beside the board (from WIDE on) the page fits the
            # window, however many lines its bar takes.
            assert min(driver.execute_script(BOARD_TEXT)) >= 11, width
            driver.save_screenshot(str(tmp_path / f"match-{width}.png"))
            bars: list[int] = []

            def fits(
                driver: Any = driver, width: int = width, height: int = height, bars: Any = bars
            ) -> None:
                if width >= WIDE:  # the page fits the window, however tall its bar
                    page = driver.execute_script(
                        "return [document.documentElement.scrollHeight,"
                        " document.getElementById('match-bar').offsetHeight]"
                    )
                    assert page[0] <= height, (width, page)
                    bars.append(page[1])

            decisions = [Decisions()]
            play_until_over(
                [driver],
                lambda m=match: served.show(m)["status"] == "finished",
                lambda m=match: int(served.show(m)["version"]),
                decisions,
                timed=False,
                rng=random.Random(width),
                watch=fits,
            )
            assert width < WIDE or max(bars) > 60  # the long name's last move wrapped the bar
            print(f"at {width} px: {decisions[0].in_view} of {decisions[0].seen} in view")
            assert decisions[0].in_view == decisions[0].seen, decisions[0].out
            wait(driver, lambda d: d.find_element(By.ID, "result").is_displayed())
            _no_overflow(driver, width)
            _the_end_is_in_view(driver, width, 4)
            driver.save_screenshot(str(tmp_path / f"end-{width}.png"))
            assert errors(driver) == []
    assert served.stop() == 0


@pytest.mark.parametrize("kind", DATABASES)
def test_the_lobby_seats_the_learned_bot_and_shows_why_it_cannot_play_three(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    served = Served(database_url(kind, tmp_path), tmp_path)
    request.addfinalizer(served.kill)
    with pytest.raises(TroedlerError) as refused:
        check_players(bot_from_text("neural"), 3)
    with window(tmp_path / "page", PHONE) as driver:
        driver.get(served.url)
        _open_the_form(driver)
        driver.find_element(By.ID, "my-name").send_keys("fay")
        # Three players, the learned bot in seat 1: the server's refusal, in
        # the bot's own words, is shown under the form; no match is made.
        driver.find_element(By.CSS_SELECTOR, '#players [data-value="3"]').click()
        Select(
            driver.find_element(By.CSS_SELECTOR, '#seat-kinds select[data-seat="1"]')
        ).select_by_value("neural")
        driver.find_element(By.ID, "create").click()
        shown = wait(driver, lambda d: d.find_element(By.ID, "create-error").text)
        assert shown == f"bots[1]: {refused.value}"
        assert "#match=" not in driver.current_url
        # Two players: the match starts, and the learned bot answers a move.
        driver.find_element(By.CSS_SELECTOR, '#players [data-value="2"]').click()
        Select(
            driver.find_element(By.CSS_SELECTOR, '#seat-kinds select[data-seat="1"]')
        ).select_by_value("neural")
        driver.find_element(By.ID, "create").click()
        wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#moves button"))
        match = driver.current_url.split("#match=")[1]
        assert served.show(match)["seats"][1]["bot"] == "neural"
        driver.find_element(By.CSS_SELECTOR, "#moves button").click()
        wait(driver, lambda d: served.show(match)["version"] >= 2)
        # No error but the refused creation's answer, which the browser logs.
        assert [e for e in errors(driver) if "status of 400" not in e] == []
    assert served.stop() == 0


def _no_overflow(driver: Any, width: int) -> None:
    assert driver.execute_script("return document.documentElement.scrollWidth") <= width
    # Every control; the map beside the moves is a picture to tap too, but
    # the moves' buttons are there for each of its villages.
    sides = driver.execute_script(TAP_TARGETS, False)
    assert sides and min(side for _, side in sides) >= 44, sides


def test_the_page_reconnects_after_a_restart_and_finds_my_match_again(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    with socket.socket() as probe:  # the same address before and after the restart
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    served = Served(database_url("sqlite", tmp_path), tmp_path, "--port", str(port))
    request.addfinalizer(served.kill)
    with window(tmp_path / "page", PHONE) as driver:
        driver.get(served.url)
        _open_the_form(driver)
        _no_overflow(driver, PHONE[0])  # the lobby on a phone: every control 44 pixels
        driver.find_element(By.ID, "my-name").send_keys("dee")
        Select(driver.find_element(By.CSS_SELECTOR, "#seat-kinds select")).select_by_value("greedy")
        driver.find_element(By.ID, "create").click()
        wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#moves button"))
        match = driver.current_url.split("#match=")[1]
        notice = driver.find_element(By.ID, "connection")
        assert not notice.is_displayed()
        served.stop()
        wait(driver, lambda d: notice.is_displayed())
        served.start()
        wait(driver, lambda d: not notice.is_displayed())
        # The match goes on where it was: a move tapped now is made.
        before = served.show(match)["version"]
        wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#moves button"))
        driver.find_element(By.CSS_SELECTOR, "#moves button").click()
        wait(driver, lambda d: served.show(match)["version"] > before)
        # The lobby's "my matches" finds it again, in this browser.
        driver.find_element(By.ID, "to-lobby").click()
        button = wait(
            driver,
            lambda d: d.find_element(By.CSS_SELECTOR, f'#my-matches button[data-match="{match}"]'),
        )
        assert button.text == "go on"
        button.click()
        wait(driver, lambda d: d.find_element(By.ID, "you").is_displayed())
        # No error but the connections refused while the server was stopped.
        assert [e for e in errors(driver) if "ERR_CONNECTION_REFUSED" not in e] == []
    assert served.stop() == 0


def _sit(driver: Any, served: Served, match: str, name: str, token: str) -> None:
    """Open ``match`` holding its seat, as the page keeps it after joining."""
    driver.get(served.url)
    seat = {match: {"token": token, "seat": 0, "name": name}}
    driver.execute_script("localStorage.setItem('troedler-seats', arguments[0])", json.dumps(seat))
    driver.get(served.url + f"#match={match}")


def _the_end_is_in_view(driver: Any, width: int, players: int) -> None:
    found = end_in_view(driver)
    assert found["rows"] == players and found["buttons"] >= 2, found
    assert found["out"] == [], (width, found)
    # Every name on one line: cut short where it must be, never broken.
    broken = driver.execute_script(
        "return [...document.querySelectorAll('#seats .name, #panel .name, #scores .name')]"
        ".filter((e) => e.getClientRects().length && e.getBoundingClientRect().height >"
        " 1.5 * parseFloat(getComputedStyle(e).lineHeight)).map((e) => e.textContent)"
    )
    assert broken == [], (width, broken)
    # Nor is anything of the players' panel cut off at its side.
    wider = "const e = document.getElementById('panel'); return e.scrollWidth - e.clientWidth"
    assert driver.execute_script(wider) <= 0, width


END_WIDTHS = ((390, 844), (800, 900), (1024, 768), (1400, 900))


def test_the_end_is_in_view_at_every_width_for_a_seat_a_spectator_and_the_replay(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    served = Served(database_url("sqlite", tmp_path), tmp_path)
    request.addfinalizer(served.kill)
    # Four players, the widest scoring, one with a long name; a short game.
    match = served.create(
        players=4, bots=[None, "random", "greedy", "random"], rules={"end_threshold": 1}
    )
    token = served.join(match, LONG)["token"]
    with (
        window(tmp_path / "seat", PHONE) as seat,
        window(tmp_path / "watcher", (1024, 768)) as watcher,
    ):
        _sit(seat, served, match, LONG, token)
        watcher.get(served.url + f"#match={match}")
        wait(seat, lambda d: d.find_element(By.ID, "you").is_displayed())
        decisions = [Decisions()]
        play_until_over(
            [seat],
            lambda: served.show(match)["status"] == "finished",
            lambda: int(served.show(match)["version"]),
            decisions,
            timed=False,
            rng=random.Random(44),
        )
        assert decisions[0].in_view == decisions[0].seen, decisions[0].out
        # The end as the page stands when the game ends, on the phone that
        # played it, then at each width: the whole scoring and every button.
        wait(seat, lambda d: d.find_element(By.ID, "result").is_displayed())
        for width, height in END_WIDTHS:
            set_width(seat, width, height)
            _the_end_is_in_view(seat, width, 4)
            seat.save_screenshot(str(tmp_path / f"end-{width}.png"))
        # A spectator sees the same end, and the final tallies in the players'
        # table; of the log only the last move is marked new.
        wait(watcher, lambda d: d.find_element(By.ID, "result").is_displayed())
        _the_end_is_in_view(watcher, 1024, 4)
        tallies = watcher.find_elements(By.CSS_SELECTOR, "#panel .players td.num")
        assert tallies and all(cell.text.isdigit() for cell in tallies)
        assert len(watcher.find_elements(By.CSS_SELECTOR, "#log li.new")) == 1
        # The replay page's end, at each width.
        seat.get(seat.find_element(By.ID, "replay").get_attribute("href"))
        wait(seat, lambda d: d.find_elements(By.CSS_SELECTOR, "#board svg .cart"))
        seat.find_element(By.ID, "last").click()
        for width, height in END_WIDTHS:
            set_width(seat, width, height)
            found = end_in_view(seat)
            assert found["rows"] == 4 and found["out"] == [], (width, found)
            seat.save_screenshot(str(tmp_path / f"replay-end-{width}.png"))
        assert errors(seat) == [] and errors(watcher) == []
    assert served.stop() == 0


LISTED = (
    SEEN
    + """
const rows = [...document.querySelectorAll('#waiting-matches .match-row')];
return rows.filter(inView).map((row) => row.querySelector('button').dataset.match);
"""
)


def test_on_a_phone_the_lobby_lists_first_keeps_fresh_and_names_people_apart(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    served = Served(database_url("sqlite", tmp_path), tmp_path)
    request.addfinalizer(served.kill)
    with (
        window(tmp_path / "one", PHONE) as one,
        window(tmp_path / "two", PHONE) as two,
    ):
        two.get(served.url)  # before there is any match to list
        wait(two, lambda d: "None now." in d.find_element(By.ID, "waiting-matches").text)
        # The first person, who typed no name, makes a match from the form
        # behind its button, and is seated as "player".
        one.get(served.url)
        wait(one, lambda d: d.find_element(By.ID, "new-match").is_displayed())
        assert not one.find_element(By.ID, "create").is_displayed()
        _open_the_form(one)
        _no_overflow(one, PHONE[0])
        one.find_element(By.ID, "create").click()
        wait(one, lambda d: "#match=" in d.current_url)
        match = one.current_url.split("#match=")[1]
        # The second lobby lists it by itself, in view on the first screen,
        # without a reload; its person, nameless too, is "player 2".
        wait(two, lambda d: match in d.execute_script(LISTED), timeout=15)
        two.find_element(By.CSS_SELECTOR, f'#waiting-matches button[data-match="{match}"]').click()
        wait(two, lambda d: d.find_element(By.ID, "join").is_displayed())
        settings = two.find_element(By.ID, "match-settings").text
        assert settings.startswith("2 players") and "recall: perfect" in settings
        assert not two.find_element(By.ID, "board-box").is_displayed()
        two.find_element(By.ID, "join").click()
        wait(two, lambda d: d.find_element(By.ID, "you").is_displayed())
        names = [seat["name"] for seat in served.show(match)["seats"]]
        assert names == ["player", "player 2"]
        assert errors(one) == [] and errors(two) == []
    assert served.stop() == 0


def test_a_spectator_sees_each_clock_and_is_told_when_a_stand_in_moves(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    served = Served(database_url("sqlite", tmp_path), tmp_path)
    request.addfinalizer(served.kill)
    clock = {"move_seconds": 3, "game_seconds": 600, "on_timeout": "bot"}
    match = served.create(players=2, clock=clock)
    served.join(match, "ann")
    served.join(match, "bob")  # neither moves: each runs out of time in turn
    with window(tmp_path / "watcher", PHONE) as watcher:
        watcher.get(served.url + f"#match={match}")
        # The seat to move: its time for the move and, beside it, its game's.
        shown = wait(
            watcher,
            lambda d: d.execute_script(
                "const row = document.querySelector('.seat-row.to-move');"
                "return row && [row.querySelector('[data-clock]').textContent,"
                " row.querySelector('[data-game-clock]').textContent]"
            ),
        )
        assert re.fullmatch(r"0:0[0-3]", shown[0]) and re.fullmatch(r"game (9|10):\d\d", shown[1])
        notice = wait(watcher, lambda d: d.find_element(By.ID, "message").text)
        assert re.fullmatch(
            r"(ann|bob) ran out of time: the bot random made the move .+\.", notice
        ), notice
        assert errors(watcher) == []
    assert served.stop() == 0
