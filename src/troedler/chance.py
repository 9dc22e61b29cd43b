"""Seeded shuffles: the only source of chance in a game.

A game state carries its seed and how many shuffles it has made; shuffle
number ``n`` of seed ``s`` is always the same permutation, on every platform,
Python version and process, whatever ``PYTHONHASHSEED`` is. We use our own
generator (SplitMix64 seeded through BLAKE2b) rather than :mod:`random`, whose
algorithms are free to change between Python versions.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import TypeVar

__all__ = ["shuffled"]

T = TypeVar("T")

_MASK = (1 << 64) - 1


def _stream(seed: int, number: int) -> int:
    digest = hashlib.blake2b(f"troedler/{seed}/{number}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little")


def shuffled(items: Sequence[T], seed: int, number: int) -> tuple[T, ...]:
    """``items`` in the order of shuffle ``number`` of game ``seed``.

    >>> shuffled("abcde", seed=7, number=0) == shuffled("abcde", seed=7, number=0)
    True
    """
    result = list(items)
    state = _stream(seed, number)
    # Fisher-Yates with unbiased bounded draws (rejection sampling).
    for i in range(len(result) - 1, 0, -1):
        bound = i + 1
        limit = _MASK - (_MASK + 1) % bound
        while True:
            state = (state + 0x9E3779B97F4A7C15) & _MASK
            z = state
            z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
            z ^= z >> 31
            if z <= limit:
                break
        j = z % bound
        result[i], result[j] = result[j], result[i]
    return tuple(result)
