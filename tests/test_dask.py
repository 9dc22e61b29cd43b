"""Tournaments on a real Dask cluster: the local run's results, users' bots,
forfeits that do not hang a worker, and clear errors for bad scheduler addresses."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from troedler.core.errors import ConfigurationError
from troedler.simulation import connect, tournament

distributed = pytest.importorskip("distributed")

SRC = str(Path(__file__).resolve().parents[1] / "src")

USER_BOTS = '''
import time


class Lazy:
    """Ends its turn whenever it may, else takes the first legal move."""

    name = "lazy"

    def choose(self, observation, legal_moves, rng):
        return legal_moves[-1]


class Sleeps:
    name = "sleeps"

    def choose(self, observation, legal_moves, rng):
        if observation.round >= 2:
            time.sleep(600)
        return legal_moves[-1]
'''


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """A two-worker LocalCluster whose workers can import the user's module ``daskbots``."""
    home = tmp_path_factory.mktemp("user")
    (home / "daskbots.py").write_text(USER_BOTS)
    sys.path.insert(0, str(home))
    old = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join([str(home), SRC, *([old] if old else [])])
    try:
        with distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
        ) as running:
            yield running.scheduler_address, home
    finally:
        sys.path.remove(str(home))
        if old is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = old


def test_a_dask_cluster_plays_the_same_games_as_local_processes(
    cluster: tuple[str, Path],
) -> None:
    address, _ = cluster
    bots = ["greedy", "daskbots:Lazy", "random", "random"]
    local = tournament(bots, games=8, seed=9, max_rounds=60, workers=2)
    on_dask = tournament(bots, games=8, seed=9, max_rounds=60, scheduler=address)
    assert on_dask == local
    assert on_dask.bot("daskbots:Lazy").seat_games == on_dask.finished


def test_a_bot_that_never_returns_forfeits_on_dask_without_hanging(
    cluster: tuple[str, Path],
) -> None:
    address, _ = cluster
    summary = tournament(
        ["daskbots:Sleeps", "random"], games=3, scheduler=address, move_time_limit=0.2
    )
    assert summary.forfeited == 3
    for failure in summary.failures:
        assert failure.kind == "slow" and failure.bot == "daskbots:Sleeps"
        assert failure.round == 2
        assert "did not move within the limit of 0.2 s" in failure.detail


def test_simulate_on_dask_from_the_command_line(cluster: tuple[str, Path]) -> None:
    address, home = cluster
    done = subprocess.run(
        [sys.executable, "-m", "troedler", "simulate", "--games", "4", "--scheduler", address,
         "--bots", "daskbots:Lazy,greedy", "--out", "games.jsonl"],
        capture_output=True, text=True, check=False, cwd=home, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "4 games of 2 players" in done.stdout
    assert (home / "games.jsonl").read_text().count("\n") == 4


def _simulate_on(address: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=SRC)
    return subprocess.run(
        [sys.executable, "-m", "troedler", "simulate", "--games", "2", "--scheduler", address],
        capture_output=True, text=True, check=False, env=env, timeout=60,
    )  # fmt: skip


@pytest.fixture
def impostor() -> Iterator[tuple[int, int]]:
    """Two loopback ports that answer but are not Dask: one says nothing, one speaks HTTP."""
    silent, chatty = socket.create_server(("127.0.0.1", 0)), socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []

    def serve(server: socket.socket, reply: bytes) -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            held.append(conn)
            if reply:
                conn.sendall(reply)

    for server, reply in ((silent, b""), (chatty, b"HTTP/1.1 400 Bad Request\r\n\r\n")):
        threading.Thread(target=serve, args=(server, reply), daemon=True).start()
    yield silent.getsockname()[1], chatty.getsockname()[1]
    for item in [silent, chatty, *held]:
        item.close()


def test_bad_scheduler_addresses_get_one_line_and_exit_code_2(
    impostor: tuple[int, int],
) -> None:
    silent, chatty = impostor
    with socket.create_server(("127.0.0.1", 0)) as closed:
        free = closed.getsockname()[1]
    for address, message in (
        ("nonsense", "troedler: 'nonsense' is not a Dask scheduler address"),
        ("http://127.0.0.1:8787", "is a web address, not a Dask scheduler's"),
        (f"tcp://127.0.0.1:{free}", "cannot reach a Dask scheduler at"),
        (f"tcp://127.0.0.1:{chatty}", "answers, but not as a Dask scheduler"),
        (f"tcp://127.0.0.1:{silent}", "answers, but not as a Dask scheduler (no reply within"),
    ):
        done = _simulate_on(address)
        assert done.returncode == 2, address
        assert done.stdout == "" and done.stderr.count("\n") == 1, done.stderr
        assert message in done.stderr, done.stderr


def test_connect_refuses_an_impostor_within_its_timeout(impostor: tuple[int, int]) -> None:
    silent, _ = impostor
    with pytest.raises(ConfigurationError, match="no reply within 0.5 s"):
        connect(f"tcp://127.0.0.1:{silent}", timeout=0.5)


def test_the_dask_benchmark_reports_both_ways() -> None:
    script = Path(__file__).resolve().parents[1] / "benchmarks" / "tournament.py"
    done = subprocess.run(
        [sys.executable, str(script), "--quick"],
        capture_output=True, text=True, check=True, timeout=300,
    )  # fmt: skip
    figures = json.loads(done.stdout.strip().splitlines()[-1])
    assert figures["games"] == 16 and figures["quick"] is True
    assert figures["local_games_per_s"] > 0 and figures["dask_games_per_s"] > 0
    assert "dask_overhead_ms_per_game" in figures


def test_a_program_bot_plays_on_dask_as_it_does_locally(cluster: tuple[str, Path]) -> None:
    address, _ = cluster
    program = Path(__file__).resolve().parents[1] / "examples" / "delivery_bot.py"
    bots = [f"exec:{sys.executable} {program}", "greedy"]
    on_dask = tournament(bots, games=3, seed=4, scheduler=address)
    assert on_dask == tournament(bots, games=3, seed=4, workers=2)
    assert on_dask.finished == 3
