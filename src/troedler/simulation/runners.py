"""Where a run's games are played: this process, local worker processes, or Dask.

Every runner yields each game's report as the game ends. Local workers are
host processes (:mod:`troedler.simulation.processes`); on a Dask cluster the
games go out in small batches, one task each.
"""

from __future__ import annotations

import asyncio
import os
import re
import time
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from troedler.bots.base import Bot, describe_error
from troedler.core.errors import ConfigurationError
from troedler.simulation.games import BotUnavailable, GameReport, GameSpec, play
from troedler.simulation.processes import GamePool, play_batch

__all__ = ["check_scheduler_address", "connect", "run_games"]

CONNECT_TIMEOUT = 10.0
"""Seconds to wait for a Dask scheduler to answer."""

_ADDRESS = re.compile(r"(?:(?:tcp|tls|ws|wss|ucx)://)?(\[[0-9A-Fa-f:.]+\]|[\w.-]+):(\d{1,5})\Z")


def run_games(
    specs: Sequence[GameSpec],
    makers: Mapping[str, Callable[[], Bot]],
    *,
    workers: int = 1,
    scheduler: str | None = None,
    move_time_limit: float | None = None,
) -> Iterator[GameReport]:
    """Play ``specs``; each report as its game ends.

    On the Dask cluster at ``scheduler``, else in ``workers`` local
    processes; with one worker and no move time limit, in this process.
    """
    if scheduler is not None:
        yield from _on_dask(specs, makers, scheduler, move_time_limit)
        return
    if workers <= 1 and move_time_limit is None:
        for spec in specs:
            yield play(spec, makers)
        return
    if not specs:
        return
    try:
        pool = GamePool(min(workers, len(specs)), makers, move_time_limit)
    except (OSError, TypeError, AttributeError, ValueError) as error:  # pickling, mostly
        raise ConfigurationError(
            f"cannot start worker processes for these bots: {describe_error(error)}"
        ) from None
    try:
        yield from pool.play(specs)
    finally:
        pool.close()


def check_scheduler_address(address: str) -> str:
    """``address`` if it can be a Dask scheduler's address, else a ConfigurationError."""
    shown = repr(address[:80] + ("..." if len(address) > 80 else ""))
    if re.match(r"https?://", address, flags=re.IGNORECASE):
        raise ConfigurationError(
            f"{shown} is a web address, not a Dask scheduler's: use tcp://HOST:PORT, "
            "as `dask scheduler` prints it (port 8786 by default; 8787 is its dashboard)"
        )
    found = _ADDRESS.match(address.strip())
    if found is None or not 0 < int(found.group(2)) < 65536:
        raise ConfigurationError(
            f"{shown} is not a Dask scheduler address: expected tcp://HOST:PORT"
        )
    return address.strip()


def connect(address: str, timeout: float = CONNECT_TIMEOUT) -> Any:
    """A Dask ``Client`` of the scheduler at ``address``, or a ConfigurationError
    within ``timeout`` seconds saying why not."""
    address = check_scheduler_address(address)
    try:
        from distributed import Client  # noqa: PLC0415 - optional
    except ImportError:
        raise ConfigurationError(
            "running on a Dask scheduler needs Dask distributed: pip install -e '.[dask]'"
        ) from None
    # The probe has its own event loop in its own thread, so that it works
    # where a loop already runs (a notebook) and stops when time is up
    # (a Client alone waits forever on a port that answers but is not Dask).
    with ThreadPoolExecutor(1) as thread:
        reply = thread.submit(asyncio.run, _identity(address, timeout)).result()
    if isinstance(reply, ConfigurationError):
        raise reply
    try:
        return Client(address, timeout=f"{timeout}s", set_as_default=False)
    except (OSError, TimeoutError) as error:
        raise ConfigurationError(
            f"cannot reach a Dask scheduler at {address}: {describe_error(error)}"
        ) from None


async def _identity(address: str, timeout: float) -> ConfigurationError | None:
    from distributed.comm import connect as open_comm  # noqa: PLC0415 - optional

    started = time.monotonic()
    found = _ADDRESS.match(address)
    assert found is not None  # checked by check_scheduler_address
    host, port = found.group(1).strip("[]"), int(found.group(2))
    if not address.startswith("ucx://"):
        # A plain connection first: a closed port is an answer at once,
        # where Dask would try again until the time is up.
        try:
            _, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout)
        except TimeoutError:
            return ConfigurationError(f"nothing answered at {address} within {timeout:g} s")
        except OSError as error:
            reason = os.strerror(error.errno) if error.errno else str(error)
            return ConfigurationError(f"cannot reach a Dask scheduler at {address}: {reason}")
        writer.close()

    async def ask() -> Any:
        comm = await open_comm(address, timeout=timeout)
        try:
            await comm.write({"op": "identity", "reply": True})
            return await comm.read()
        finally:
            comm.abort()

    left = max(0.1, timeout - (time.monotonic() - started))
    try:
        reply = await asyncio.wait_for(ask(), left)
    except TimeoutError:
        reply = "no reply"
    except Exception as error:  # reset, or not speaking Dask's protocol
        reply = type(error).__name__
    if not (isinstance(reply, dict) and reply.get("type") == "Scheduler"):
        why = f"no reply within {timeout:g} s" if reply == "no reply" else "it replied otherwise"
        return ConfigurationError(f"{address} answers, but not as a Dask scheduler ({why})")
    return None


def _on_dask(
    specs: Sequence[GameSpec],
    makers: Mapping[str, Callable[[], Bot]],
    address: str,
    move_time_limit: float | None,
) -> Iterator[GameReport]:
    from distributed import as_completed  # noqa: PLC0415 - optional

    client = connect(address)
    futures: list[Any] = []
    try:
        slots = max(1, sum(client.nthreads().values()))
        size = max(1, min(8, len(specs) // (slots * 4)))
        run = uuid.uuid4().hex
        futures = [
            client.submit(play_batch, run, makers, specs[i : i + size], move_time_limit, pure=False)
            for i in range(0, len(specs), size)
        ]
        for future in as_completed(futures, loop=client.loop):
            try:
                reports = future.result()
            except BotUnavailable:
                raise
            except Exception as error:  # a worker that cannot load the bots, or died
                raise ConfigurationError(
                    f"a Dask worker could not play games: {describe_error(error)}"
                ) from None
            yield from reports
    finally:
        if futures:
            client.cancel(futures)
        client.close(timeout=5)
