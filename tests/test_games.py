"""Whole games: to the end for every player count, determinism, the demo command."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys

import pytest

from troedler import apply_move, check_invariants, legal_moves, new_game, outcome
from troedler.cli import main
from troedler.cli.simple import choose_simple_move

MAX_ROUNDS = 200


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_full_game_to_the_end(players: int, seed: int) -> None:
    state = new_game(players, seed=seed)
    while not state.is_over:
        assert state.round <= MAX_ROUNDS
        move = choose_simple_move(state)
        assert move in legal_moves(state)
        state = apply_move(state, move)
        check_invariants(state)
    assert legal_moves(state) == ()
    result = outcome(state)
    assert max(len(p.fulfilled_requests) for p in state.players) >= state.rules.end_threshold
    assert result.winners and not (result.winners & result.totally_damaged)


GAME_DIGEST = """
import hashlib, random, sys
from troedler import apply_move, legal_moves, new_game
digest = hashlib.sha256()
for players in (2, 3, 4):
    state = new_game(players, seed=2024)
    rng = random.Random(7)
    for _ in range(300):
        moves = legal_moves(state)
        if not moves:
            break
        digest.update(" | ".join(map(str, moves)).encode())
        state = apply_move(state, moves[rng.randrange(len(moves))])
    digest.update(repr(state).encode())
print(digest.hexdigest())
"""


def test_same_seed_same_game_whatever_the_hash_seed() -> None:
    digests = set()
    for hash_seed in ("0", "1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        result = subprocess.run(
            [sys.executable, "-c", GAME_DIGEST], env=env, capture_output=True, text=True, check=True
        )
        digests.add(result.stdout.strip())
    assert len(digests) == 1
    assert len(next(iter(digests))) == len(hashlib.sha256().hexdigest())


def test_demo_prints_piles_moves_and_the_scoring_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--players", "3", "--seed", "5"]) == 0
    out = capsys.readouterr().out
    assert "Round 1 (dealer: seat 0)" in out
    assert "  pile 0: " in out
    assert "  seat 1: take " in out
    assert "Game over after round" in out
    for heading in ("damage", "total", "points", "winner"):
        assert heading in out
    assert "Winner: seat" in out


def test_demo_runs_as_a_console_command() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "troedler", "demo", "--players", "2", "--seed", "9"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "Winner: seat" in result.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "troedler", "demo", "--players", "5"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 2 and "invalid choice" in bad.stderr
