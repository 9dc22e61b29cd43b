"""Whole games: to the end for every player count, determinism, the demo command."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys

import pytest

from troedler import check_invariants, legal_moves, outcome, parse_move, replay
from troedler.bots import Bot, GreedyBot, RandomBot, play_game
from troedler.cli import main

MAX_ROUNDS = 200


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_full_game_to_the_end(players: int, seed: int) -> None:
    bots: list[Bot] = [GreedyBot()] + [RandomBot()] * (players - 1)
    played = play_game(bots, seed=seed, max_rounds=MAX_ROUNDS)
    assert played.finished
    states = replay(played.record)
    for state, text in zip(states, played.record.moves, strict=False):
        assert parse_move(text, state) in legal_moves(state)
        check_invariants(state)
    final = states[-1]
    assert final == played.final and legal_moves(final) == ()
    result = outcome(final)
    assert max(len(p.fulfilled_requests) for p in final.players) >= final.rules.end_threshold
    assert result.winners and not (result.winners & result.totally_damaged)


GAME_DIGEST = """
import hashlib, random, sys
from troedler import apply_move, legal_moves, new_game, state_to_json
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
    digest.update(state_to_json(state).encode())
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
