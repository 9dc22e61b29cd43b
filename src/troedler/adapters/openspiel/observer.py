"""What a seat knows of a ``python_troedler`` state, as OpenSpiel's observers give it.

OpenSpiel asks for two kinds of view:

- the **information state** (``IIGObservationType(perfect_recall=True)``):
  everything the seat has seen, in order. The string is the seat's number
  and the position's log, one line per action as every seat saw it, so two
  states give equal strings exactly when no seat can tell them apart. The
  tensor is :func:`~troedler.encoding.tensors.observation_tensor` of
  :func:`troedler.observe` with ``recall="perfect"``: everything ever
  seen, as counts, without the order in which it happened.
- the **observation** (the default type, ``perfect_recall=False``): only
  what lies visible now, :func:`troedler.observe` with ``recall="table"``.
  The tensor is its observation tensor, the string the text view that
  ``troedler play`` shows.

With perfect recall a seat knows every hand and value pile (I3), so nothing
it knows is private: that view is the same with any ``private_info``. The
table view holds the seat's own hand and value pile, so it needs
``private_info=SINGLE_PLAYER``; views of other kinds are refused.

The tensors' named slices (``observer.dict``) are those of
:class:`~troedler.encoding.tensors.TensorLayout`; OpenSpiel's C++ side
reads the tensor through them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt
import pyspiel

from troedler.core.datafile import describe
from troedler.core.errors import ConfigurationError
from troedler.core.state import GameState
from troedler.encoding.tensors import TensorEncoder, TensorLayout
from troedler.seat import Recall, observe
from troedler.text.render import render_observation

__all__ = ["TroedlerObserver", "make_observer"]


class _Table(Protocol):
    """What an observer reads of a game's table."""

    @property
    def tensors(self) -> TensorLayout: ...
    @property
    def names(self) -> tuple[str, ...]: ...


class _Log(Protocol):
    @property
    def log(self) -> str: ...


class _State(Protocol):
    """What an observer reads of a game's state: the engine's state and the
    public log of what happened."""

    @property
    def engine_state(self) -> GameState: ...
    @property
    def position(self) -> _Log: ...


class TroedlerObserver:
    """An observer for one view (``recall``), with its tensor and named slices.

    OpenSpiel calls :meth:`set_from` to fill :attr:`tensor` (and so
    :attr:`dict`) and :meth:`string_from` for the string.
    """

    recall: Recall
    tensor: npt.NDArray[np.float32]
    """The view's numbers for the seat last given to :meth:`set_from`."""
    dict: dict[str, npt.NDArray[np.float32]]
    """The slices of :attr:`tensor` by name, reshaped; they share its memory."""

    def __init__(self, table: _Table, recall: Recall) -> None:
        self.recall = recall
        self._table = table
        self.tensor = np.zeros(table.tensors.size, np.float32)
        self.dict = table.tensors.views(self.tensor)
        # The observer's own encoder: what it remembers between calls is not shared.
        self._encoder = TensorEncoder(table.tensors)

    def set_from(self, state: _State, player: int) -> None:
        """Fill :attr:`tensor` with what ``player`` knows of ``state``."""
        # Straight from the state: equal to encoding observe(), without the record.
        self.tensor[:] = self._encoder.encode_state(state.engine_state, player, self.recall)

    def string_from(self, state: _State, player: int) -> str:
        """What ``player`` knows of ``state``, as text."""
        if self.recall == "perfect":
            if type(player) is not int or not 0 <= player < len(self._table.names):
                raise ConfigurationError(
                    f"seat must be 0 to {len(self._table.names) - 1}, not {describe(player)}"
                )
            # Every seat has seen the same past (I1-I3): the log is everyone's.
            return f"seat {player}\n{state.position.log}"
        seen = observe(state.engine_state, player, recall="table")
        return render_observation(seen, self._table.names)


def make_observer(
    table: _Table, iig_obs_type: Any = None, params: Mapping[str, Any] | None = None
) -> TroedlerObserver:
    """The observer for ``iig_obs_type`` (None: the default observation, the table view).

    ``game.make_observer(params)`` hands its parameters over in place of the
    type, so a mapping there is taken as ``params``. The observers take no
    parameters: :class:`ConfigurationError` for any, and for a view this
    game does not offer.
    """
    if isinstance(iig_obs_type, Mapping):
        iig_obs_type, params = None, iig_obs_type
    if params:
        raise ConfigurationError(
            f"python_troedler observers take no parameters, not {describe(dict(params))}"
        )
    if iig_obs_type is None:
        iig_obs_type = pyspiel.IIGObservationType(perfect_recall=False)
    if not isinstance(iig_obs_type, pyspiel.IIGObservationType):
        raise ConfigurationError(
            f"expected an IIGObservationType or None, not {describe(iig_obs_type)}"
        )
    if not iig_obs_type.public_info:
        raise ConfigurationError("python_troedler views always include the public information")
    if iig_obs_type.perfect_recall:
        return TroedlerObserver(table, "perfect")
    if iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER:
        raise ConfigurationError(
            "the table view of python_troedler holds one seat's own cards: "
            "use private_info=SINGLE_PLAYER"
        )
    return TroedlerObserver(table, "table")
