"""Reading data from outside (TOML boards and cards, JSON states and records)
without trusting it.

Every check raises :class:`FormatError` naming the source and the field, so a
user who types up their own board learns exactly which line is wrong, and a
server that receives a stranger's game record learns exactly what is bad.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any

from troedler.core.errors import FormatError, quote

__all__ = ["Fields", "array_items", "describe", "read_packaged_toml", "read_toml"]

MAX_FILE_BYTES = 1_000_000


def read_toml(path: str | Path) -> tuple[str, dict[str, Any]]:
    """The file's name (for messages) and its parsed TOML table."""
    if not isinstance(path, str | os.PathLike):
        raise FormatError(quote(path), "", "expected the path of a file")
    source = str(path)
    try:
        raw = Path(path).read_bytes()
    except (OSError, ValueError) as error:  # ValueError: a NUL in the path
        reason = error.strerror if isinstance(error, OSError) else "not a path"
        raise FormatError(source, "", f"cannot be read ({reason})") from None
    if len(raw) > MAX_FILE_BYTES:
        raise FormatError(source, "", f"is {len(raw)} bytes, more than {MAX_FILE_BYTES}")
    return source, _parse(source, raw)


def read_packaged_toml(name: str) -> tuple[str, dict[str, Any]]:
    """A data file shipped inside the package, read like any other."""
    raw = resources.files("troedler").joinpath("data").joinpath(name).read_bytes()
    return name, _parse(name, raw)


def _parse(source: str, raw: bytes) -> dict[str, Any]:
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise FormatError(source, "", f"is not UTF-8 text (byte {error.start})") from None
    except tomllib.TOMLDecodeError as error:
        raise FormatError(source, "", f"is not valid TOML ({error})") from None


class Fields:
    """A checked view of one TOML table: every read names its field on error."""

    def __init__(self, source: str, path: str, table: object) -> None:
        self.source = source
        self.path = path
        if not isinstance(table, Mapping):
            raise self.error("", f"expected a table, got {describe(table)}")
        self.table: Mapping[str, object] = table

    def error(self, key: str, message: str) -> FormatError:
        """A FormatError for ``key`` of this table."""
        return FormatError(self.source, self._at(key), message)

    def _at(self, key: str) -> str:
        if not key:
            return self.path
        return f"{self.path}.{key}" if self.path else key

    def only(self, *allowed: str) -> None:
        """Reject keys this table does not define (a typo must not pass silently)."""
        for key in self.table:
            if key not in allowed:
                raise self.error(key, f"unknown field; expected one of {', '.join(allowed)}")

    def get(self, key: str) -> object:
        """The raw value at ``key``; FormatError if missing."""
        if key not in self.table:
            raise self.error(key, "missing")
        return self.table[key]

    def string(self, key: str) -> str:
        """A non-empty string at ``key``."""
        value = self.get(key)
        if not isinstance(value, str) or not value.strip():
            raise self.error(key, f"expected a non-empty string, got {describe(value)}")
        return value

    def integer(self, key: str, low: int, high: int) -> int:
        """An integer at ``key`` within ``low..high``."""
        value = self.get(key)
        if type(value) is not int:
            raise self.error(key, f"expected an integer, got {describe(value)}")
        if not low <= value <= high:
            raise self.error(key, f"expected {low} to {high}, got {quote(value)}")
        return value

    def array(self, key: str) -> list[object]:
        """A list at ``key``."""
        value = self.get(key)
        if not isinstance(value, list):
            raise self.error(key, f"expected an array, got {describe(value)}")
        return value

    def tables(self, key: str) -> list[Fields]:
        """An array of tables at ``key``, each as :class:`Fields`."""
        return [
            Fields(self.source, f"{self._at(key)}[{i}]", item)
            for i, item in enumerate(self.array(key))
        ]

    def table_at(self, key: str) -> Fields:
        """The sub-table at ``key``."""
        return Fields(self.source, self._at(key), self.get(key))

    def boolean(self, key: str) -> bool:
        """A true or false at ``key``."""
        value = self.get(key)
        if type(value) is not bool:
            raise self.error(key, f"expected true or false, got {describe(value)}")
        return value

    def optional_integer(self, key: str, low: int, high: int) -> int | None:
        """An integer within ``low..high`` at ``key``, or null."""
        if self.get(key) is None:
            return None
        return self.integer(key, low, high)

    def items(self, key: str, most: int) -> list[tuple[str, object]]:
        """The items of the array at ``key``, each with its path; at most ``most``."""
        return array_items(self.source, self._at(key), self.get(key), most)

    def path_of(self, key: str) -> str:
        """The full path of ``key`` in this table."""
        return self._at(key)


def array_items(source: str, path: str, value: object, most: int) -> list[tuple[str, object]]:
    """The items of the array ``value`` found at ``path``, each with its own
    path; at most ``most`` of them."""
    if not isinstance(value, list):
        raise FormatError(source, path, f"expected an array, got {describe(value)}")
    if len(value) > most:
        raise FormatError(source, path, f"expected at most {most} items, got {len(value)}")
    return [(f"{path}[{i}]", item) for i, item in enumerate(value)]


def describe(value: object) -> str:
    """A short description of ``value`` for an error message: its type and a
    bounded quotation (see :func:`troedler.core.errors.quote`)."""
    return f"{type(value).__name__} {quote(value)}"
