"""The benchmark scripts run and report every figure (no timings or strengths are judged)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"
BENCH = BENCHMARKS / "bench.py"


def test_quick_benchmark_ends_with_one_json_line_of_figures() -> None:
    result = subprocess.run(
        [sys.executable, str(BENCH), "--quick"], capture_output=True, text=True, check=True
    )
    figures = json.loads(result.stdout.strip().splitlines()[-1])
    for players in (2, 3, 4):
        for key in ("decision_us", "legal_moves_us", "apply_move_us"):
            assert figures[f"{key}_{players}p"] > 0
        assert figures[f"bot_games_per_s_{players}p"] > 0
        assert figures[f"random_capped_games_per_s_{players}p"] > 0
    assert figures["bytes_per_state_4p"] > 0
    assert figures["svg_bytes_4p"] > 0 and figures["svg_ms_4p"] > 0
    assert figures["replay_html_bytes_4p"] > figures["svg_bytes_4p"]
    assert figures["quick"] is True
    assert ("chess_ply_us" in figures) == ("ratio_to_chess_4p" in figures)


def test_quick_bot_strength_run_reports_both_line_ups() -> None:
    result = subprocess.run(
        [sys.executable, str(BENCHMARKS / "bots.py"), "--quick", "--workers", "1"],
        capture_output=True,
        text=True,
        check=True,
    )
    figures = json.loads(result.stdout.strip().splitlines()[-1])
    for name, subject in (("greedy_vs_random", "greedy"), ("ismcts_vs_greedy", "ismcts:10")):
        row = figures[name]
        assert row["line_up"][0] == subject and row["games"] == 8
        assert 0 <= row["wins"] <= row["finished"] <= 8
        assert row["win_share_all"] == row["wins"] / 8
        low, high = row["win_share_all_95"]
        assert 0 <= low <= row["win_share_all"] <= high <= 1
    assert figures["ismcts_seconds_per_move"]["decisions"] > 0


def test_the_instruction_count_script_plays_the_env_and_the_engine() -> None:
    pytest.importorskip("pettingzoo")
    for what in ("env", "engine"):
        done = subprocess.run(
            [sys.executable, str(BENCHMARKS / "rl_instructions.py"), what, "2", "10"],
            capture_output=True,
            text=True,
            check=False,
        )
        assert done.returncode == 0, done.stderr
    refused = subprocess.run(
        [sys.executable, str(BENCHMARKS / "rl_instructions.py"), "env", "5", "10"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert refused.returncode == 2 and "invalid choice" in refused.stderr


def test_the_bot_instruction_script_decides_a_bot_s_decisions_again() -> None:
    # It keeps the decisions of a game with a choice and decides each again
    # per pass: the count printed is what callgrind's difference is divided by.
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "bot_instructions.py"), "greedy", "2", "1",
         "--games", "1", "--seed", "3"],
        capture_output=True, text=True, check=True, timeout=300,
    )  # fmt: skip
    kept = int(done.stdout.split()[0])
    assert kept > 10 and done.stdout.strip().endswith("each decided 1 times more")
    refused = subprocess.run(
        [sys.executable, str(BENCHMARKS / "bot_instructions.py"), "nobody", "2", "1"],
        capture_output=True, text=True, check=False, timeout=300,
    )  # fmt: skip
    assert refused.returncode == 2 and "nobody" in refused.stderr


def test_the_sprt_benchmark_accepts_a_far_stronger_bot_and_measures_a_table() -> None:
    pytest.importorskip("numpy")
    result = subprocess.run(
        [sys.executable, str(BENCHMARKS / "sprt.py"), "greedy", "random", "--elo1", "100",
         "--batch", "4", "--workers", "1", "--max-pairs", "40"],
        capture_output=True, text=True, check=True, timeout=600,
    )  # fmt: skip
    figures = json.loads(result.stdout.strip().splitlines()[-1])
    assert figures["verdict"] == "accepted" and figures["pairs"] <= 40
    assert figures["games"] == 2 * figures["pairs"] and figures["score"] > 0.6
    low, high = figures["score_95"]
    assert low <= figures["score"] <= high
    table = subprocess.run(
        [sys.executable, str(BENCHMARKS / "sprt.py"), "neural", "greedy", "--players", "4",
         "--table", "--pairs", "1", "--workers", "1"],
        capture_output=True, text=True, check=True, timeout=600,
    )  # fmt: skip
    figures = json.loads(table.stdout.strip().splitlines()[-1])
    assert figures["verdict"] is None and figures["games"] == 4 and figures["deals"] == 1
    assert 0 <= figures["score"] <= 1
    # The SPRT's pairs are even at 1/2, a table at 1/4: a table is not tested.
    assert "llr" not in figures and "llr" not in table.stdout


def test_the_learned_bot_benchmark_reports_move_times_and_a_generation_s_rates() -> None:
    pytest.importorskip("numpy")
    result = subprocess.run(
        [sys.executable, str(BENCHMARKS / "learned.py"), "--quick", "--search", "4,3"],
        capture_output=True, text=True, check=True, timeout=600,
    )  # fmt: skip
    figures = json.loads(result.stdout.strip().splitlines()[-1])
    for players in (2, 4):
        times = figures[f"move_{players}p"]
        assert times["decisions"] > 0 and 0 < times["mean_ms"] <= times["p99_ms"] <= times["max_ms"]
        rates = figures[f"generation_{players}p"]
        assert rates["games"] == 1 and rates["games_per_s"] > 0
        assert rates["decisions_labelled"] > 0 and rates["labelled_per_s"] > 0
        for text in ("ismcts:4", "ismcts:3:neural"):
            assert figures[f"move_{players}p_{text}"]["decisions"] > 0
