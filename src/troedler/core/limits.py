"""The domain of the numbers and names that games, states and records carry.

One domain, checked at every door: :func:`troedler.new_game` and the game
record's constructors when values come in, the JSON writers before they
write, and the readers when they read. So whatever troedler accepts it can
write, and whatever it writes it reads back. ``docs/format.md`` lists the
same limits for the file formats.

Code that derives seeds (a run of many games, say) should map into
``MIN_SEED..MAX_SEED`` by hashing, for instance the first :data:`SEED_BITS`
bits of a SHA-256 digest; multiplying leaves the domain.
"""

from __future__ import annotations

from collections.abc import Iterable

from troedler.core.errors import ConfigurationError, quote
from troedler.core.rulebook import most_shuffles

__all__ = [
    "MAX_MOVES",
    "MAX_ROUNDS",
    "MAX_SEAT_NAME",
    "MAX_SEED",
    "MAX_SHUFFLES",
    "MIN_SEED",
    "SEED_BITS",
    "check_seat_names",
    "check_seed",
    "seat_name_problem",
]

SEED_BITS = 64
"""A seed is an unsigned integer of this many bits."""
MIN_SEED = 0
MAX_SEED = 2**SEED_BITS - 1
"""Seeds are ``0`` to ``2**64 - 1``: any such int, and only those."""

MAX_SEAT_NAME = 64
"""The longest seat name, in characters; names are printable and not empty."""

MAX_MOVES = 100_000
"""The most moves a game record holds."""

MAX_ROUNDS = 100_000
"""The highest round number a state may carry: no game of
:data:`MAX_MOVES` moves comes near it."""

MAX_SHUFFLES = most_shuffles(MAX_ROUNDS)
"""The most shuffles a state may have made: four at set-up, at most two a round (R3)."""


def check_seed(seed: object) -> int:
    """``seed`` if it is a seed; :class:`ConfigurationError` otherwise.

    >>> check_seed(2**64 - 1) == MAX_SEED
    True
    >>> check_seed(-1)
    Traceback (most recent call last):
    ...
    troedler.core.errors.ConfigurationError: the seed must be an int 0 to 2**64-1, not -1
    """
    if type(seed) is not int or not MIN_SEED <= seed <= MAX_SEED:
        raise ConfigurationError(f"the seed must be an int 0 to 2**64-1, not {quote(seed)}")
    return seed


def seat_name_problem(name: object) -> str | None:
    """What keeps ``name`` from being a seat name, or None if it is one."""
    if not isinstance(name, str):
        return f"expected a seat name (text), got {type(name).__name__} {quote(name)}"
    if not 0 < len(name) <= MAX_SEAT_NAME:
        return f"a seat name has 1 to {MAX_SEAT_NAME} characters, not {len(name)}"
    if not name.isprintable():
        return "a seat name must be printable text"
    return None


def check_seat_names(names: Iterable[object], num_players: int) -> tuple[str, ...]:
    """``names`` as a tuple of ``num_players`` seat names; :class:`ConfigurationError`
    naming the first bad one otherwise."""
    if isinstance(names, str | bytes) or not isinstance(names, Iterable):
        raise ConfigurationError(f"expected a sequence of seat names, got {quote(names)}")
    found = tuple(names)
    if len(found) != num_players:
        raise ConfigurationError(f"{num_players} seat names needed, got {len(found)}")
    for seat, name in enumerate(found):
        problem = seat_name_problem(name)
        if problem is not None:
            raise ConfigurationError(f"seats[{seat}]: {problem}")
    return found  # type: ignore[return-value]
