"""The bot protocol, and playing a game between bots.

A bot is given what its seat knows (an :class:`~troedler.views.Observation`),
the legal moves and a random generator; never the game state.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import attrs

from troedler.errors import ConfigurationError, IllegalMoveError
from troedler.legal import apply_move
from troedler.moves import Move
from troedler.records import GameRecord, GameResult
from troedler.rules import Rules
from troedler.serialization import fingerprint
from troedler.setup import new_game
from troedler.state import GameState
from troedler.views import Observation, Recall, observe

__all__ = ["Bot", "PlayedGame", "bot_rng", "play_game"]


@runtime_checkable
class Bot(Protocol):
    """Anything that picks a move from what its seat knows."""

    @property
    def name(self) -> str:
        """A short name for tables and records."""
        ...

    def choose(
        self, observation: Observation, legal_moves: Sequence[Move], rng: random.Random
    ) -> Move:
        """One of ``legal_moves``, chosen knowing only ``observation``.

        All chance must come from ``rng``, so that games replay exactly.
        """
        ...


def bot_rng(seed: int, seat: int) -> random.Random:
    """The random generator of the bot at ``seat`` in the game of ``seed``."""
    return random.Random(f"troedler-bot/{seed}/{seat}")


@attrs.frozen
class PlayedGame:
    """A game played between bots: its record and last state."""

    record: GameRecord
    final: GameState
    finished: bool
    """False when the game was stopped at a round cap before it ended."""


def play_game(
    bots: Sequence[Bot],
    *,
    seed: int,
    starting_dealer: int = 0,
    rules: Rules | None = None,
    recall: Recall = "perfect",
    max_rounds: int | None = None,
) -> PlayedGame:
    """Play one game between ``bots`` (one per seat, in seat order).

    Each bot sees only :func:`~troedler.observe` of its seat with ``recall``
    and draws its chance from its own generator, seeded from ``seed`` and its
    seat, so the same arguments always give the same game. With
    ``max_rounds`` the game stops after that round and is not finished.
    Raises :class:`IllegalMoveError` if a bot picks a move that is not legal.
    """
    if not 2 <= len(bots) <= 4:
        raise ConfigurationError(f"S1: 2 to 4 bots, not {len(bots)}")
    first = new_game(len(bots), seed=seed, starting_dealer=starting_dealer, rules=rules)
    rngs = [bot_rng(seed, seat) for seat in range(len(bots))]
    state = first
    moves: list[Move] = []
    while not state.is_over and (max_rounds is None or state.round <= max_rounds):
        seat = state.current_player
        assert seat is not None  # a game that is not over has a player to move
        seen = observe(state, seat, recall=recall)
        move = bots[seat].choose(seen, seen.legal_moves, rngs[seat])
        if move not in seen.legal_moves:
            raise IllegalMoveError(
                "T1", f"bot {bots[seat].name!r} chose {move!r}, which is not legal"
            )
        moves.append(move)
        state = apply_move(state, move)
    record = GameRecord(
        rules=first.rules,
        fingerprint=fingerprint(first.board, first.cards),
        seed=seed,
        starting_dealer=starting_dealer,
        seats=tuple(f"{bot.name} {seat}" for seat, bot in enumerate(bots)),
        moves=tuple(str(move) for move in moves),
        result=GameResult.of(state) if state.is_over else None,
    )
    return PlayedGame(record, state, state.is_over)
