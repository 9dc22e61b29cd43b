"""Bots that play troedler, and a protocol for writing your own.

A bot is any object with a ``name`` and a method
``choose(observation, legal_moves, rng) -> Move``; it sees only what its
seat knows. :func:`play_game` plays a game between bots.
"""

from __future__ import annotations

from troedler.bots.base import Bot, PlayedGame, play_game
from troedler.bots.greedy import GreedyBot
from troedler.bots.random_bot import RandomBot
from troedler.errors import ConfigurationError

__all__ = ["BOTS", "Bot", "GreedyBot", "PlayedGame", "RandomBot", "make_bot", "play_game"]

BOTS = {"random": RandomBot, "greedy": GreedyBot}
"""The bundled bots by name."""


def make_bot(name: str) -> Bot:
    """A new bundled bot by name (``random``, ``greedy`` ...)."""
    try:
        return BOTS[name.strip().lower()]()  # type: ignore[no-any-return]
    except KeyError:
        raise ConfigurationError(
            f"no bot called {name!r}; the bundled bots are {', '.join(BOTS)}"
        ) from None
