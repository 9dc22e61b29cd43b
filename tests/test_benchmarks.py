"""The benchmark script runs and reports every figure (no timings are judged)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "bench.py"


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
    assert figures["quick"] is True
    assert ("chess_ply_us" in figures) == ("ratio_to_chess_4p" in figures)
