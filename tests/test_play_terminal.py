"""``troedler play`` and ``troedler replay --step`` driven through a real
pseudo-terminal of 80 by 24, with keys as a person types them."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

from troedler import GameRecord, replay
from troedler.bots import GreedyBot, RandomBot, play_game
from troedler.cli.stepper import PROMPT

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
LEFT, RIGHT, UP = "\x1b[D", "\x1b[C", "\x1b[A"
CTRL_C, CTRL_D = "\x03", "\x04"


class Terminal:
    """A program running on a pseudo-terminal of 24 rows and 80 columns."""

    def __init__(self, *args: str, cwd: Path) -> None:
        env = dict(os.environ, TERM="xterm", COLUMNS="80", LINES="24")
        env.pop("NO_COLOR", None)
        env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
        pid, fd = pty.fork()
        if pid == 0:  # the child: becomes the program, the pty its terminal
            os.chdir(cwd)
            os.execve(sys.executable, [sys.executable, "-m", "troedler", *args], env)  # noqa: S606
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        self.pid, self.fd = pid, fd
        self.output = ""

    def expect(self, pattern: str, timeout: float = 120) -> str:
        """Read until ``pattern`` (a regex) appears; the output up to its end."""
        deadline = time.monotonic() + timeout
        start = len(self.output) - 1 if self.output else 0
        while True:
            found = re.compile(pattern, re.S).search(self.output, max(0, start))
            if found:
                seen = self.output[: found.end()]
                self.output = self.output[found.end() :]
                return seen
            left = deadline - time.monotonic()
            assert left > 0, f"no {pattern!r} in {self.output[-2000:]!r}"
            ready, _, _ = select.select([self.fd], [], [], left)
            if ready:
                try:
                    chunk = os.read(self.fd, 65536)
                except OSError:  # the program ended and closed the terminal
                    chunk = b""
                if not chunk:
                    raise AssertionError(f"ended without {pattern!r}: {self.output[-2000:]!r}")
                self.output += chunk.decode("utf-8", "replace")

    def send(self, keys: str) -> None:
        """Type ``keys``."""
        os.write(self.fd, keys.encode())
        time.sleep(0.05)  # lets the line editor see each key apart

    def finish(self) -> int:
        """Read everything left and wait for the exit status."""
        while True:
            try:
                chunk = os.read(self.fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            self.output += chunk.decode("utf-8", "replace")
        _, status = os.waitpid(self.pid, 0)
        os.close(self.fd)
        return os.waitstatus_to_exitcode(status)

    def kill(self) -> None:
        """End the program if it still runs."""
        try:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass


def _last_screen(text: str) -> list[str]:
    """The lines of the last screen drawn (after the last clear), without
    colour and without the prompt line."""
    screen = text.rsplit("\x1b[2J", 1)[-1]
    return ANSI.sub("", screen).replace("\r", "").split("\n")[:-1]


def test_a_person_plays_on_a_terminal_and_leaves_with_ctrl_c(tmp_path: Path) -> None:
    save = tmp_path / "game.json"
    term = Terminal(
        "play", "--players", "2", "--seed", "4", "--bots", "random", "--save", str(save),
        cwd=tmp_path,
    )  # fmt: skip
    try:
        first = term.expect("your move> ")
        assert "\x1b[" in first, "a terminal gets colour"
        screen = _last_screen(first)
        assert len(screen) <= 23 and all(len(line) <= 80 for line in screen), screen
        assert screen[0].startswith("Round 1 · dealer you")
        # Piles go by their own numbers: a typed 1 is pile 1, never the first listed.
        assert any(line.startswith("discard ") and "0) pile 0 1) pile 1" in line for line in screen)
        # Typed with a slip mended by the arrow keys: "discad 0" -> "discard 0".
        term.send("discad 0" + LEFT * 3 + "r" + RIGHT * 3 + "\r")
        screen = _last_screen(term.expect("your move> "))
        assert "That is not a move" not in "\n".join(screen)
        assert any(line.startswith("Routes from ") for line in screen) or "take" in screen[-1]
        # An illegal move gets the engine's reason; the up arrow brings it back.
        term.send("bridge Macallan\r")
        refused = _last_screen(term.expect("your move> "))
        assert re.match(r"Not allowed: [A-Z]\d+: ", refused[-1]), refused
        term.send(UP + "\r")
        again = _last_screen(term.expect("your move> "))
        assert again[-1] == refused[-1]
        assert all(len(line) <= 80 for line in again) and len(again) <= 23
        term.send(CTRL_C)
        term.expect("Saved the game to")
        status = term.finish()
    finally:
        term.kill()
    assert status == 130
    assert "Traceback" not in term.output and "KeyboardInterrupt" not in term.output
    record = GameRecord.from_json(save.read_text(encoding="utf-8"))
    assert record.moves[0] == "discard 0" and record.seats == ("you", "random 1")
    assert record.result is None
    assert len(replay(record)) == len(record.moves) + 1


def test_ctrl_d_ends_the_game_cleanly_and_saves_it(tmp_path: Path) -> None:
    term = Terminal("play", "--players", "3", "--seed", "2", cwd=tmp_path)
    try:
        term.expect("your move> ")
        term.send(CTRL_D)
        term.expect("Saved the game to")
        status = term.finish()
    finally:
        term.kill()
    assert status == 0 and "Traceback" not in term.output
    saved = list(tmp_path.glob("troedler-game-*-seed2.json"))
    assert len(saved) == 1 and str(saved[0].name) in term.output
    assert GameRecord.from_json(saved[0].read_text(encoding="utf-8")).seats[0] == "you"


def test_a_whole_game_ends_with_a_table_naming_the_players(tmp_path: Path) -> None:
    played = play_game([GreedyBot(), RandomBot()], seed=4, max_rounds=100)
    states = replay(played.record)
    mine = [t for s, t in zip(states, played.record.moves, strict=False) if s.current_player == 0]
    save = tmp_path / "whole.json"
    done = subprocess.run(
        [sys.executable, "-m", "troedler", "play", "--players", "2", "--seed", "4",
         "--bots", "random", "--name", "Ada", "--save", str(save)],
        input="\n".join(mine) + "\n", capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    table = done.stdout.split("Game over after round")[1]
    assert re.search(r"^player\s+feed\s+goods\s+requests\s+damage\s+total\s+points", table, re.M)
    assert re.search(r"^Ada ", table, re.M) and re.search(r"^random 1 ", table, re.M)
    assert "damage: feed + half the goods" in table and "Winner: you" in table
    record = GameRecord.from_json(save.read_text(encoding="utf-8"))
    assert record.moves == played.record.moves and record.result == played.record.result
    assert record.seats == ("Ada", "random 1")


def test_replay_steps_back_and_jumps_on_a_terminal(tmp_path: Path) -> None:
    played = play_game([GreedyBot(), RandomBot(), RandomBot()], seed=5, max_rounds=2)
    path = tmp_path / "game.json"
    path.write_text(played.record.to_json())
    states = replay(played.record)
    last = len(states) - 1
    term = Terminal("replay", str(path), "--step", cwd=tmp_path)
    prompt = re.escape(PROMPT.rstrip())
    try:
        screen = _last_screen(term.expect(prompt))
        assert screen[0].startswith(f"Step 0/{last}")
        term.send("\r")
        term.send("\r")
        screen = _last_screen(term.expect(f"Step 2/{last}.*?{prompt}"))
        mover = states[1].current_player or 0
        assert f"After {played.record.seats[mover]}: {played.record.moves[1]}" in screen
        term.send("b\r")
        term.expect(f"Step 1/{last}.*?{prompt}")
        term.send("j 12\r")
        screen = _last_screen(term.expect(f"Step 12/{last}.*?{prompt}"))
        assert all(len(line) <= 80 for line in screen) and len(screen) <= 23
        carts = {line.split()[0]: line for line in screen if "@" in line}
        assert carts, "the villages show where the carts are"
        for seat, player in enumerate(states[12].players):
            assert any(re.search(rf"{player.cart}\s+\S+\s+@\d*{seat}", line) for line in screen), (
                seat,
                player.cart,
            )
        term.send("q\r")
        status = term.finish()
    finally:
        term.kill()
    assert status == 0


def _answer_until_others_move(term: Terminal) -> list[str]:
    """Play the person's first turn: a pile by its number, then end, then the
    discards; the screens seen, the last one the page of the others' moves."""
    seen = []
    while True:
        text = term.expect(r"your move> |\(Enter: to your move\) ")
        seen.append(text)
        if text.endswith("(Enter: to your move) "):
            return seen
        screen = _last_screen(text)
        take = next((line for line in screen if line.startswith("take ")), None)
        if take is not None:
            term.send(re.findall(r"(\d+)\) pile", take)[-1] + "\r")
        elif any(line.startswith("discard ") for line in screen):
            term.send("1\r")
        else:
            term.send("end\r")


def test_every_move_of_the_others_is_shown_and_history_shows_the_game(tmp_path: Path) -> None:
    save = tmp_path / "game.json"
    term = Terminal(
        "play", "--players", "4", "--seed", "3", "--bots", "random", "--save", str(save),
        cwd=tmp_path,
    )  # fmt: skip
    try:
        seen = _answer_until_others_move(term)
        # The screen said the discard rule before the first discard.
        screens = ["\n".join(_last_screen(text)) for text in seen]
        first_discard = next(s for s in screens if "\ndiscard " in s)
        assert "Over the hand limit (T7): you discard" in first_discard
        assert "only cards from the" in first_discard
        page = _last_screen(seen[-1] + "\n")
        term.send("\r")
        screen = _last_screen(term.expect("your move> "))
        assert "Since your last move: see above, or type 'history'" in " ".join(screen)
        term.send("history\r")
        history = ""
        while True:
            text = term.expect(r"\(Enter: more\) |\(Enter: back to the game\) ")
            history += ANSI.sub("", text)
            term.send("\r")
            if text.endswith("(Enter: back to the game) "):
                break
        term.expect("your move> ")
        term.send(CTRL_D)
        term.expect(r"Continue it with:\s+troedler play --resume ")
        assert term.finish() == 0
    finally:
        term.kill()
    record = GameRecord.from_json(save.read_text(encoding="utf-8"))
    states = replay(record)
    movers = [state.current_player for state in states[:-1]]
    mine = max(i for i, seat in enumerate(movers) if seat == 0 and i < len(movers) - 1)
    others = record.moves[mine + 1 :]
    assert len(others) > 6, "enough moves that two lines could not hold them"
    shown = " ".join(line.strip() for line in page)
    assert all(len(line) <= 80 for line in page)
    at = 0
    for move in others:  # every one, in order
        at = shown.index(str(move), at) + len(str(move))
    for number, move in enumerate(record.moves, 1):
        assert f"{number}.{move}" in history
    assert "Round 1 (dealer you)" in history


def test_a_screen_below_80_by_24_says_it_is_too_small(tmp_path: Path) -> None:
    term = Terminal(
        "play", "--players", "2", "--seed", "1", "--save", str(tmp_path / "g.json"), cwd=tmp_path
    )
    try:
        fcntl.ioctl(term.fd, termios.TIOCSWINSZ, struct.pack("HHHH", 20, 60, 0, 0))
        screen = _last_screen(term.expect("your move> "))
        text = " ".join(screen)
        assert "The screen is too small: 60x20; the game needs 80x24." in text
        assert "Aberlour" not in text and all(len(line) <= 60 for line in screen)
        fcntl.ioctl(term.fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        term.send("\r")
        # readline may draw its prompt again when the window grows: wait for the board.
        screen = _last_screen(term.expect(r"Round 1.*your move> "))
        assert screen[0].startswith("Round 1") and len(screen) <= 23
        term.send("quit\r")
        assert term.finish() == 0
    finally:
        term.kill()


def test_the_first_screen_shows_the_seed_and_how_to_get_help(tmp_path: Path) -> None:
    term = Terminal(
        "play", "--players", "2", "--seed", "4", "--save", str(tmp_path / "g.json"), cwd=tmp_path
    )
    try:
        screen = " ".join(" ".join(_last_screen(term.expect("your move> "))).split())
        assert "Game seed 4 ('--seed 4' deals this game again)." in screen
        assert "type 'help' to learn the moves" in screen
        term.send("help\r")
        shown = ANSI.sub("", term.expect(r"\(Enter: back to the game\) "))
        text = " ".join(shown.split())
        # E2: half the goods held, rounded up; E3 and E4: who suffers total damage.
        assert "half the goods still held, rounded up (E2)" in text
        assert "every two goods" not in text
        assert "with two, only a player with 3 or more damage above the other's (E4)" in text
        term.send("\rquit\r")
        assert term.finish() == 0
    finally:
        term.kill()


def test_a_terminal_that_reports_no_size_is_taken_as_80_by_24(tmp_path: Path) -> None:
    term = Terminal(
        "play", "--players", "2", "--seed", "1", "--save", str(tmp_path / "g.json"), cwd=tmp_path
    )
    try:
        fcntl.ioctl(term.fd, termios.TIOCSWINSZ, struct.pack("HHHH", 0, 0, 0, 0))
        screen = _last_screen(term.expect("your move> "))
        assert "too small" not in " ".join(screen)
        assert screen[0].startswith("Round 1") and len(screen) <= 23
        term.send("quit\r")
        assert term.finish() == 0
    finally:
        term.kill()


def test_save_refuses_an_existing_file_and_resume_continues_the_game(tmp_path: Path) -> None:
    save = tmp_path / "game.json"
    played = play_game([GreedyBot(), RandomBot()], seed=4, max_rounds=100)
    states = replay(played.record)
    mine = [t for s, t in zip(states, played.record.moves, strict=False) if s.current_player == 0]
    args = ["play", "--players", "2", "--seed", "4", "--bots", "random"]
    first = _run([*args, "--save", str(save)], "\n".join(mine[:5]) + "\nquit\n", tmp_path)
    assert first.returncode == 0
    assert f"troedler play --resume {save}" in first.stdout.replace(" \\\n  ", " ")
    kept = save.read_text(encoding="utf-8")
    again = _run([*args, "--save", str(save)], "quit\n", tmp_path)
    assert again.returncode == 2 and again.stdout == ""
    assert f"--save: {save} already exists; continue its game with 'troedler play --resume" in (
        again.stderr
    )
    assert save.read_text(encoding="utf-8") == kept
    resumed = _run(["play", "--resume", str(save)], "\n".join(mine[5:]) + "\n", tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    assert "Resumed the game of" in resumed.stdout and "Game over after round" in resumed.stdout
    record = GameRecord.from_json(save.read_text(encoding="utf-8"))
    assert record.moves == played.record.moves and record.result == played.record.result
    finished = _run(["play", "--load", str(save)], "", tmp_path)
    assert finished.returncode == 2 and "holds a finished game" in finished.stderr
    # A finished game cannot be resumed: --save says how to watch it instead.
    over = _run([*args, "--save", str(save)], "", tmp_path)
    assert over.returncode == 2 and "--resume" not in over.stderr
    assert f"holds a finished game; watch it with 'troedler replay {save}'" in over.stderr
    nowhere = _run([*args, "--save", str(tmp_path / "no" / "dir.json")], "", tmp_path)
    assert nowhere.returncode == 2 and "--save: cannot write" in nowhere.stderr
    assert "your move>" not in nowhere.stdout, "checked before the game starts"


BOTS_MODULE = """
class FirstMove:
    name = "first"

    def choose(self, observation, legal_moves, rng):
        return legal_moves[0]
"""


def test_play_takes_your_own_bots_as_simulate_does(tmp_path: Path) -> None:
    (tmp_path / "mybots.py").write_text(BOTS_MODULE)
    done = _run(["play", "--players", "3", "--bots", "mybots:FirstMove"], "quit\n", tmp_path)
    assert done.returncode == 0, done.stderr
    record = GameRecord.from_json(next(tmp_path.glob("troedler-game-*.json")).read_text())
    assert record.seats == ("you", "first 1", "first 2")
    for bad in ("mybots:Nothing", "nomodule:Bot", "greedy,,random"):
        play = _run(["play", "--bots", bad], "", tmp_path)
        simulate = _run(["simulate", "--games", "1", "--bots", bad], "", tmp_path)
        assert play.returncode == simulate.returncode == 2
        assert play.stderr == simulate.stderr and play.stderr.startswith("troedler: --bots: ")


def test_replay_into_a_pipe_closed_early_ends_quietly(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    path.write_text(play_game([GreedyBot(), RandomBot()], seed=4).record.to_json())
    pipe = subprocess.Popen(
        [sys.executable, "-m", "troedler", "replay", str(path)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path,
        env=dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p)),
    )  # fmt: skip
    assert pipe.stdout is not None and pipe.stderr is not None
    # Closed before the replay writes, as head closes it after its lines: the
    # whole replay (7 kB) fits a pipe's buffer, so a reader that first took a
    # line could close it only after the replay had written all and ended.
    pipe.stdout.close()
    errors = pipe.stderr.read()
    assert pipe.wait(timeout=120) == 141
    assert errors == b"", errors


def _run(args: list[str], stdin: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "troedler", *args], input=stdin, capture_output=True, text=True,
        timeout=300, check=False, cwd=cwd,
        env=dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p)),
    )  # fmt: skip


def test_a_typed_pile_number_takes_that_pile_never_the_first_listed(tmp_path: Path) -> None:
    save = tmp_path / "game.json"
    args = ["play", "--players", "2", "--seed", "4", "--bots", "random", "--save", str(save)]
    done = _run(args, "1\nhistory\nquit\n", tmp_path)
    assert done.returncode == 0, done.stderr
    record = GameRecord.from_json(save.read_text(encoding="utf-8"))
    assert record.moves[0] == "discard 1"
    assert "Round 1 (dealer you)\n  you: 1.discard 1" in done.stdout
