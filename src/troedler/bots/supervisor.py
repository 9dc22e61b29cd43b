"""Runs a bot's program so that nothing it starts outlives its game.

``python -I -S supervisor.py LIFELINE PROGRAM [ARG ...]``: started by
:class:`~troedler.bots.program.ProgramBot` in a session of its own, with the
program's pipes as its standard streams and ``LIFELINE``, the reading end
of a pipe whose writing end only the host holds. It starts the program in
a process group of its own, lets go of the pipes, and waits. When the
program ends, or the host closes the lifeline or dies in any way (even
killed with SIGKILL, when it can clean nothing up itself), the supervisor
kills the program's whole process group, and on Linux also every process
the program started that left the group (it is their subreaper), then
exits as the program did.

It imports nothing of troedler, so that it starts in milliseconds.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import sys
import time
from pathlib import Path

_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36
ENDING = 5.0
"""Seconds the supervisor spends at most ending the program and its orphans."""


def _prctl() -> object:
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes  # noqa: PLC0415 - only on Linux, and only here

        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError, ImportError):
        return None


def _children() -> list[int]:
    """This process's children (orphans it adopted as subreaper included); Linux only."""
    found: list[int] = []
    with contextlib.suppress(OSError):
        for task in Path(f"/proc/{os.getpid()}/task").iterdir():
            with contextlib.suppress(OSError, ValueError):
                found += [int(pid) for pid in (task / "children").read_text().split()]
    return found


def _end(program: int) -> None:
    """Kill the program's group, then every process adopted since, and reap them all."""
    with contextlib.suppress(OSError):
        os.killpg(program, signal.SIGKILL)
    # A process's orphans are adopted by the time it can be reaped, so
    # reaping every child until none is left finds every orphan too.
    deadline = time.monotonic() + ENDING
    while time.monotonic() < deadline:
        for pid in _children():
            # An orphan may lead a group or session of its own: end that too.
            with contextlib.suppress(OSError):
                os.killpg(pid, signal.SIGKILL)
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            time.sleep(0.005)


def _start(argv: list[str], lifeline: int, prctl: object) -> int:
    program = os.fork()
    if program == 0:  # the program's side: its own group, then the program
        try:
            os.close(lifeline)
            os.setpgid(0, 0)
            if callable(prctl):
                # Killed with the supervisor too, should that be killed itself.
                prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
            for number in (signal.SIGTERM, signal.SIGHUP, signal.SIGPIPE):
                signal.signal(number, signal.SIG_DFL)
            os.execv(argv[0], argv)  # noqa: S606 - the user's own program, no shell
        except OSError as error:
            os.write(2, f"cannot run {argv[0][:200]!r}: {error.strerror}\n".encode())
        os._exit(127)
    with contextlib.suppress(OSError):  # the child may have done it already
        os.setpgid(program, program)
    return program


def main(argv: list[str]) -> int:
    """Run the program ``argv[1:]`` watched over lifeline ``argv[0]``; its exit status."""
    lifeline = int(argv[0])
    prctl = _prctl()
    if callable(prctl):
        prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    program = _start(argv[1:], lifeline, prctl)
    # The pipes are the program's: they must close when it ends.
    nowhere = os.open(os.devnull, os.O_RDWR)
    for stream in (0, 1, 2):
        os.dup2(nowhere, stream)

    def stop(number: int, frame: object) -> None:
        _end(program)
        os._exit(128 + number)

    for number in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(number, stop)
    watched = [lifeline]
    try:
        watched.append(os.pidfd_open(program))
        poll = None
    except (AttributeError, OSError):  # not Linux 5.3 or later: look now and then
        poll = 0.05
    while True:
        ready, _, _ = select.select(watched, [], [], poll)
        if lifeline in ready:  # the host closed it, or died
            _end(program)
            return 128 + signal.SIGKILL
        pid, status = os.waitpid(program, os.WNOHANG)
        if pid == program:
            _end(program)
            return _as_exit(status)


def _as_exit(status: int) -> int:
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        # Die of the same signal, so that the host reads the program's end.
        signal.signal(number, signal.SIG_DFL)
        os.kill(os.getpid(), number)
        return 128 + number
    return os.waitstatus_to_exitcode(status)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
