"""Reachable states for the adapter tests: games played partly by the greedy bot."""

from __future__ import annotations

import random
from collections.abc import Iterator

from tests.helpers import greedy_move
from troedler import GameState, apply_move, legal_moves, new_game

GREEDY_SHARE = 0.3
"""Three decisions in ten by the greedy bot, so that requests get delivered
and games end; the rest at random, so that odd positions come up too."""


def reachable_states(players: int, seed: int, count: int) -> Iterator[GameState]:
    """``count`` states of games with ``players`` players, every state of each
    game in order, a new game whenever one ends."""
    rng = random.Random(seed)
    game = 0
    state = new_game(players, seed=seed, starting_dealer=rng.randrange(players))
    for _ in range(count):
        yield state
        if state.is_over:
            game += 1
            state = new_game(players, seed=seed * 1000 + game, starting_dealer=game % players)
            continue
        if rng.random() < GREEDY_SHARE:
            move = greedy_move(state, rng)
        else:
            move = rng.choice(legal_moves(state))
        state = apply_move(state, move)
