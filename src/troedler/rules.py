"""The rules configuration: player count and the options the rules leave open."""

from __future__ import annotations

from typing import Any

import attrs

from troedler.errors import ConfigurationError, quote
from troedler.rulebook import (
    HAND_LIMIT,
    PLAYER_COUNTS,
    end_threshold,
    setup_discards,
)

__all__ = ["Rules"]

OPTION_RANGES = {
    "end_threshold": (1, 30),
    "hand_limit": (0, 20),
    "setup_requests": (0, 26),
    "setup_feed": (0, 24),
}
"""The sane range of each numeric option. The game has 30 goods requests, 26
of them in the deck, and 24 special feed in the deck; a hand limit above 20
would let four hands hold nearly the whole deck."""


@attrs.frozen(cache_hash=True)
class Rules:
    """How a game is played; carried in every game state.

    Build it with :meth:`for_players`, which fills in the rulebook's values
    for a player count, and override single options by keyword:

    >>> Rules.for_players(3).end_threshold
    6
    >>> Rules.for_players(4, reshuffle_mid_forming=False).reshuffle_mid_forming
    False
    """

    num_players: int
    """2, 3 or 4 (S1)."""
    end_threshold: int
    """Fulfilled requests on one value pile that end the game at round end (E1)."""
    two_player_rules: bool
    """Dealer discards a pile before taking (R4) and total damage by a margin (E4)."""
    hand_limit: int = HAND_LIMIT
    """Cards a player may keep after their turn (T7); 0 to 20."""
    setup_requests: int = 9
    """Goods requests shuffled into the set-up discard pile (S5)."""
    setup_feed: int = 9
    """Special feed shuffled into the set-up discard pile (S5)."""
    reshuffle_mid_forming: bool = True
    """[decision R3] When the game-round pile runs out while piles are formed,
    shuffle the discard pile into a new one at once and go on (True), or leave
    the piles short and shuffle at the start of the next round (False)."""
    explicit_chance: bool = False
    """Chance as a player: the game stops at every good dealt at set-up and
    every card turned up from a face-down pile, and the caller picks the
    outcome (see :mod:`troedler.explicit`). False: chance comes from the seed."""

    def __attrs_post_init__(self) -> None:
        _check_players(self.num_players)
        for name in ("two_player_rules", "reshuffle_mid_forming"):
            value = getattr(self, name)
            if type(value) is not bool:
                raise ConfigurationError(f"rules.{name} must be True or False, not {quote(value)}")
        if self.two_player_rules and self.num_players != 2:
            raise ConfigurationError(f"R4: two-player rules need 2 players, not {self.num_players}")
        for name, (low, high) in OPTION_RANGES.items():
            value = getattr(self, name)
            if type(value) is not int or not low <= value <= high:
                raise ConfigurationError(
                    f"rules.{name} must be {low} to {high}, not {quote(value)}"
                )

    @classmethod
    def for_players(cls, num_players: int, **options: Any) -> Rules:
        """The rulebook's rules for ``num_players``, with ``options`` changed."""
        _check_players(num_players)
        defaults: dict[str, Any] = {
            "num_players": num_players,
            "end_threshold": end_threshold(num_players),
            "two_player_rules": num_players == 2,
            "setup_requests": setup_discards(num_players),
            "setup_feed": setup_discards(num_players),
        }
        unknown = set(options) - set(attrs.fields_dict(cls))
        if unknown:
            raise ConfigurationError(f"unknown rules option {quote(sorted(map(str, unknown))[0])}")
        defaults.update(options)
        return cls(**defaults)


def _check_players(num_players: object) -> None:
    if type(num_players) is not int or num_players not in PLAYER_COUNTS:
        raise ConfigurationError(f"S1: 2, 3 or 4 players, not {quote(num_players)}")
