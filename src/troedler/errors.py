"""The exception family of troedler.

Every error a caller can cause is a :class:`TroedlerError`. The ones caused by
bad input are also :class:`ValueError`, so code that already catches
``ValueError`` keeps working.
"""

from __future__ import annotations

__all__ = [
    "DOCS_URL",
    "ConfigurationError",
    "FormatError",
    "IllegalMoveError",
    "NotationError",
    "TroedlerError",
]

DOCS_URL = "https://troedler.readthedocs.io/"
"""The documentation site. :attr:`IllegalMoveError.help_url` points into its
rules page, where every rule id has an anchor."""


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
    (``villages[3].number``); both appear in the message.
    """

    def __init__(self, source: str, field: str, message: str) -> None:
        where = f"{source}: {field}" if field else source
        super().__init__(f"{where}: {message}")
        self.source = source
        self.field = field


class NotationError(TroedlerError, ValueError):
    """Text that is not a move in troedler's notation."""


class ConfigurationError(TroedlerError, ValueError):
    """Arguments that cannot make a game: a bad player count, rules, seat."""
