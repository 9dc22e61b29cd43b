"""Simulations on a real Dask cluster give the local run's results."""

from __future__ import annotations

import pytest

from troedler.cli.simulate import game_specs, simulate, summarize
from troedler.errors import ConfigurationError

distributed = pytest.importorskip("distributed")


def test_a_local_dask_cluster_gives_the_same_games_as_local_processes() -> None:
    specs = game_specs(
        8, ["greedy", "random", "random", "random"], seed=9, max_rounds=60, keep_records=True
    )
    local = simulate(specs, workers=1)
    with distributed.LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
    ) as cluster:
        on_dask = simulate(specs, scheduler=cluster.scheduler_address)
    assert on_dask == local
    assert summarize(on_dask) == summarize(local)


def test_without_a_reachable_scheduler_the_error_is_clear() -> None:
    with pytest.raises(
        ConfigurationError, match="cannot reach the Dask scheduler at tcp://127.0.0.1:9"
    ):
        simulate(game_specs(1, ["random", "random"], 1, 5, False), scheduler="tcp://127.0.0.1:9")
