"""Seeded shuffles: the only source of chance in a game.

A game state carries its seed and how many shuffles it has made; shuffle
number ``n`` of seed ``s`` is always the same permutation, on every platform,
Python version and process, whatever ``PYTHONHASHSEED`` is. The random words
come from SHAKE-256 of the seed and the shuffle's number, read as
little-endian 64-bit integers, rather than from :mod:`random`, whose
algorithms may change between Python versions. The shuffle is Fisher-Yates
with unbiased draws (rejection sampling).
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Sequence
from typing import TypeVar

__all__ = ["shuffled"]

T = TypeVar("T")

_WORD = 8
_SPARE_WORDS = 8
_RANGE = 1 << 64


def _words(seed: int, number: int, count: int) -> tuple[int, ...]:
    """The first ``count`` random words of shuffle ``number`` of game ``seed``."""
    stream = hashlib.shake_256(f"troedler/{seed}/{number}".encode())
    return struct.unpack(f"<{count}Q", stream.digest(count * _WORD))


def _limit(i: int) -> int:
    """The largest multiple of ``i + 1`` up to 2**64: accepting only words
    below it makes every one of the ``i + 1`` positions equally likely."""
    return _RANGE - _RANGE % (i + 1)


_LIMITS = tuple(map(_limit, range(256)))
"""The limits for every pile of up to 256 cards, worked out once."""


def _limits(size: int) -> tuple[int, ...]:
    """At least ``size`` limits: ``limits[i]`` is :func:`_limit` of ``i``."""
    if size <= len(_LIMITS):
        return _LIMITS
    return _LIMITS + tuple(map(_limit, range(len(_LIMITS), size)))


def shuffled(items: Sequence[T], seed: int, number: int) -> tuple[T, ...]:
    """``items`` in the order of shuffle ``number`` of game ``seed``.

    >>> shuffled("abcde", seed=7, number=0) == shuffled("abcde", seed=7, number=0)
    True
    """
    result = list(items)
    size = len(result)
    if size <= 1:  # nothing to mix
        return tuple(result)
    wanted = size - 1 + _SPARE_WORDS
    words = _words(seed, number, wanted)
    used = 0
    limits = _limits(size)
    for i in range(size - 1, 0, -1):
        limit = limits[i]
        while True:
            if used == len(words):
                # Rejections are rarer than one in 2**57; a longer digest
                # extends the same stream.
                wanted *= 2
                words = _words(seed, number, wanted)
            word = words[used]
            used += 1
            if word < limit:
                break
        j = word % (i + 1)
        result[i], result[j] = result[j], result[i]
    return tuple(result)
