"""benchmarks/ladder.py: how a game ranks its seats, and a small ladder with a program bot."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import attrs
import pytest

from troedler.bots.base import BotFailure
from troedler.core.errors import ConfigurationError
from troedler.simulation import GameReport

ROOT = Path(__file__).resolve().parents[1]
LADDER = ROOT / "benchmarks" / "ladder.py"


def ladder_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("troedler_ladder", LADDER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def report(**fields: object) -> GameReport:
    base: dict[str, object] = {
        "index": 0, "seed": 1, "seats": ("a", "b", "c", "d"), "ending": "finished", "rounds": 9,
        "points": (30, 41, 12, 41), "damage": (3, 5, 20, 4), "totally_damaged": (2,),
        "winners": (1, 3),
    }  # fmt: skip
    base.update(fields)
    return GameReport(**base)  # type: ignore[arg-type]


def test_winners_rank_first_then_points_then_the_totally_damaged() -> None:
    ranks = ladder_module().ranks
    assert ranks(report()) == [1, 0, 2, 0]
    assert ranks(report(totally_damaged=(), winners=(1,), points=(30, 41, 12, 41))) == [2, 0, 3, 1]


def test_a_forfeit_ranks_the_failing_bot_last_and_a_capped_game_is_not_rated() -> None:
    ranks = ladder_module().ranks
    failure = BotFailure(2, "c", 10, 3, "slow", "too slow")
    forfeited = report(ending="forfeited", points=(), damage=(), totally_damaged=(), winners=())
    assert ranks(forfeited) is None
    assert ranks(attrs.evolve(forfeited, failure=failure)) == [0, 0, 1, 0]
    assert ranks(report(ending="capped", points=(), winners=(), totally_damaged=())) is None


def test_a_small_ladder_with_a_program_bot_rates_every_bot() -> None:
    pytest.importorskip("openskill")
    program = f"exec:{sys.executable} {ROOT / 'examples' / 'delivery_bot.py'}"
    result = subprocess.run(
        [sys.executable, str(LADDER), "--bots", f"random,greedy,{program}",
         "--games-2", "2", "--games-3", "1", "--games-4", "4"],
        capture_output=True, text=True, check=True, cwd=ROOT, timeout=300,
    )  # fmt: skip
    figures = json.loads(result.stdout.strip().splitlines()[-1])
    assert figures["games"] == {"2": 6, "3": 1}
    assert {row["bot"] for row in figures["table"]} == {"random", "greedy", program}
    for row in figures["table"]:
        assert row["sigma"] > 0 and row["games_2p"] == 4 and row["games_3p"] == 1
    ordinals = [row["ordinal"] for row in figures["table"]]
    assert ordinals == sorted(ordinals, reverse=True)
    assert "| bot | rating mu ± sigma | mu - 3 sigma |" in result.stdout


def test_a_bot_without_a_network_for_a_player_count_sits_those_line_ups_out() -> None:
    pytest.importorskip("openskill")
    pytest.importorskip("numpy")
    ladder = ladder_module()
    assert ladder.plays("neural", 2) and ladder.plays("neural", 4)
    assert not ladder.plays("neural", 3) and ladder.plays("greedy", 3)
    with pytest.raises(ConfigurationError, match="wizard"):
        ladder.plays("wizard", 2)  # a bot that cannot be made is refused, not skipped
    played = ladder.play_ladder(
        ["random", "greedy", "neural", "ismcts:4"], {3: 1}, seed=1, workers=1, scheduler=None,
        max_rounds=30,
    )  # fmt: skip
    assert [line_up for _, line_up, _ in played] == [("random", "greedy", "ismcts:4")]
    pool = ["random", "greedy", "neural", "ismcts:4"]
    rows = {row["bot"]: row for row in ladder.table(pool, played)}
    assert rows["neural"]["games_3p"] == 0 and rows["neural"]["win_share_3p"] is None
