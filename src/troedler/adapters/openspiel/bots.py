"""Bots for ``python_troedler``: OpenSpiel's information-set search, and troedler's own bots.

- :class:`Resampler` redeals what a seat does not know (built on
  :func:`troedler.determinize`), in the form OpenSpiel's Python
  ``ISMCTSBot.set_resampler`` takes.
- :class:`ISMCTSBot` is OpenSpiel's Python ``ISMCTSBot`` with that
  resampler, ready for ``evaluate_bots``. (OpenSpiel's C++ ``ISMCTSBot``
  crashes on games written in Python: do not use it here.)
- :class:`TroedlerBot` lets any bot of :mod:`troedler.bots` play through an
  OpenSpiel state: it sees only what its seat knows.
"""

from __future__ import annotations

import random
from typing import Any

import attrs
import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts

from troedler.adapters.openspiel.game import TroedlerState, resample
from troedler.bots.base import Bot
from troedler.core.datafile import describe
from troedler.core.errors import ConfigurationError
from troedler.core.legal import legal_moves
from troedler.seat import Recall, observe

__all__ = ["ISMCTSBot", "Resampler", "TroedlerBot"]


class Resampler:
    """``(state, player) -> state``: the same past, with what ``player`` does not know dealt anew.

    Every seat sees the same past, so the new state has the same information
    state for everyone (see :func:`troedler.adapters.openspiel.game.resample`).
    All chance comes from a generator seeded with ``seed``.
    """

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def __call__(self, state: TroedlerState, player: int) -> TroedlerState:
        return resample(state, player, self.rng)


class ISMCTSBot(ismcts.ISMCTSBot):  # type: ignore[misc]  # open_spiel ships no type hints
    """OpenSpiel's Python information-set MCTS, resampling with :class:`Resampler`.

    Arguments as for ``open_spiel.python.algorithms.ismcts.ISMCTSBot``;
    ``seed`` seeds both the search and the resampler (``random_state``, if
    given, takes the search's place). It searches afresh at every move, so
    it needs nothing from :meth:`restart_at` and :meth:`inform_action`,
    which ``evaluate_bots`` calls.
    """

    def __init__(
        self,
        game: pyspiel.Game,
        evaluator: Any,
        uct_c: float,
        max_simulations: int,
        *,
        seed: int | None = None,
        **options: Any,
    ) -> None:
        options.setdefault("random_state", np.random.RandomState(seed))
        super().__init__(game, evaluator, uct_c, max_simulations, **options)
        self.set_resampler(Resampler(seed))

    def restart_at(self, state: pyspiel.State) -> None:
        """Nothing to do: every search starts from the state it is given."""

    def inform_action(self, state: pyspiel.State, player_id: int, action: int) -> None:
        """Nothing to do: every search starts from the state it is given."""


class TroedlerBot(pyspiel.Bot):  # type: ignore[misc]  # pyspiel ships no type hints
    """A bot of :mod:`troedler.bots` playing ``python_troedler`` through OpenSpiel.

    At its turn it is given :func:`troedler.observe` of the engine state for
    the seat to move, with ``recall``, and draws its chance from a
    generator seeded with ``seed``. troedler's bots search games whose
    chance comes from a seed; the observation they get says so, which
    deals the cards nobody knows with the same distribution as explicit
    chance.
    """

    def __init__(self, bot: Bot, *, recall: Recall = "perfect", seed: int | None = None) -> None:
        pyspiel.Bot.__init__(self)
        if not isinstance(bot, Bot):
            raise ConfigurationError(f"expected a troedler bot, got {describe(bot)}")
        self.bot = bot
        self.recall: Recall = recall
        self.rng = random.Random(seed)

    def step(self, state: TroedlerState) -> int:
        """The action id of the move the bot chooses for the seat to move."""
        if not isinstance(state, TroedlerState):
            raise ConfigurationError(f"expected a python_troedler state, got {describe(state)}")
        game = state.engine_state
        seat = game.current_player
        if state.is_terminal() or seat is None:
            raise ConfigurationError("TroedlerBot.step needs a state with a seat to move")
        seen = observe(game, seat, recall=self.recall)
        seen = attrs.evolve(seen, rules=attrs.evolve(seen.rules, explicit_chance=False))
        move = self.bot.choose(seen, legal_moves(game), self.rng)
        return state.position.table.ids.action_id(move)

    def restart_at(self, state: pyspiel.State) -> None:
        """Nothing to do: the bot looks at each state afresh."""

    def inform_action(self, state: pyspiel.State, player_id: int, action: int) -> None:
        """Nothing to do: the bot looks at each state afresh."""
