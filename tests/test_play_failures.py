"""A bot that fails in ``troedler play``: one line names the seat, the bot and
what it did, with no traceback; the saved game holds every move before it
and goes on with ``--resume FILE --bots ...``, another bot in that seat."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

BOTS = """\
class Raiser:
    name = "raiser"

    def __init__(self):
        self.calls = 0

    def choose(self, observation, legal_moves, rng):
        self.calls += 1
        if self.calls > 3:
            raise ValueError("no idea what to do")
        return rng.choice(legal_moves)


class Cheater(Raiser):
    name = "cheater"

    def choose(self, observation, legal_moves, rng):
        self.calls += 1
        return "take 99" if self.calls > 3 else rng.choice(legal_moves)


class Stuck(Raiser):
    name = "stuck"

    def choose(self, observation, legal_moves, rng):
        self.calls += 1
        while self.calls > 3:  # never returns, and never sleeps: no signal reaches it
            pass
        return rng.choice(legal_moves)
"""

HANGING = """\
import json, sys, time
sys.stdin.readline()
print(json.dumps({"type": "hello", "protocol": 1, "name": "sleepy"}), flush=True)
for number, line in enumerate(sys.stdin):
    if number >= 3:
        time.sleep(600)
    message = json.loads(line)
    print(json.dumps({"type": "move", "move": message["legal_moves"][0]}), flush=True)
"""

# The person answers with the first move of every list, then 0 for a pile.
PERSON = "1\n0\n" * 300


def troedler(*args: str, cwd: Path, stdin: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    return subprocess.run(
        [sys.executable, "-m", "troedler", *args],
        input=stdin, capture_output=True, text=True, env=env, cwd=cwd, timeout=120, check=False,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("bot", "name", "what", "detail"),
    [
        ("mybots:Raiser", "raiser", "raised an error", "ValueError: no idea what to do ("),
        ("mybots:Cheater", "cheater", "gave an answer that is not a legal move", "'take 99'"),
        ("exec:{python} sleepy.py", "sleepy", "did not answer in time",
         "did not answer its move within 1 s"),
        ("mybots:Stuck", "stuck", "did not answer in time", "did not answer its move within 1 s"),
    ],
)  # fmt: skip
def test_a_failing_bot_stops_the_game_in_one_line_and_the_save_goes_on(
    tmp_path: Path, bot: str, name: str, what: str, detail: str
) -> None:
    (tmp_path / "mybots.py").write_text(BOTS)
    (tmp_path / "sleepy.py").write_text(HANGING)
    bot = bot.format(python=shlex.quote(sys.executable))
    done = troedler(
        "play", "--players", "3", "--seat", "1", "--seed", "5", "--bots", f"random,{bot}",
        "--save", "game.json", "--move-time-limit", "1", cwd=tmp_path, stdin=PERSON,
    )  # fmt: skip
    output = done.stdout + done.stderr
    assert done.returncode == 1, output
    assert "Traceback" not in output
    # (after the last prompt, which ends no line when the input is not a terminal)
    assert done.stdout.count("The bot of seat") == 1, output
    lines = ["The bot of seat" + done.stdout.split("The bot of seat")[1].split("\n")[0]]
    assert lines[0].startswith(f"The bot of seat 2, {name}, {what} at move ")
    assert detail in lines[0]
    move = int(lines[0].split(" at move ")[1].split()[0])
    record = json.loads((tmp_path / "game.json").read_text())
    assert len(record["moves"]) == move - 1  # every move before the failed one
    hint = done.stdout[done.stdout.index("The game is saved with every move before it;") :]
    assert all(len(line) <= 80 for line in hint.splitlines())
    # The command as a shell reads it: a backslash at the end of a line goes on.
    said = hint.replace(" \\\n", " ").replace("\n", " ")
    command = shlex.split(said.split(": ", 1)[1])
    assert command == [
        "troedler", "play", "--resume", "game.json", "--bots", "random,greedy"
    ]  # fmt: skip
    resumed = troedler(*command[1:], cwd=tmp_path, stdin="quit\n")
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert f"Resumed the game of game.json after {move - 1} moves." in resumed.stdout
    seats = json.loads((tmp_path / "game.json").read_text())["seats"]
    assert seats == ["random 0", "you", "greedy 2"]


def test_a_fresh_seed_is_drawn_shown_and_saved(tmp_path: Path) -> None:
    seeds = []
    for number in range(2):
        done = troedler("play", "--players", "2", "--save", f"{number}.json", cwd=tmp_path,
                        stdin="quit\n")  # fmt: skip
        assert done.returncode == 0, done.stderr
        shown = done.stdout.split("Game seed ", 1)[1].split()[0]
        assert json.loads((tmp_path / f"{number}.json").read_text())["seed"] == int(shown)
        seeds.append(int(shown))
    assert seeds[0] != seeds[1]
    again = troedler("play", "--players", "2", "--seed", str(seeds[0]), "--save", "again.json",
                     cwd=tmp_path, stdin="quit\n")  # fmt: skip
    assert f"Game seed {seeds[0]} ('--seed {seeds[0]}' deals this game again)" in again.stdout
    first = json.loads((tmp_path / "0.json").read_text())
    assert json.loads((tmp_path / "again.json").read_text())["seed"] == first["seed"]


def test_play_names_the_valid_seats(tmp_path: Path) -> None:
    done = troedler("play", "--players", "3", "--seat", "5", cwd=tmp_path, stdin="")
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "troedler: --seat must be 0 to 2: a game of 3 players has seats 0, 1 and 2, not 5"
    )
    assert "usage" not in done.stderr
