"""Seeded games keep their course: every state of 72 seeded games hashes as it
did before set-up and forming became one chance path (S4-S6, R2, R3).

The hashes in ``tests/data/seeded_state_hashes.json`` were computed before that
change. Each game plays a fixed line: at every decision the legal move at an
index drawn from the game's own ``random.Random``, the moves ordered by their
canonical form, so that the line does not hang on the order of ``legal_moves``.
A state is hashed by its field values, not by any text format or field name.
"""

from __future__ import annotations

import enum
import hashlib
import json
import random
from pathlib import Path

import attrs
import pytest

from troedler import Rules, apply_move, legal_moves, new_game
from troedler.core.cards import Card
from troedler.core.goods import Goods
from troedler.core.pile import Pile
from troedler.core.state import GameState

DATA = Path(__file__).parent / "data" / "seeded_state_hashes.json"
SEEDS = range(1, 13)
GAMES = [(players, mid, seed) for players in (2, 3, 4) for mid in (True, False) for seed in SEEDS]
MAX_DECISIONS = 400
"""Enough for several rounds and the reshuffles they bring, and a modest runtime."""
STATE_FIELDS = (
    "seed",
    "shuffles",
    "round",
    "dealer",
    "phase",
    "current_player",
    "game_round_pile",
    "dealer_piles",
    "discard_pile",
    "village_goods",
    "players",
    "turn",
)
"""The fields of a state that are hashed, in the order the hashes were made with."""


def _canonical(value: object) -> object:
    """``value`` as plain tuples, strings and numbers, field values in declared order."""
    if isinstance(value, Card):
        return str(value)
    if isinstance(value, Goods):
        return value.counts
    if isinstance(value, Pile):
        return tuple(map(str, value.cards))
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, GameState):
        # The rules, board and cards are the game's, the same in every state.
        return tuple(_canonical(getattr(value, name)) for name in STATE_FIELDS)
    if attrs.has(type(value)):
        return (type(value).__name__,) + tuple(
            _canonical(getattr(value, field.name)) for field in attrs.fields(type(value))
        )
    if isinstance(value, (tuple, list)):
        return tuple(map(_canonical, value))
    return value


def game_hash(players: int, mid: bool, seed: int) -> str:
    """The hash of every state of one seeded game along its fixed line."""
    rules = Rules.for_players(players, reshuffle_mid_forming=mid)
    state = new_game(players, seed=seed, rules=rules, starting_dealer=seed % players)
    rng = random.Random(f"{players}/{mid}/{seed}")
    digest = hashlib.sha256()
    for _ in range(MAX_DECISIONS):
        digest.update(repr(_canonical(state)).encode())
        if state.is_over:
            break
        moves = sorted(legal_moves(state), key=lambda move: repr(_canonical(move)))
        state = apply_move(state, moves[rng.randrange(len(moves))])
    return digest.hexdigest()


def _key(players: int, mid: bool, seed: int) -> str:
    return f"{players}p-{'mid' if mid else 'nomid'}-seed{seed}"


@pytest.mark.parametrize(("players", "mid", "seed"), GAMES)
def test_S6_R3_seeded_games_keep_every_state(players: int, mid: bool, seed: int) -> None:
    expected = json.loads(DATA.read_text(encoding="utf-8"))
    assert game_hash(players, mid, seed) == expected[_key(players, mid, seed)]


if __name__ == "__main__":  # regenerate only when a change is meant to alter seeded games
    DATA.write_text(
        json.dumps({_key(*game): game_hash(*game) for game in GAMES}, indent=1) + "\n",
        encoding="utf-8",
    )
