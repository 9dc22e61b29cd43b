"""What one seat knows of a game (I1-I3), and full states consistent with it.

Depends on the core only. :func:`~troedler.observe`, :func:`~troedler.determinize`,
:class:`~troedler.Observation` and :data:`~troedler.Recall` are troedler's own
names too; the rest are this package's.
"""

from troedler.core.state import Recall as Recall
from troedler.seat.determinize import determinize as determinize
from troedler.seat.determinize import observation_problem
from troedler.seat.observation import Observation as Observation
from troedler.seat.observation import check_recall, hidden_setup_cards, seat_knows
from troedler.seat.observation import observe as observe

__all__ = ["check_recall", "hidden_setup_cards", "observation_problem", "seat_knows"]
