"""Deliberately broken JAX engines, for the differential walk's negative controls.

Each changes the tables of the JAX engine (:class:`troedler.jax.tables.Tables`)
so that one rule is played wrongly; :func:`troedler.jax.differential.walk`
with ``changed=`` one of them must report mismatches. They live with the
tests, not in the installed package.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import attrs
import numpy as np

if TYPE_CHECKING:  # importing troedler.jax starts JAX; the main test process must not
    from troedler.jax.tables import Tables


def no_feed_for_replacing(t: Tables) -> Tables:
    """T5c broken: a delivery that replaces goods costs no special feed."""
    return attrs.evolve(t, deliver_replaced=np.zeros_like(t.deliver_replaced))


def game_ends_late(t: Tables) -> Tables:
    """E1 broken: the game ends one fulfilled request late."""
    rules = attrs.evolve(t.game.rules, end_threshold=t.game.rules.end_threshold + 1)
    return attrs.evolve(t, game=attrs.evolve(t.game, rules=rules))


BROKEN_RULES: dict[str, Callable[[Tables], Tables]] = {
    "T5c": no_feed_for_replacing,
    "E1": game_ends_late,
}
"""The broken engines by the rule each breaks."""
