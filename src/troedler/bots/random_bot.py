"""A bot that picks uniformly at random among the legal moves."""

from __future__ import annotations

import random
from collections.abc import Sequence

import attrs

from troedler.core.moves import Move
from troedler.seat import Observation

__all__ = ["RandomBot"]


@attrs.frozen
class RandomBot:
    """Picks any legal move, each equally likely."""

    name: str = "random"

    def choose(
        self, observation: Observation, legal_moves: Sequence[Move], rng: random.Random
    ) -> Move:
        """A uniformly random legal move."""
        return legal_moves[rng.randrange(len(legal_moves))]
