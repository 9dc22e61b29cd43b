"""``troedler simulate``: the same summary whoever runs the games."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from troedler import GameRecord
from troedler.cli import main
from troedler.cli.simulate import game_specs, simulate, summarize


def test_same_seed_same_summary_with_one_or_two_workers() -> None:
    specs = game_specs(12, ["greedy", "random", "random"], seed=3, max_rounds=40, keep_records=True)
    alone = simulate(specs, workers=1)
    shared = simulate(specs, workers=2)
    assert alone == shared
    assert summarize(alone) == summarize(shared)


def test_seats_rotate_so_every_bot_plays_every_seat() -> None:
    specs = game_specs(4, ["greedy", "random", "random", "random"], 1, None, False)
    assert [spec.bots.index("greedy") for spec in specs] == [0, 3, 2, 1]
    assert len({spec.seed for spec in specs}) == 4


def test_capped_games_are_counted_as_unfinished() -> None:
    results = simulate(game_specs(3, ["random", "random"], 1, max_rounds=2, keep_records=False))
    summary = summarize(results)
    assert summary["unfinished"] == 3 and summary["finished"] == 0
    assert summary["games"] == 3


def test_simulate_json_and_records(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "games.jsonl"
    code = main(
        ["simulate", "--games", "6", "--workers", "1", "--seed", "4", "--json", "--out", str(out)]
    )
    assert code == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["games"] == 6 and summary["players"] == 4
    assert set(summary["bots"]) == {"greedy", "random"}
    greedy = summary["bots"]["greedy"]
    assert greedy["seat_games"] == summary["finished"]
    low, high = greedy["win_share_95"]
    assert 0 <= low <= greedy["win_share"] <= high <= 1
    assert abs(sum(summary["seat_win_share"]) - 1) < 0.5  # ties can share a win
    lines = out.read_text().splitlines()
    assert len(lines) == 6
    for line in lines:
        GameRecord.from_json(line)  # each record replays


def test_simulate_table_and_bad_arguments() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "troedler", "simulate", "--games", "4", "--workers", "2"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert "win share per seat" in done.stdout and "greedy" in done.stdout
    assert "4/4 games" in done.stderr
    bad = subprocess.run(
        [sys.executable, "-m", "troedler", "simulate", "--bots", "greedy,wizard"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert bad.returncode == 2 and "no bot called 'wizard'" in bad.stderr


def test_simulate_a_searching_bot_with_a_budget(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["simulate", "--games", "2", "--players", "2", "--workers", "1", "--json"]
    assert main([*args, "--bots", "ismcts:5,greedy"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert set(summary["bots"]) == {"ismcts:5", "greedy"}
    assert summary["bots"]["ismcts:5"]["seat_games"] == summary["finished"]
    with pytest.raises(SystemExit):
        main([*args, "--bots", "greedy:5"])
    assert "only ismcts takes a budget" in capsys.readouterr().err
