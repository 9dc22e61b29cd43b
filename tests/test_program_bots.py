"""Bots that are programs speaking the protocol of docs/protocol.md: the two
examples play tournaments, and hostile programs forfeit without hanging the
host, growing it, or outliving their game."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from copy import deepcopy
from pathlib import Path

import pytest

from troedler import legal_moves, new_game, observe
from troedler.bots import GreedyBot, RandomBot, make_bot, play_game
from troedler.bots.program import (
    MAX_LINE,
    MAX_STDERR,
    ProgramBot,
    observation_to_data,
    program_bot,
)
from troedler.core.errors import ConfigurationError
from troedler.simulation import tournament
from troedler.simulation.lineup import bot_from_text

ROOT = Path(__file__).resolve().parents[1]
PYTHON_BOT = f"{sys.executable} {ROOT / 'examples' / 'delivery_bot.py'}"
NODE = shutil.which("node")

HELLO = """\
import json, os, subprocess, sys, time
sys.stdin.readline()
print(json.dumps({"type": "hello", "protocol": 1, "name": "hostile"}), flush=True)
"""

HOSTILE = {
    # Floods stdout with one endless line at its first move.
    "flood": "sys.stdin.readline()\nwhile True:\n    sys.stdout.write('x' * 65536)\n",
    "silent": "sys.stdin.readline()\ntime.sleep(600)\n",
    "half": 'sys.stdin.readline()\nsys.stdout.write(\'{"type": "mo\'); sys.stdout.flush()\n'
    "time.sleep(600)\n",
    "crash": "sys.stdin.readline()\nsys.stderr.write('about to fail\\n')\nsys.exit(3)\n",
    "illegal": "sys.stdin.readline()\n"
    "print(json.dumps({'type': 'move', 'move': 'take 99'}), flush=True)\nsys.stdin.read()\n",
    "garbage": "sys.stdin.readline()\n"
    "print('I think I will go north', flush=True)\nsys.stdin.read()\n",
    # Leaves a child of its own behind, then never answers.
    "spawner": "sys.stdin.readline()\n"
    "child = subprocess.Popen(['sleep', '600'])\n"
    "sys.stderr.write(f'child {child.pid}\\n'); sys.stderr.flush()\ntime.sleep(600)\n",
}


def hostile(tmp_path: Path, kind: str) -> str:
    """The command of the hostile program ``kind``."""
    path = tmp_path / f"{kind}.py"
    path.write_text(HELLO + HOSTILE[kind])
    return f"{sys.executable} {path}"


def alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie does not count)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat.rpartition(")")[2].split()[0] not in ("Z", "X")


def gone(pid: int) -> bool:
    """Whether ``pid`` has ended, waiting a while for the kernel to finish the kill."""
    for _ in range(100):
        if not alive(pid):
            return True
        time.sleep(0.05)
    return False


def test_the_python_example_plays_whole_games_against_the_bundled_bots() -> None:
    summary = tournament([f"exec:{PYTHON_BOT}", "greedy", "random"], games=3, seed=4)
    assert summary.finished == 3 and summary.forfeited == 0
    assert summary.bot(f"exec:{PYTHON_BOT}").seat_games == 3


@pytest.mark.skipif(NODE is None, reason="node (Node.js) is not installed")
def test_the_node_example_plays_against_the_python_example_and_bundled_bots() -> None:
    node_bot = f"exec:{NODE} {ROOT / 'examples' / 'collector_bot.js'}"
    summary = tournament(
        [node_bot, f"exec:{PYTHON_BOT}", "greedy", "ismcts:20"], games=4, seed=2, workers=2
    )
    assert summary.finished == 4 and summary.forfeited == 0
    assert summary.bot(node_bot).seat_games == 4


def test_a_program_game_replays_and_its_seat_is_named_by_the_handshake() -> None:
    games = [
        play_game([ProgramBot(PYTHON_BOT), GreedyBot()], seed=11, forfeit=True) for _ in range(2)
    ]
    assert games[0].finished and games[0].record == games[1].record
    assert games[0].record.seats == ("delivery-py 0", "greedy 1")


def test_the_end_message_reaches_the_program_with_the_result() -> None:
    bot = ProgramBot(PYTHON_BOT)
    played = play_game([bot, RandomBot()], seed=3, forfeit=True)
    assert played.finished
    result = played.record.result
    assert result is not None
    assert f"game over: finished {{'points': {list(result.points)}" in bot.stderr
    assert not alive(bot.pid)


@pytest.mark.parametrize(
    ("kind", "failure", "detail"),
    [
        ("flood", "illegal", f"sent a line longer than {MAX_LINE} bytes (garbage)"),
        ("silent", "slow", "did not answer its move within 0.5 s"),
        ("half", "slow", 'did not answer its move within 0.5 s (half a line: \'{"type": "mo\')'),
        ("crash", "crashed", "exited with code 3; stderr: about to fail"),
        ("illegal", "illegal", "answered 'take 99', which is not a legal move"),
        ("garbage", "illegal", "sent 'I think I will go north', which is not JSON"),
    ],
)
def test_a_hostile_program_forfeits_its_game_with_the_reason(
    tmp_path: Path, kind: str, failure: str, detail: str
) -> None:
    bot = ProgramBot(hostile(tmp_path, kind), move_time=0.5)
    played = play_game([RandomBot(), bot], seed=1, forfeit=True)
    assert not played.finished and played.failure is not None
    assert played.failure.seat == 1 and played.failure.bot == "hostile"
    assert played.failure.kind == failure
    assert played.failure.detail == detail
    assert played.record.moves and played.record.result is None
    assert gone(bot.pid)
    assert not list(tmp_path.glob("core*"))


def test_the_programs_own_children_die_with_its_game(tmp_path: Path) -> None:
    bot = ProgramBot(hostile(tmp_path, "spawner"), move_time=0.5)
    played = play_game([bot, RandomBot()], seed=1, forfeit=True)
    assert played.failure is not None and played.failure.kind == "slow"
    child = int(bot.stderr.split()[1])
    assert gone(bot.pid) and gone(child)


def test_stderr_is_kept_bounded_and_the_run_goes_on(tmp_path: Path) -> None:
    chatty = tmp_path / "chatty.py"
    chatty.write_text(
        HELLO + "for line in sys.stdin:\n"
        "    message = json.loads(line)\n"
        "    if message['type'] != 'move':\n        break\n"
        "    sys.stderr.write('noise ' * 40000 + '\\n'); sys.stderr.flush()\n"
        "    print(json.dumps({'type': 'move', 'move': message['legal_moves'][0]}), flush=True)\n"
    )
    bot = ProgramBot([sys.executable, str(chatty)])
    played = play_game([bot, GreedyBot()], seed=5, forfeit=True, max_rounds=2)
    assert played.failure is None and len(played.record.moves) > 10
    assert 0 < len(bot.stderr.encode()) <= MAX_STDERR


def test_a_broken_handshake_forfeits_at_the_first_move(tmp_path: Path) -> None:
    mute = tmp_path / "mute.py"
    mute.write_text('import sys\nsys.stdin.readline()\nprint(\'{"type": "hello"}\', flush=True)\n')
    bot = ProgramBot([sys.executable, str(mute)])
    assert bot.name == Path(sys.executable).name
    played = play_game([bot, RandomBot()], seed=2, forfeit=True)
    assert played.failure is not None and played.failure.move == 0
    assert played.failure.detail == "speaks protocol 'None', the host speaks 1"


def test_texts_name_programs_with_arguments_and_a_move_time() -> None:
    bot = program_bot(f"2.5:{PYTHON_BOT} --unused 'two words'")
    assert bot.move_time == 2.5 and bot.command[-2:] == ("--unused", "two words")
    assert bot.name == "delivery-py"
    bot.close()
    assert gone(bot.pid)
    for made in (bot_from_text(f"exec:{PYTHON_BOT}"), make_bot(f"EXEC:{PYTHON_BOT}")):
        assert isinstance(made, ProgramBot) and made.move_time == 5
        made.close()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("exec:", "exec: a program to run is needed"),
        ("exec:./no-such-bot --fast", "exec: cannot run './no-such-bot': no such executable"),
        ("exec:0:python3 x.py", "exec: the move time must be positive, not 0.0"),
        ("exec:'unclosed", "No closing quotation"),
    ],
)
def test_a_program_that_cannot_run_is_refused_before_any_game(text: str, message: str) -> None:
    with pytest.raises((ConfigurationError, ValueError), match=message):
        tournament([text, "random"], games=1)


def marking(marks: Path) -> str:
    """A program that leaves its process id in ``marks``, then never answers a move."""
    mark = f"open(os.path.join({str(marks)!r}, f'{{os.getpid()}}.pid'), 'w').close()\n"
    first, _, rest = HELLO.partition("sys.stdin.readline()\n")
    return first + mark + "sys.stdin.readline()\n" + rest + HOSTILE["silent"]


def _pids_in(folder: Path) -> list[int]:
    return [int(path.stem) for path in folder.glob("*.pid")]


def test_a_pool_killing_a_slow_game_kills_its_program(tmp_path: Path) -> None:
    marks = tmp_path / "marks"
    marks.mkdir()
    slow = tmp_path / "slow.py"
    slow.write_text(marking(marks))
    summary = tournament(
        [f"exec:60:{sys.executable} {slow}", "random"],
        games=2,
        workers=2,
        move_time_limit=0.3,
    )
    assert summary.forfeited == 2
    assert all(failure.kind == "slow" for failure in summary.failures)
    pids = _pids_in(marks)
    assert len(pids) >= 3  # one to check the line-up, one a game
    assert all(gone(pid) for pid in pids)


def test_ctrl_c_stops_a_simulation_and_its_programs(tmp_path: Path) -> None:
    marks = tmp_path / "marks"
    marks.mkdir()
    slow = tmp_path / "slow.py"
    slow.write_text(marking(marks))
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    running = subprocess.Popen(
        [sys.executable, "-m", "troedler", "simulate", "--games", "4", "--workers", "2",
         "--bots", f"exec:60:{sys.executable} {slow},random", "--out", str(tmp_path / "g.jsonl")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        start_new_session=True,
    )  # fmt: skip
    wait_for: Callable[[], bool] = lambda: len(_pids_in(marks)) >= 3  # noqa: E731
    deadline = time.monotonic() + 60
    while not wait_for() and running.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(running.pid, signal.SIGINT)
    _, stderr = running.communicate(timeout=60)
    assert running.returncode == 130, stderr
    assert "Traceback" not in stderr
    assert all(gone(pid) for pid in _pids_in(marks))


def test_the_protocol_pages_exchange_is_what_the_python_example_and_host_say() -> None:
    text = (ROOT / "docs" / "protocol.md").read_text()
    exchange = [json.loads(block) for block in re.findall(r"```json\n(.*?)```", text, re.DOTALL)]
    assert [message["type"] for message in exchange] == ["hello", "hello", "move", "move", "end"]
    host_lines = "".join(json.dumps(exchange[k]) + "\n" for k in (0, 2))
    answers = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "delivery_bot.py")],
        input=host_lines, capture_output=True, text=True, timeout=60, check=True,
    ).stdout  # fmt: skip
    assert [json.loads(line) for line in answers.splitlines()] == [exchange[1], exchange[3]]
    bot = ProgramBot(PYTHON_BOT)
    played = play_game([bot, GreedyBot()], seed=1, forfeit=True)
    first = observe(new_game(2, seed=1), 0)
    assert exchange[2]["observation"] == observation_to_data(first)
    assert exchange[2]["legal_moves"] == [str(move) for move in legal_moves(first)]
    assert played.record.moves[0] == exchange[3]["move"]
    result = played.record.result
    assert result is not None
    assert exchange[4]["result"] == {
        "points": list(result.points),
        "damage": list(result.damage),
        "totally_damaged": list(result.totally_damaged),
        "winners": list(result.winners),
    }


def test_the_protocol_pages_python_example_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    text = (ROOT / "docs" / "protocol.md").read_text()
    code = re.findall(r"^```python\n(.*?)^```$", text, flags=re.DOTALL | re.MULTILINE)
    assert code
    monkeypatch.chdir(ROOT)  # the example names the example bot by a relative path
    namespace: dict[str, object] = {}
    for block in code:
        exec(compile(block, "docs/protocol.md", "exec"), namespace)  # noqa: S102 - our own page


def _troedler(*args: str, cwd: Path, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    return subprocess.run(
        [sys.executable, "-m", "troedler", *args],
        input=stdin, capture_output=True, text=True, env=env, cwd=cwd, timeout=120, check=False,
    )  # fmt: skip


def test_simulate_and_play_take_program_bots(tmp_path: Path) -> None:
    bots = f"exec:{PYTHON_BOT},random"
    done = _troedler("simulate", "--games", "2", "--bots", bots, "--out", "g.jsonl", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "2 games of 2 players: 2 finished" in done.stdout
    assert '"delivery-py 0"' in (tmp_path / "g.jsonl").read_text()
    played = _troedler(
        "play", "--players", "2", "--seed", "1", "--seat", "1", "--bots", f"exec:{PYTHON_BOT}",
        "--save", "p.json", cwd=tmp_path, stdin="quit\n",
    )  # fmt: skip
    assert played.returncode == 0, played.stderr
    assert "delivery-py 0: discard" in played.stdout
    assert '"delivery-py 0"' in (tmp_path / "p.json").read_text()


def test_a_program_bot_object_is_started_afresh_for_every_game() -> None:
    bot = ProgramBot(PYTHON_BOT, move_time=3)
    copy = deepcopy(bot)
    assert copy.pid != bot.pid and copy.move_time == 3 and copy.name == "delivery-py"
    copy.close()
    summary = tournament([bot, "greedy"], games=2, seed=4, workers=2)
    assert summary.finished == 2 and summary.bot("delivery-py").seat_games == 2
    bot.close()


def test_a_program_that_answers_twice_forfeits_at_its_next_move(tmp_path: Path) -> None:
    twice = tmp_path / "twice.py"
    twice.write_text(
        HELLO + "for line in sys.stdin:\n"
        "    answer = json.dumps({'type': 'move', 'move': json.loads(line)['legal_moves'][0]})\n"
        "    print(answer + '\\n' + answer, flush=True)\n"
    )
    bot = ProgramBot([sys.executable, str(twice)])
    played = play_game([bot, RandomBot()], seed=1, forfeit=True)
    assert played.failure is not None and played.failure.kind == "illegal"
    assert played.failure.detail.startswith('sent \'{"type": "move"')
    assert played.failure.detail.endswith("unasked")
