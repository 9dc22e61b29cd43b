"""troedler as an OpenSpiel game, with explicit chance: ``python_troedler``.

Importing this package registers the game with OpenSpiel:

>>> import pyspiel
>>> import troedler.adapters.openspiel
>>> game = pyspiel.load_game("python_troedler(players=3)")
>>> game.num_players(), game.num_distinct_actions(), game.max_chance_outcomes()
(3, 2441, 40)

- :mod:`~troedler.adapters.openspiel.game`: the game, its states and parameters;
- :mod:`~troedler.adapters.openspiel.chance`: the ids of chance outcomes;
- :mod:`~troedler.adapters.openspiel.observer`: information states and observations;
- :mod:`~troedler.adapters.openspiel.bots`: a resampler and OpenSpiel's Python
  ISMCTS with it, and troedler's bots playing through OpenSpiel.

Needs open_spiel (``pip install -e '.[openspiel]'``); ``docs/openspiel.md``
tells the whole story.
"""

from troedler.adapters.openspiel.bots import ISMCTSBot, Resampler, TroedlerBot
from troedler.adapters.openspiel.chance import ChanceIds, chance_ids
from troedler.adapters.openspiel.game import (
    DEFAULT_PARAMETERS,
    GAME_TYPE,
    SHORT_NAME,
    TroedlerGame,
    TroedlerState,
    resample,
    win_shares,
)
from troedler.adapters.openspiel.observer import TroedlerObserver

__all__ = [
    "DEFAULT_PARAMETERS",
    "GAME_TYPE",
    "SHORT_NAME",
    "ChanceIds",
    "ISMCTSBot",
    "Resampler",
    "TroedlerBot",
    "TroedlerGame",
    "TroedlerObserver",
    "TroedlerState",
    "chance_ids",
    "resample",
    "win_shares",
]
