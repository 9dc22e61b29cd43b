"""No process a program bot starts outlives its game, however the game ends:
a normal end, a forfeit, a move time limit, Ctrl-C, the killing of the
process that plays it, or the person leaving the terminal game.

Each bot here starts a grandchild, ``sleep NUMBER`` with a number of its
own, and another one in a session of its own (out of the bot's process
group), and the test then looks through /proc for them."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from troedler.bots import RandomBot, play_game
from troedler.bots.program import ProgramBot

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/cmdline").exists(), reason="needs /proc (Linux) to look for processes"
)

ROOT = Path(__file__).resolve().parents[1]

BOT = """\
import json, subprocess, sys, time
quiet = dict(stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
sys.stdin.readline()
subprocess.Popen(["sleep", "{number}"], **quiet)
subprocess.Popen(["sleep", "{number}"], start_new_session=True, **quiet)
print(json.dumps({{"type": "hello", "protocol": 1, "name": "spawner"}}), flush=True)
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] != "move":
        break
{answer}
"""

ANSWERS = {
    "plays": "    answer = {'type': 'move', 'move': message['legal_moves'][0]}\n"
    "    print(json.dumps(answer), flush=True)",
    "cheats": "    print(json.dumps({'type': 'move', 'move': 'take 99'}), flush=True)",
    "hangs": "    time.sleep(3600)",
}


def sleepers(number: int) -> list[int]:
    """The processes ``sleep NUMBER`` that run (zombies do not count)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes().split(b"\0")
            state = (entry / "stat").read_text().rpartition(")")[2].split()[0]
        except OSError:
            continue
        if command[:2] == [b"sleep", str(number).encode()] and state not in ("Z", "X"):
            found.append(int(entry.name))
    return found


def wait_until(condition: Callable[[], bool], seconds: float = 30.0) -> bool:
    """Whether ``condition()`` became true within ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


@pytest.fixture
def number() -> int:
    return random.SystemRandom().randrange(10**6, 10**7) * 10 + 7


def spawner(tmp_path: Path, number: int, answer: str) -> str:
    """The command of a bot that starts ``sleep NUMBER`` twice, then ``answer``s."""
    path = tmp_path / f"spawner_{answer}.py"
    path.write_text(BOT.format(number=number, answer=ANSWERS[answer]))
    return f"{sys.executable} {path}"


def none_left(number: int) -> bool:
    """Whether every ``sleep NUMBER`` has gone (the kernel may take a moment)."""
    return wait_until(lambda: not sleepers(number), 10.0)


def troedler(*args: str, cwd: Path) -> subprocess.Popen[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    return subprocess.Popen(
        [sys.executable, "-m", "troedler", *args],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, env=env, cwd=cwd, start_new_session=True,
    )  # fmt: skip


def test_a_normal_end(tmp_path: Path, number: int) -> None:
    bot = ProgramBot(spawner(tmp_path, number, "plays"))
    # Each sleep is a fork of the bot until its exec: wait for both to be sleep.
    assert wait_until(lambda: len(sleepers(number)) == 2, 10.0)
    played = play_game([bot, RandomBot()], seed=3, forfeit=True, max_rounds=2)
    assert played.failure is None
    assert none_left(number)


def test_a_forfeit(tmp_path: Path, number: int) -> None:
    bot = ProgramBot(spawner(tmp_path, number, "cheats"))
    played = play_game([RandomBot(), bot], seed=1, forfeit=True)
    assert played.failure is not None and played.failure.kind == "illegal"
    assert none_left(number)


def test_a_move_time_limit_in_a_game(tmp_path: Path, number: int) -> None:
    bot = ProgramBot(spawner(tmp_path, number, "hangs"))
    played = play_game([bot, RandomBot()], seed=1, forfeit=True, move_time_limit=0.5)
    assert played.failure is not None and played.failure.kind == "slow"
    assert "within 0.5 s" in played.failure.detail  # the limit, not the program's 5 s
    assert none_left(number)


def test_a_move_time_limit_in_simulate(tmp_path: Path, number: int) -> None:
    command = spawner(tmp_path, number, "hangs")
    running = troedler(
        "simulate", "--games", "2", "--players", "2", "--workers", "1",
        "--move-time-limit", "1", "--bots", f"exec:{command},random", cwd=tmp_path,
    )  # fmt: skip
    out, err = running.communicate(timeout=120)
    assert running.returncode == 0, err
    assert "2 forfeited" in out
    assert none_left(number)


def test_ctrl_c_during_simulate(tmp_path: Path, number: int) -> None:
    command = spawner(tmp_path, number, "hangs")
    running = troedler(
        "simulate", "--games", "6", "--players", "2", "--workers", "2",
        "--bots", f"exec:{command},random", cwd=tmp_path,
    )  # fmt: skip
    assert wait_until(lambda: len(sleepers(number)) >= 4, 60.0)  # both workers' games began
    os.killpg(running.pid, signal.SIGINT)
    _, err = running.communicate(timeout=60)
    assert running.returncode == 130, err
    assert none_left(number)


def test_the_process_playing_the_game_killed(tmp_path: Path, number: int) -> None:
    command = spawner(tmp_path, number, "hangs")
    host = subprocess.Popen(
        [sys.executable, "-c",
         "import sys, time\nfrom troedler.bots.program import ProgramBot\n"
         f"bot = ProgramBot({command!r})\nprint(bot.pid, flush=True)\ntime.sleep(600)\n"],
        stdout=subprocess.PIPE, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT / "src")),
    )  # fmt: skip
    try:
        assert host.stdout is not None
        host.stdout.readline()
        assert wait_until(lambda: len(sleepers(number)) == 2, 10.0)
    finally:
        host.kill()  # SIGKILL: it cleans nothing up itself
        host.wait(10)
    assert none_left(number)


def test_a_worker_of_simulate_killed(tmp_path: Path, number: int) -> None:
    command = spawner(tmp_path, number, "hangs")
    running = troedler(
        "simulate", "--games", "1", "--players", "2", "--workers", "2",
        "--bots", f"exec:{command},random", cwd=tmp_path,
    )  # fmt: skip
    try:

        def workers() -> set[int]:
            # sleep's parent is its bot, the bot's its supervisor, the supervisor's
            # the worker playing the game (the run's own process checks the bots first)
            found = {_parent_of(_parent_of(_parent_of(pid))) for pid in sleepers(number)}
            return {pid for pid in found if _parent_of(pid) == running.pid}

        assert wait_until(lambda: bool(workers()), 60.0)
        (worker,) = workers()
        os.kill(worker, signal.SIGKILL)
        out, err = running.communicate(timeout=60)
    finally:
        if running.poll() is None:
            os.killpg(running.pid, signal.SIGKILL)
    assert "crashed" in out or "forfeited" in out, (out, err)
    assert none_left(number)


def _parent_of(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[1])
    except (OSError, IndexError, ValueError):
        return 0


def test_the_terminal_game_quitting(tmp_path: Path, number: int) -> None:
    command = spawner(tmp_path, number, "plays")
    running = troedler(
        "play", "--players", "2", "--seat", "1", "--seed", "3", "--bots", f"exec:{command}",
        "--save", "game.json", cwd=tmp_path,
    )  # fmt: skip
    out, err = running.communicate("quit\n", timeout=60)
    assert running.returncode == 0, err
    assert "You left the game." in out
    assert none_left(number)


def test_ctrl_c_in_the_terminal_game(tmp_path: Path, number: int) -> None:
    command = spawner(tmp_path, number, "plays")
    running = troedler(
        "play", "--players", "2", "--seat", "1", "--seed", "3", "--bots", f"exec:{command}",
        "--save", "game.json", cwd=tmp_path,
    )  # fmt: skip
    assert wait_until(lambda: len(sleepers(number)) == 2, 60.0)
    assert wait_until((tmp_path / "game.json").exists, 60.0)
    os.killpg(running.pid, signal.SIGINT)
    _, err = running.communicate(timeout=60)
    assert running.returncode == 130, err
    assert "Traceback" not in err
    assert none_left(number)
