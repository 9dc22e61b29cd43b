"""Processes that play games for a run, watched so that no bot can hang it.

A host is a process that plays one game at a time and reports every move as
it is made. The pool keeps a deadline per busy host when there is a move
time limit: a host whose bot has not moved within the limit and a grace
second is killed, its game forfeited at that move, and a new host takes its
place. A host that dies on its own (a bot that crashed the interpreter)
forfeits its game the same way. Hosts ignore Ctrl-C, which the process
running the pool answers by closing it.

Hosts are forked or spawned with :mod:`multiprocessing` where that is
allowed; inside a Dask worker (a daemonic process, which may not have
multiprocessing children) they are started as ``python -m
troedler.simulation.host`` with a socket to talk over.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import pickle
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from multiprocessing.connection import Connection, wait
from typing import Any, Literal, cast

import attrs

from troedler.bots.base import Bot, BotFailure, check_bot, rounds_played
from troedler.core.chance import new_game
from troedler.core.errors import ConfigurationError
from troedler.core.state import GameState
from troedler.simulation.games import BotUnavailable, GameReport, GameSpec, play, stopped_report

__all__ = ["GamePool", "play_batch", "serve", "sigint_blocked"]

GRACE = 1.0
"""Seconds a host may run past the move time limit before it is killed: its
own measurement reports a bot that returns late, the kill is for one that
does not return."""

BUILD_ALLOWANCE = 60.0
"""Seconds a host may take to make a game's bots, on top of the move time limit."""

Start = Literal["process", "command"]

Makers = Mapping[str, Callable[[], Bot]]


@contextlib.contextmanager
def sigint_blocked() -> Iterator[None]:
    """Hold back Ctrl-C for the block: it arrives, as KeyboardInterrupt, right after."""
    if not hasattr(signal, "pthread_sigmask"):  # not on every platform
        yield
        return
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def serve(conn: Connection, makers: Makers, move_time_limit: float | None) -> None:
    """A host's life: play each game it is sent until the pool closes the connection."""
    # Ctrl-C in a terminal reaches every process of the group; the pool's
    # owner answers it. Hosts start with it held back (sigint_blocked).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    _exit_with_parent()

    def report_move(notation: str, state: GameState) -> None:
        conn.send(("move", notation, state.round, rounds_played(state), state.current_player))

    def report_start(names: tuple[str, ...]) -> None:
        conn.send(("begin", names))

    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):
            return
        spec: GameSpec = message[1]
        try:
            report = play(spec, makers, move_time_limit, report_move, report_start)
        except BotUnavailable as error:
            conn.send(("unavailable", str(error)))
            continue
        conn.send(("done", report))


def _exit_with_parent() -> None:
    # A host stuck in a bot's endless move never reads again, so it would not
    # notice its pool's end; this thread does.
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(1)

    threading.Thread(target=watch, name="troedler-host-watch", daemon=True).start()


class _Host:
    """One host process and the connection to it."""

    def __init__(self, makers: Makers, move_time_limit: float | None, start: Start) -> None:
        if start == "process":
            ours, theirs = multiprocessing.Pipe()
            process = multiprocessing.Process(
                target=serve, args=(theirs, makers, move_time_limit), daemon=True
            )
            with sigint_blocked():
                process.start()
            theirs.close()
            self.conn = ours
            self._process: multiprocessing.Process | None = process
            self._command: subprocess.Popen[bytes] | None = None
            return
        mine, child = socket.socketpair()
        paths = [path or os.getcwd() for path in sys.path]
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(paths))
        with sigint_blocked():
            self._command = subprocess.Popen(  # noqa: S603 - our own interpreter and module
                [sys.executable, "-m", "troedler.simulation.host", str(child.fileno())],
                pass_fds=(child.fileno(),),
                env=env,
            )
        child.close()
        self._process = None
        self.conn = Connection(mine.detach())
        self.conn.send_bytes(_dumps((dict(makers), move_time_limit)))

    def kill(self) -> int | None:
        """Stop the host at once; its exit code."""
        self.conn.close()
        if self._process is not None:
            self._process.kill()
            self._process.join(5)
            return self._process.exitcode
        assert self._command is not None
        self._command.kill()
        try:
            return self._command.wait(5)
        except subprocess.TimeoutExpired:
            return None


def _dumps(value: Any) -> bytes:
    # Dask sends bots with cloudpickle, which also takes classes defined in
    # a script or notebook; plain pickle reads what it writes.
    try:
        import cloudpickle  # type: ignore[import-untyped, import-not-found, unused-ignore]  # noqa: PLC0415 - present wherever Dask is
    except ImportError:
        return pickle.dumps(value)
    return cloudpickle.dumps(value)  # type: ignore[no-any-return]


@attrs.define
class _Game:
    """What the pool knows of a game a host is playing."""

    spec: GameSpec
    deadline: float | None
    names: tuple[str, ...] | None = None
    moves: list[str] = attrs.Factory(list)
    round: int = 1
    rounds: int = 0
    seat: int | None = None


class GamePool:
    """``size`` host processes playing games with the bots of ``makers``."""

    def __init__(
        self,
        size: int,
        makers: Makers,
        move_time_limit: float | None = None,
        start: Start = "process",
    ) -> None:
        self._makers = makers
        self._limit = move_time_limit
        self._start = start
        self._idle = [self._new_host() for _ in range(size)]
        self._busy: dict[Connection, tuple[_Host, _Game]] = {}

    def _new_host(self) -> _Host:
        return _Host(self._makers, self._limit, self._start)

    def play(self, specs: Sequence[GameSpec]) -> Iterator[GameReport]:
        """Play ``specs``; each report as its game ends (in the order they end)."""
        pending = deque(specs)
        while pending or self._busy:
            while pending and self._idle:
                self._assign(self._idle.pop(), pending.popleft())
            ready = cast(list[Connection], wait(list(self._busy), self._timeout()))
            for conn in ready:
                host, game = self._busy[conn]
                try:
                    message: Any = conn.recv()
                except (EOFError, OSError):
                    code = self._retire(conn)
                    yield self._stopped(game, "crashed", _crash_detail(code))
                    continue
                kind = message[0]
                if kind == "move":
                    _, notation, game.round, game.rounds, game.seat = message
                    game.moves.append(notation)
                    game.deadline = self._move_deadline()
                elif kind == "begin":
                    game.names = message[1]
                    game.deadline = self._move_deadline()
                elif kind == "done":
                    del self._busy[conn]
                    self._idle.append(host)
                    yield message[1]
                else:
                    raise BotUnavailable(message[1])
            now = time.monotonic()
            for conn, (_, game) in list(self._busy.items()):
                if game.deadline is not None and now >= game.deadline:
                    self._retire(conn)
                    yield self._stopped(
                        game,
                        "slow",
                        f"did not move within the limit of {self._limit:g} s; "
                        "its game's process was stopped",
                    )

    def _assign(self, host: _Host, spec: GameSpec) -> None:
        deadline = None
        if self._limit is not None:
            deadline = time.monotonic() + BUILD_ALLOWANCE + self._limit + GRACE
        try:
            host.conn.send(("game", spec))
        except OSError:  # the host died while idle: take a new one
            host.kill()
            host = self._new_host()
            host.conn.send(("game", spec))
        self._busy[host.conn] = (host, _Game(spec, deadline))

    def _move_deadline(self) -> float | None:
        if self._limit is None:
            return None
        return time.monotonic() + self._limit + GRACE

    def _timeout(self) -> float | None:
        deadlines = [game.deadline for _, game in self._busy.values() if game.deadline is not None]
        if not deadlines:
            return None
        return max(0.0, min(deadlines) - time.monotonic())

    def _retire(self, conn: Connection) -> int | None:
        """Kill the host behind ``conn`` and put a new one in its place; its exit code."""
        host, _ = self._busy.pop(conn)
        code = host.kill()
        self._idle.append(self._new_host())
        return code

    def _stopped(self, game: _Game, kind: Literal["slow", "crashed"], detail: str) -> GameReport:
        spec = game.spec
        seat = game.seat
        if seat is None:
            seat = new_game(len(spec.seats), seed=spec.seed).current_player or 0
        names = game.names or tuple(_name(self._makers, label) for label in spec.seats)
        failure = BotFailure(seat, names[seat], len(game.moves), game.round, kind, detail)
        return stopped_report(spec, game.moves, game.rounds, failure, names)

    def close(self) -> None:
        """Stop every host."""
        for host in self._idle:
            host.kill()
        for host, _ in self._busy.values():
            host.kill()
        self._idle.clear()
        self._busy.clear()


def _name(makers: Makers, label: str) -> str:
    try:
        return check_bot(makers[label]())
    except ConfigurationError:
        return label[:60]


def _crash_detail(code: int | None) -> str:
    if code is not None and code < 0:
        try:
            how = f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            how = f"was killed by signal {-code}"
    else:
        how = f"ended with exit code {code}"
    return f"its game's process {how} in the middle of the move"


_local = threading.local()


def play_batch(
    run: str, makers: Makers, specs: Sequence[GameSpec], move_time_limit: float | None
) -> list[GameReport]:
    """Play ``specs`` where this is called (a Dask task); the reports in game order.

    With a move time limit the games are played by a host process of this
    thread, kept for the next batch of the same ``run``.
    """
    if move_time_limit is None:
        return [play(spec, makers) for spec in specs]
    kept: tuple[str, GamePool] | None = getattr(_local, "pool", None)
    if kept is None or kept[0] != run:
        if kept is not None:
            kept[1].close()
        kept = (run, GamePool(1, makers, move_time_limit, start="command"))
        _local.pool = kept
    reports = list(kept[1].play(specs))
    reports.sort(key=lambda report: report.index)
    return reports
