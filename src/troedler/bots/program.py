"""Bots that are programs in any language, playing over stdin and stdout.

The host starts the program once per game and speaks the line-based JSON
protocol of ``docs/protocol.md`` with it: a handshake, one ``move`` request
per decision (the seat's observation, the legal moves in notation, the
seconds left), one ``end`` message with the result. A program that
crashes, answers something that is not one of the legal moves, prints
garbage or runs out of time makes :meth:`ProgramBot.choose` raise
:class:`ProgramFailed`, which :func:`~troedler.bots.play_game` with
``forfeit=True`` (as every tournament plays) turns into a forfeit of that
game with the reason.

Nothing the program does can make the host wait past the time it was
given, or hold more of its output than :data:`MAX_LINE` (an answer) and
:data:`MAX_STDERR` (its diagnostics, the last part kept) in memory. The
program runs in a process group of its own, with its address space capped,
no core files, and (on Linux) killed with the process that started it; it
is killed, group and all, when its game ends. It is not a sandbox: it runs
as you, in your working directory, and may write what you may write. Run
programs you do not trust in a container.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import random
import select
import shlex
import shutil
import signal
import subprocess
import sys
import time
import weakref
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from troedler.bots.base import MAX_BOT_NAME, BotFailed, FailureKind, _bounded
from troedler.core.cards import UNKNOWN, Card
from troedler.core.errors import ConfigurationError
from troedler.core.moves import Move
from troedler.core.scoring import Outcome
from troedler.seat import Observation

__all__ = [
    "MAX_LINE",
    "MAX_STDERR",
    "PROTOCOL_VERSION",
    "ProgramBot",
    "ProgramFailed",
    "observation_to_data",
    "program_bot",
]

PROTOCOL_VERSION = 1
"""The version of the protocol this host speaks; the handshake names it."""

MAX_LINE = 64 * 1024
"""Longest line a program may send, in bytes: a longer one is garbage."""

MAX_STDERR = 64 * 1024
"""Bytes of a program's stderr kept per game: the last ones."""

MOVE_TIME = 5.0
"""Seconds a program has for each move unless told otherwise."""

START_TIME = 10.0
"""Seconds a program has to start and answer the handshake."""

END_TIME = 1.0
"""Seconds a program has to exit by itself after the game's ``end`` message."""

MEMORY = 2 * 1024**3
"""The program's address space cap in bytes (2 GiB; Node.js runs in it)."""

SUPERVISOR = str(Path(__file__).with_name("supervisor.py"))
"""The script each program runs under (:mod:`troedler.bots.supervisor`)."""


class ProgramFailed(BotFailed):
    """A program that did not make its move: it forfeits its game."""


def _limits(memory: int | None) -> None:
    """Run in the supervisor's process between fork and exec; the program inherits it."""
    import resource  # noqa: PLC0415 - Unix only, like the rest of this function

    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if memory is not None:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))


def program_bot(text: str) -> ProgramBot:
    """The bot of an ``exec:`` text's rest: ``COMMAND`` or ``SECONDS:COMMAND``.

    ``COMMAND`` is split into the program and its arguments as a shell
    would (``python3 mybot.py --depth 2``) but no shell runs it.
    ``SECONDS`` is the time for each move (default 5 s, or the host's move
    time limit when it has one).
    """
    seconds, colon, command = text.partition(":")
    move_time = None
    if colon and _is_number(seconds):
        move_time = float(seconds)
    else:
        command = text
    return ProgramBot(command, move_time=move_time)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _shown(data: bytes | str, limit: int = 60) -> str:
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    return repr(_bounded(text, limit))


class ProgramBot:
    """A program that plays by the protocol; started when the bot is made.

    ``command`` is the program and its arguments, as a list or as one text
    split the way a shell splits it. ``move_time`` is the seconds it has
    for each move (default :data:`MOVE_TIME`, or the move time limit of the
    game, see :meth:`limit_move_time`), ``memory`` its address space in
    bytes (None: no cap).
    Making the bot starts the program and reads its handshake; a program
    that cannot be started raises :class:`ConfigurationError`, one that
    fails the handshake forfeits at its first move. Its seat in a record is
    named after the name its handshake gives.
    """

    def __init__(
        self,
        command: str | Sequence[str],
        *,
        move_time: float | None = None,
        memory: int | None = MEMORY,
    ) -> None:
        argv = shlex.split(command) if isinstance(command, str) else list(command)
        shown = _shown(" ".join(argv) if argv else "", 80)
        if not argv or not all(isinstance(arg, str) and arg for arg in argv):
            raise ConfigurationError(f"exec: a program to run is needed, got {shown}")
        self._own_time = move_time
        move_time = MOVE_TIME if move_time is None else move_time
        if not (math.isfinite(move_time) and move_time > 0):
            raise ConfigurationError(f"exec: the move time must be positive, not {move_time}")
        found = shutil.which(argv[0])
        if found is None:
            raise ConfigurationError(
                f"exec: cannot run {_shown(argv[0])}: no such executable program"
            )
        self.command = tuple(argv)
        """The program and its arguments."""
        self.move_time = move_time
        """Seconds the program has for each move."""
        self.memory = memory
        """The program's address space cap in bytes, or None."""
        self._name = _bounded(Path(argv[0]).name or "program", MAX_BOT_NAME)
        self._stderr = bytearray()
        self._pending = bytearray()
        self._broken: tuple[FailureKind, str] | None = None
        self._ended = False
        # The program runs under a supervisor that kills its whole process
        # group when the game ends, or as soon as this end of the lifeline
        # closes: also when this process dies without cleaning up.
        lifeline, self._lifeline = os.pipe()
        try:
            self._process: subprocess.Popen[bytes] = subprocess.Popen(  # noqa: S603 - the user's own program, no shell
                [sys.executable, "-I", "-S", SUPERVISOR, str(lifeline), found, *argv[1:]],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                pass_fds=(lifeline,),
                start_new_session=True,
                preexec_fn=lambda: _limits(memory),  # noqa: PLW1509 - only async-safe calls
            )
        except OSError as error:
            os.close(self._lifeline)
            raise ConfigurationError(
                f"exec: cannot run {_shown(argv[0])}: {error.strerror or error}"
            ) from None
        finally:
            os.close(lifeline)
        assert self._process.stdin and self._process.stdout and self._process.stderr
        for stream in (self._process.stdin, self._process.stdout, self._process.stderr):
            os.set_blocking(stream.fileno(), False)
        self._finalizer = weakref.finalize(self, _kill, self._process, self._lifeline)
        self._handshake()

    @property
    def name(self) -> str:
        """The name the program gave in its handshake (else its file's name)."""
        return self._name

    @property
    def stderr(self) -> str:
        """What the program wrote to stderr in this game: the last :data:`MAX_STDERR` bytes."""
        self._drain_stderr()
        return self._stderr.decode("utf-8", "replace")

    @property
    def pid(self) -> int:
        """The process id of the program's supervisor, which the program runs under."""
        return self._process.pid

    def __repr__(self) -> str:
        return f"ProgramBot({shlex.join(self.command)!r}, move_time={self.move_time:g})"

    def limit_move_time(self, seconds: float) -> None:
        """Take a game's move time limit: it replaces the default time, and a
        time the program was given is cut down to it."""
        own = self._own_time
        self.move_time = seconds if own is None else min(own, seconds)

    def __reduce__(self) -> tuple[Any, ...]:
        # A copy (a tournament copies a bot object for every game, in
        # whichever process plays it) is the same program started afresh.
        return (_restart, (self.command, self._own_time, self.memory))

    # --- the protocol ------------------------------------------------------

    def _handshake(self) -> None:
        try:
            self._send({"type": "hello", "protocol": PROTOCOL_VERSION}, START_TIME)
            answer = self._receive(time.monotonic() + START_TIME, "the handshake", START_TIME)
            if answer.get("type") != "hello":
                raise ProgramFailed(
                    "illegal",
                    f"expected a hello answer, got type {_shown(str(answer.get('type')))}",
                )
            if answer.get("protocol") != PROTOCOL_VERSION:
                raise ProgramFailed(
                    "illegal",
                    f"speaks protocol {_shown(str(answer.get('protocol')))}, "
                    f"the host speaks {PROTOCOL_VERSION}",
                )
            name = answer.get("name")
            if (
                not isinstance(name, str)
                or not 0 < len(name) <= MAX_BOT_NAME
                or not name.isprintable()
            ):
                raise ProgramFailed(
                    "illegal", f"needs a name of 1 to {MAX_BOT_NAME} printable characters"
                )
            self._name = name
        except ProgramFailed as failure:
            self._broken = (failure.kind, str(failure))
            self._kill()

    def choose(
        self, observation: Observation, legal_moves: Sequence[Move], rng: random.Random
    ) -> Move:
        """The move the program answers; :class:`ProgramFailed` if it does not give one.

        ``rng`` is not used: a program draws its own chance (seed it from
        the observation's fields to replay games exactly).
        """
        if self._broken is not None:
            raise ProgramFailed(*self._broken)
        if self._pending:
            detail = f"sent {_shown(bytes(self._pending))} unasked"
            self._broken = ("illegal", detail)
            self._kill()
            raise ProgramFailed("illegal", detail)
        notations = [str(move) for move in legal_moves]
        started = time.monotonic()
        deadline = started + self.move_time
        try:
            self._send(
                {
                    "type": "move",
                    "observation": observation_to_data(observation),
                    "legal_moves": notations,
                    "time_left": round(self.move_time, 3),
                },
                self.move_time,
            )
            answer = self._receive(deadline, "its move", self.move_time)
            text = answer.get("move")
            if answer.get("type") != "move" or not isinstance(text, str):
                raise ProgramFailed("illegal", 'expected {"type": "move", "move": TEXT}')
            wanted = " ".join(text.split()).lower()
            for notation, move in zip(notations, legal_moves, strict=True):
                if notation.lower() == wanted:
                    return move
            raise ProgramFailed("illegal", f"answered {_shown(text)}, which is not a legal move")
        except ProgramFailed as failure:
            self._broken = (failure.kind, str(failure))
            self._kill()
            raise ProgramFailed(failure.kind, self._with_stderr(str(failure))) from None
        except BaseException:  # Ctrl-C, or a bug here: the program must not outlive it
            self._kill()
            raise

    def game_over(self, result: Outcome | None, reason: str) -> None:
        """Tell the program the game is over and how, then let it exit (or kill it)."""
        if self._ended:
            return
        self._ended = True
        if self._broken is None and self._process.poll() is None:
            message: dict[str, Any] = {"type": "end", "reason": reason, "result": None}
            if result is not None:
                message["result"] = {
                    "points": list(result.points),
                    "damage": list(result.damage),
                    "totally_damaged": sorted(result.totally_damaged),
                    "winners": sorted(result.winners),
                }
            with contextlib.suppress(ProgramFailed):
                self._send(message, END_TIME)
            with contextlib.suppress(OSError):
                assert self._process.stdin is not None
                self._process.stdin.close()
            # What it writes now is not read: a program that floods its
            # output blocks on the full pipe and is killed below.
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._process.wait(END_TIME)
        self._kill()

    def close(self) -> None:
        """Kill the program and its process group now (once its game is over)."""
        self._ended = True
        self._kill()

    # --- bounded input and output -----------------------------------------

    def _send(self, message: dict[str, Any], seconds: float) -> None:
        data = (json.dumps(message, separators=(",", ":")) + "\n").encode()
        stdin = self._process.stdin
        assert stdin is not None
        deadline = time.monotonic() + seconds
        view = memoryview(data)
        while view:
            self._drain_stderr()
            left = deadline - time.monotonic()
            if left <= 0:
                raise ProgramFailed("slow", f"did not read its input within {seconds:g} s")
            try:
                written = os.write(stdin.fileno(), view)
            except BlockingIOError:
                select.select([self._fd(self._process.stderr)], [stdin.fileno()], [], left)
                continue
            except (BrokenPipeError, OSError):
                raise ProgramFailed("crashed", self._exit_detail()) from None
            view = view[written:]

    def _receive(self, deadline: float, what: str, seconds: float) -> dict[str, Any]:
        stdout = self._process.stdout
        assert stdout is not None
        while True:
            end = self._pending.find(b"\n", 0, MAX_LINE + 1)
            if end >= 0:
                line = bytes(self._pending[:end])
                del self._pending[: end + 1]
                return _decode(line)
            if len(self._pending) > MAX_LINE:
                raise ProgramFailed(
                    "illegal", f"sent a line longer than {MAX_LINE} bytes (garbage)"
                )
            if time.monotonic() >= deadline:
                half = f" (half a line: {_shown(bytes(self._pending))})" if self._pending else ""
                raise ProgramFailed("slow", f"did not answer {what} within {seconds:g} s{half}")
            self._wait_readable(deadline)
            try:
                chunk = os.read(stdout.fileno(), MAX_LINE + 2)
            except BlockingIOError:
                continue
            if not chunk:
                raise ProgramFailed("crashed", self._exit_detail())
            self._pending += chunk

    def _wait_readable(self, deadline: float) -> None:
        streams = [self._fd(self._process.stdout), self._fd(self._process.stderr)]
        select.select(streams, [], [], max(0.0, deadline - time.monotonic()))
        self._drain_stderr()

    @staticmethod
    def _fd(stream: Any) -> int:
        assert stream is not None  # the pipes are made with the process
        return int(stream.fileno())

    def _drain_stderr(self) -> None:
        stderr = self._process.stderr
        if stderr is None or stderr.closed:
            return
        for _ in range(64):  # bounded work per call; what is left waits in the pipe
            try:
                chunk = os.read(stderr.fileno(), 65536)
            except (BlockingIOError, OSError):
                return
            if not chunk:
                return
            self._stderr += chunk
            if len(self._stderr) > MAX_STDERR:
                del self._stderr[: len(self._stderr) - MAX_STDERR]

    def _exit_detail(self) -> str:
        try:
            code = self._process.wait(0.5)
        except subprocess.TimeoutExpired:
            return "closed its output in the middle of the game"
        if code < 0:
            try:
                return f"was killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"was killed by signal {-code}"
        return f"exited with code {code}"

    def _with_stderr(self, detail: str) -> str:
        lines = self.stderr.strip().splitlines()
        if not lines:
            return detail
        return _bounded(f"{detail}; stderr: {lines[-1].strip()}", 200)

    def _kill(self) -> None:
        self._drain_stderr()
        self._finalizer()


def _restart(command: tuple[str, ...], move_time: float | None, memory: int | None) -> ProgramBot:
    return ProgramBot(command, move_time=move_time, memory=memory)


def _decode(line: bytes) -> dict[str, Any]:
    try:
        value = json.loads(line)
    except (ValueError, RecursionError):
        raise ProgramFailed("illegal", f"sent {_shown(line)}, which is not JSON") from None
    if not isinstance(value, dict):
        raise ProgramFailed("illegal", f"sent {_shown(line)}, which is not a JSON object")
    return value


def _kill(process: subprocess.Popen[bytes], lifeline: int) -> None:
    """End the program and all it started, through its supervisor; reap it, close its pipes."""
    with contextlib.suppress(OSError):
        os.close(lifeline)  # the supervisor kills the program's group and exits
    try:
        process.wait(5)
    except subprocess.TimeoutExpired:  # a supervisor stopped from outside: the last resort
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(5)
    for stream in (process.stdin, process.stdout, process.stderr):
        if stream is not None:
            with contextlib.suppress(OSError):
                stream.close()


def observation_to_data(observation: Observation) -> dict[str, Any]:
    """What a seat knows, as the JSON data the protocol sends (``docs/protocol.md``).

    The field names are those of a state in ``docs/format.md``; a card or
    hand the seat does not know is ``null``, and the sizes of hands and
    value piles are given always.

    >>> from troedler import new_game, observe
    >>> data = observation_to_data(observe(new_game(2, seed=1), 0))
    >>> data["seat"], data["phase"], len(data["players"]), data["players"][1]["hand_size"]
    (0, 'take_piles', 2, 3)
    """
    o = observation
    board = o.board

    def codes(cards: Sequence[Card]) -> list[str | None]:
        return [None if card is UNKNOWN else str(card) for card in cards]

    turn = o.turn
    return {
        "protocol": PROTOCOL_VERSION,
        "seat": o.seat,
        "recall": o.recall,
        "round": o.round,
        "dealer": o.dealer,
        "phase": o.phase.name.lower(),
        "current_player": o.current_player,
        "shuffles": o.shuffles,
        "game_round_pile_size": len(o.game_round_pile),
        "dealer_piles": [None if pile is None else codes(pile) for pile in o.dealer_piles],
        "discard_pile": codes(o.discard_pile.cards),
        "village_goods": {
            village.name: str(goods)
            for village, goods in zip(board.villages, o.village_goods, strict=True)
        },
        "players": [
            {
                "cart": player.cart,
                "goods": str(player.goods),
                "hand": codes(player.hand) if o.knows_hand(seat) else None,
                "hand_size": len(player.hand),
                "value_pile": codes(player.value_pile) if o.knows_hand(seat) else None,
                "value_pile_size": len(player.value_pile),
            }
            for seat, player in enumerate(o.players)
        ],
        "turn": {
            "played": codes(turn.played),
            "delivered_to": list(turn.delivered_to),
            "discards_due": turn.discards_due,
            "last_discard": None if turn.last_discard is None else str(turn.last_discard),
        },
    }
