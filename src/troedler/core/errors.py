"""The exception family of troedler.

Every error a caller can cause is a :class:`TroedlerError`. The ones caused by
bad input are also :class:`ValueError`, so code that already catches
``ValueError`` keeps working.
"""

from __future__ import annotations

import reprlib

__all__ = [
    "DOCS_URL",
    "ConfigurationError",
    "FormatError",
    "IllegalMoveError",
    "NotationError",
    "TroedlerError",
    "quote",
    "some_of",
]

DOCS_URL = "https://troedler.readthedocs.io/"
"""The documentation site. :attr:`IllegalMoveError.help_url` points into its
rules page, where every rule id has an anchor."""

QUOTE_LIMIT = 40
"""Longest quotation of bad input in an error message, in characters."""


class TroedlerError(Exception):
    """Root of every error raised by troedler."""


class IllegalMoveError(TroedlerError, ValueError):
    """A move that the rules forbid in the given state.

    ``rule`` is the id of the rule that forbids it (``"T4"``); the message
    starts with that id and states the facts.
    """

    def __init__(self, rule: str, message: str) -> None:
        super().__init__(f"{rule}: {message}")
        self.rule = rule

    @property
    def help_url(self) -> str:
        """Where the documentation explains the rule: ``DOCS_URL`` + ``rules.html#T4``."""
        return f"{DOCS_URL}rules.html#{self.rule}"


class FormatError(TroedlerError, ValueError):
    """A data file (board, cards) that is not valid.

    ``source`` names the file, ``field`` the offending field
    (``villages[3].number``); both appear in the message, before what is
    wrong (``message``).
    """

    def __init__(self, source: str, field: str, message: str) -> None:
        where = f"{source}: {field}" if field else source
        super().__init__(f"{where}: {message}")
        self.source = source
        self.field = field
        self.message = message


class NotationError(TroedlerError, ValueError):
    """Text that is not a move in troedler's notation."""


class ConfigurationError(TroedlerError, ValueError):
    """Arguments that cannot make a game or one of its values: a bad player
    count, rules, seat, seed, goods or card."""


_MOST_BITS_WRITTEN = 128
"""The largest int quoted in full, in bits (39 digits)."""


class _Short(reprlib.Repr):
    """A repr that stays short and cheap whatever it is given."""

    def __init__(self) -> None:
        super().__init__()
        self.maxlevel = 3
        self.maxstring = self.maxother = self.maxlong = QUOTE_LIMIT

    def repr_int(self, x: int, level: int) -> str:
        # Python refuses to write ints of more than 4300 digits, and writing
        # one of a million digits takes seconds: say how big it is instead.
        if x.bit_length() > _MOST_BITS_WRITTEN:
            return f"<int of {x.bit_length()} bits>"
        return reprlib.Repr.repr_int(self, x, level)

    def repr_bytes(self, x: bytes, level: int) -> str:
        return repr(x[: self.maxstring]) + ("..." if len(x) > self.maxstring else "")

    repr_bytearray = repr_bytes


_SHORT = _Short()


def quote(value: object, limit: int = QUOTE_LIMIT) -> str:
    """``value`` as it may appear in an error message: a repr of at most
    ``limit`` characters.

    It never fails and never takes long, whatever ``value`` is: huge
    integers are described by their size, long texts and containers are
    cut, deep nesting is not followed, and an object whose repr fails is
    named by its type.

    >>> quote("x" * 100)[:12], len(quote("x" * 100)) <= 40
    ("'xxxxxxxxxxx", True)
    >>> quote(10**5000)
    '<int of 16610 bits>'
    """
    try:
        text = _SHORT.repr(value)
    except Exception:  # a broken __repr__ or __len__ must not hide the real error
        text = f"<{type(value).__name__}>"
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return text


def some_of(items: list[str], most: int = 4, *, separator: str = ", ") -> str:
    """The first ``most`` of ``items`` joined, and how many more there are:
    a list in a message stays short however long it is.

    >>> some_of(["ferry", "moor", "feed", "AA:4", "AB:3", "extra"])
    'ferry, moor, feed, AA:4 and 2 more'
    """
    if not items:
        return "none"
    shown = separator.join(item[: QUOTE_LIMIT * 2] for item in items[:most])
    return shown if len(items) <= most else f"{shown} and {len(items) - most} more"
