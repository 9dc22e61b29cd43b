"""Bots that play troedler, and a protocol for writing your own.

A bot is any object with a ``name`` and a method
``choose(observation, legal_moves, rng) -> Move``; it sees only what its
seat knows. :func:`play_game` plays a game between bots.
"""

from __future__ import annotations

from troedler.bots.base import Bot
from troedler.bots.greedy import GreedyBot
from troedler.bots.ismcts import ISMCTSBot
from troedler.bots.playing import PlayedGame, play_game
from troedler.bots.program import ProgramBot, program_bot
from troedler.bots.random_bot import RandomBot
from troedler.core.errors import ConfigurationError

__all__ = [
    "BOTS",
    "Bot",
    "GreedyBot",
    "ISMCTSBot",
    "PlayedGame",
    "ProgramBot",
    "RandomBot",
    "make_bot",
    "play_game",
]

BOTS = {"random": RandomBot, "greedy": GreedyBot, "ismcts": ISMCTSBot}
"""The bundled bots by name."""


def make_bot(name: str) -> Bot:
    """A new bundled bot by name (``random``, ``greedy``, ``ismcts`` ...).

    ``ismcts:N`` is an :class:`ISMCTSBot` searching ``N`` iterations per move;
    ``exec:COMMAND`` runs a program (:func:`troedler.bots.program.program_bot`).
    """
    head, colon, command = name.strip().partition(":")
    if colon and head.lower() == "exec":
        return program_bot(command)
    key, _, budget = name.strip().lower().partition(":")
    if key not in BOTS:
        raise ConfigurationError(f"no bot called {name!r}; the bundled bots are {', '.join(BOTS)}")
    if not budget:
        return BOTS[key]()  # type: ignore[no-any-return]
    if key != "ismcts" or not budget.strip().isdigit():
        raise ConfigurationError(
            f"bad bot {name!r}: only ismcts takes a budget, as ismcts:ITERATIONS"
        )
    return ISMCTSBot(iterations=int(budget))
