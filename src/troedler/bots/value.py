"""A learned value of positions: greedy's evaluation plus a small correction.

A :class:`ValueNetwork` says how likely a seat is to win from a position,
as a logit (the log-odds of the win)::

    logit = w · terms + bias + MLP(log1p(tensor), scaled terms)

The *terms* (:data:`TERMS`) are built from
:func:`~troedler.bots.greedy.evaluate`, the greedy bot's planning
evaluation, taken for the seat and for the other seats; the *tensor* is
what the seat knows of the position
(:func:`~troedler.encoding.tensors.state_tensor`). The MLP has two hidden
layers with ReLU and one output; its output layer starts at zero, so a
fresh network (:func:`greedy_network`) values positions exactly as
``evaluate / 8`` does, and a bot that plays its best-valued move after
one move of look-ahead (``LearnedBot(follow_ups=0)``,
:class:`~troedler.bots.learned.LearnedBot`) plays as the greedy bot does.

The bias is the same for every move of one decision, so moves are compared
by :meth:`ValueNetwork.scores`, the logit without the bias.

A weight file is a ``.npz`` archive read with ``allow_pickle=False``: the
arrays and ``spec``, a JSON text with what the inputs are (the terms, the
tensor layout's version and size, the fingerprint of board and cards, the
player count, the recall), the layers, and *checks*: positions given as a
seed and action ids, with the score the network gave each when it was
saved. Loading replays them and refuses the file if the installed engine
scores them otherwise, so a network never runs on inputs whose meaning
changed under it.

Needs numpy (``pip install -e '.[rl]'``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from troedler.bots.greedy import evaluations
from troedler.bots.neural import MAX_FILE_BYTES, WeightsError, read_archive
from troedler.core.board import default_board
from troedler.core.cards import default_cards, fingerprint
from troedler.core.chance import new_game
from troedler.core.errors import ConfigurationError, TroedlerError, quote
from troedler.core.legal import apply_move
from troedler.core.state import GameState
from troedler.encoding.action_ids import action_layout
from troedler.encoding.tensors import (
    TENSOR_LAYOUT_VERSION,
    TensorEncoder,
    tensor_layout,
    tensor_layout_for,
)
from troedler.seat import Recall

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "TERMS",
    "Check",
    "ValueNetwork",
    "greedy_network",
    "load_value_network",
    "position_terms",
    "save_value_network",
    "value_spec",
]

FORMAT = "troedler-value"
"""The ``format`` field of a value network's spec."""
FORMAT_VERSION = 1
"""Changes whenever the arrays, the terms or the spec change meaning."""

TERMS = (
    "evaluate",
    "evaluate_best_other",
    "evaluate_mean_other",
    "progress",
    "evaluate_by_progress",
    "best_other_by_progress",
    "to_move",
    "late",
)
"""The terms of a position for one seat, in their order:

- ``evaluate``: :func:`~troedler.bots.greedy.evaluate` for the seat;
- ``evaluate_best_other``, ``evaluate_mean_other``: the highest and the mean
  evaluation of the other seats;
- ``progress``: the most goods requests any player has fulfilled, as a
  share of the number that ends the game (E1), at most 1;
- ``evaluate_by_progress``, ``best_other_by_progress``: the first two
  evaluations times the progress (an evaluation means more late in the game);
- ``to_move``: 1 when the seat is the one to decide;
- ``late``: rounds past the twentieth, in twenties (a long game is a stand-off).
"""

TERM_SCALE = (0.1, 0.1, 0.1, 1.0, 0.1, 0.1, 1.0, 1.0)
"""What the terms are multiplied by before the hidden layers, so that all
their inputs are of about one size (evaluations run from about -20 to 30)."""

GREEDY_SCALE = 0.125
"""A fresh network's weight of ``evaluate``: a logistic fit of the winner on
the evaluation over greedy games gives about 0.14 for 2 and 4 players. A
power of two, so that scaling keeps every comparison of evaluations exact."""

GREEDY_BIAS = {2: -1.07, 3: -1.6, 4: -2.17}
"""A fresh network's bias: the fit's intercept with the weight above (the
three-player one between the others, not fitted)."""

GREEDY_PATIENCE = 0.05
"""The greedy bot's patience, in points of evaluation."""
GREEDY_PRIOR_TEMPERATURE = 0.5
"""The search's prior temperature, in points of evaluation."""

_HIDDEN_LIMIT = 1024
_CHECK_TOLERANCE = 1e-6
_ROUND_SCALE = 20.0
_LATE_FROM = 20

Check = dict[str, Any]
"""A position a weight file checks: ``seed``, ``actions`` (ids from the new
game), ``seat`` and the ``score`` saved."""


def position_terms(state: GameState, seat: int, values: Sequence[float]) -> list[float]:
    """The :data:`TERMS` of ``state`` for ``seat``, given
    :func:`~troedler.bots.greedy.evaluations` of it."""
    own = values[seat]
    others = [value for other, value in enumerate(values) if other != seat]
    best = max(others)
    most_done = max(len(player.fulfilled_requests) for player in state.players)
    progress = min(1.0, most_done / state.rules.end_threshold)
    late = max(0, state.round - _LATE_FROM) / _ROUND_SCALE
    return [
        own,
        best,
        sum(others) / len(others),
        progress,
        own * progress,
        best * progress,
        1.0 if state.current_player == seat else 0.0,
        late,
    ]


def value_spec(
    players: int,
    hidden: Sequence[int],
    *,
    recall: Recall = "perfect",
    generation: int = 0,
    meta: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The spec of a value network for ``players`` on troedler's own board and
    cards with the installed tensor layout (checks are added when saved).

    ``hidden`` are the widths of the two hidden layers; ``recall`` the
    recall whose tensors the network reads (the tournaments' bots see with
    perfect recall); ``meta`` anything a training run keeps with its
    weights (seeds, settings, code version).
    """
    layout = tensor_layout(default_board(), default_cards(), players)
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "players": players,
        "tensor_layout_version": TENSOR_LAYOUT_VERSION,
        "tensor_size": layout.size,
        "fingerprint": fingerprint(default_board(), default_cards()),
        "recall": recall,
        "terms": list(TERMS),
        "hidden": [int(width) for width in hidden],
        "generation": generation,
        "meta": dict(meta or {}),
        "checks": [],
    }


_LINEAR = ("terms_weight", "bias", "patience", "log_temperature")
"""Arrays kept as float64: comparisons of evaluations stay exact through them."""


def array_shapes(spec: Mapping[str, Any]) -> dict[str, tuple[int, ...]]:
    """The name and shape of every array of a network with ``spec``."""
    first, second = spec["hidden"]
    inputs = spec["tensor_size"] + len(TERMS)
    return {
        "terms_weight": (len(TERMS),),
        "bias": (1,),
        "patience": (1,),
        "log_temperature": (1,),
        "hidden_0_weight": (first, inputs),
        "hidden_0_bias": (first,),
        "hidden_1_weight": (second, first),
        "hidden_1_bias": (second,),
        "output_weight": (second,),
    }


class ValueNetwork:
    """A value network read from a weight file (:func:`load_value_network`)
    or made fresh (:func:`greedy_network`), run with numpy.

    Its arrays are read-only; a network is shared by every bot that plays
    it. The hidden layers compute in ``float32``, the linear part and the
    sum in ``float64``.
    """

    def __init__(self, spec: Mapping[str, Any], arrays: Mapping[str, npt.ArrayLike]) -> None:
        self.spec = dict(spec)
        """The spec, checked against the installed layouts."""
        _check_spec(self.spec)
        self.arrays: dict[str, npt.NDArray[Any]] = {}
        """Every array by name (float64 for the linear part, float32 else)."""
        for name, shape in array_shapes(self.spec).items():
            if name not in arrays:
                raise WeightsError(f"{name}: missing from the weight file")
            array = np.asarray(arrays[name])
            dtype = np.float64 if name in _LINEAR else np.float32
            if array.dtype != dtype or array.shape != shape:
                raise WeightsError(
                    f"{name}: expected {np.dtype(dtype).name} of shape {shape}, "
                    f"got {array.dtype} of shape {array.shape}"
                )
            if not np.isfinite(array).all():
                raise WeightsError(f"{name}: holds numbers that are not finite")
            array = array.copy()
            array.flags.writeable = False
            self.arrays[name] = array
        self._w = self.arrays["terms_weight"]
        self._scale = np.asarray(TERM_SCALE, dtype=np.float32)
        self._hidden_0 = self.arrays["hidden_0_weight"].T.copy()
        self._hidden_1 = self.arrays["hidden_1_weight"].T.copy()
        self._output = self.arrays["output_weight"]
        self._silent = not self._output.any()
        """Whether the MLP's output is zero whatever its input (a fresh network)."""

    def __repr__(self) -> str:
        return (
            f"<ValueNetwork for {self.players} players, generation {self.generation}, "
            f"hidden {self.spec['hidden']}>"
        )

    @property
    def players(self) -> int:
        """The player count the network was made for."""
        return int(self.spec["players"])

    @property
    def generation(self) -> int:
        """The training generation that made the network (0: fresh)."""
        return int(self.spec["generation"])

    @property
    def recall(self) -> Recall:
        """The recall of the tensors the network reads."""
        recall: Recall = self.spec["recall"]
        return recall

    @property
    def bias(self) -> float:
        """The part of every logit that does not depend on the position."""
        return float(self.arrays["bias"][0])

    @property
    def patience(self) -> float:
        """How much better than ending the turn a card must score to be played."""
        return float(self.arrays["patience"][0])

    @property
    def temperature(self) -> float:
        """The temperature of the network's policy: a softmax of the scores
        over the moves of a decision divided by it."""
        return math.exp(float(self.arrays["log_temperature"][0]))

    def encoder(self) -> TensorEncoder:
        """A new tensor encoder for this network's inputs (each bot keeps its own)."""
        return TensorEncoder(tensor_layout_for(self.players))

    def features(
        self,
        states: Sequence[GameState],
        seats: Sequence[int],
        encoder: TensorEncoder,
        values: Sequence[Sequence[float]] | None = None,
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float32]]:
        """The terms and tensors of each of ``states`` seen by the seat of the
        same place in ``seats``; ``values`` are the :func:`~troedler.bots.greedy.evaluations` of
        each state where they are known already."""
        terms = np.empty((len(states), len(TERMS)), dtype=np.float64)
        tensors = np.empty((len(states), self.spec["tensor_size"]), dtype=np.float32)
        recall = self.recall
        for row, (state, seat) in enumerate(zip(states, seats, strict=True)):
            known = evaluations(state) if values is None else values[row]
            terms[row] = position_terms(state, seat, known)
            tensors[row] = encoder.encode_state(state, seat, recall)
        return terms, tensors

    def scores(
        self, terms: npt.NDArray[np.float64], tensors: npt.NDArray[np.float32]
    ) -> npt.NDArray[np.float64]:
        """The logit of each row less the bias: ``w · terms + MLP``."""
        linear: npt.NDArray[np.float64] = terms @ self._w
        if self._silent:
            return linear
        return linear + self.correction(terms, tensors)

    def correction(
        self, terms: npt.NDArray[np.float64], tensors: npt.NDArray[np.float32]
    ) -> npt.NDArray[np.float64]:
        """The MLP's part of each row's logit."""
        inputs = np.concatenate(
            [np.log1p(tensors), terms.astype(np.float32) * self._scale], axis=-1
        )
        # Most numbers of a tensor are 0: only the columns with a number
        # count. The products stay small enough for BLAS to compute them in
        # this thread, which matters on a busy machine.
        used = np.flatnonzero(inputs.any(axis=0))
        hidden = inputs[:, used] @ self._hidden_0[used] + self.arrays["hidden_0_bias"]
        hidden = np.maximum(hidden, 0.0)
        hidden = np.maximum(hidden @ self._hidden_1 + self.arrays["hidden_1_bias"], 0.0)
        out: npt.NDArray[np.float64] = (hidden @ self._output).astype(np.float64)
        return out

    def logits(
        self, terms: npt.NDArray[np.float64], tensors: npt.NDArray[np.float32]
    ) -> npt.NDArray[np.float64]:
        """The log-odds of each row's seat winning."""
        return self.scores(terms, tensors) + self.bias

    def state_scores(
        self,
        states: Sequence[GameState],
        seat: int,
        encoder: TensorEncoder,
        values: Sequence[Sequence[float]] | None = None,
    ) -> npt.NDArray[np.float64]:
        """The score of each of ``states`` for ``seat``; ``values`` are their
        :func:`~troedler.bots.greedy.evaluations` where they are known already."""
        return self.scores(*self.features(states, [seat] * len(states), encoder, values))

    def seat_logits(self, state: GameState, encoder: TensorEncoder) -> npt.NDArray[np.float64]:
        """The logit of every seat's win in ``state``, in seat order."""
        values = evaluations(state)
        seats = range(state.num_players)
        terms, tensors = self.features([state] * len(seats), seats, encoder, [values] * len(seats))
        return self.logits(terms, tensors)

    def check_players(self, num_players: int) -> None:
        """:class:`WeightsError` unless the network was made for ``num_players``."""
        if num_players != self.players:
            raise WeightsError(
                f"players: the network plays {self.players}-player games, "
                f"not {num_players}-player ones"
            )


def _check_spec(spec: Mapping[str, Any]) -> None:
    if spec.get("format") != FORMAT or spec.get("format_version") != FORMAT_VERSION:
        raise WeightsError(
            f"format: not a {FORMAT} file of version {FORMAT_VERSION} "
            f"(format {quote(spec.get('format'))}, version {quote(spec.get('format_version'))})"
        )
    players = spec.get("players")
    if type(players) is not int or not 2 <= players <= 4:
        raise WeightsError(f"players: 2 to 4, not {quote(players)}")
    expected = value_spec(players, [1, 1])
    for field in ("tensor_layout_version", "tensor_size", "fingerprint", "terms"):
        if spec.get(field) != expected[field]:
            raise WeightsError(
                f"{field}: the weights were made for {quote(spec.get(field))}, "
                f"the installed engine has {quote(expected[field])}"
            )
    if spec.get("recall") not in ("perfect", "table"):
        raise WeightsError(f"recall: perfect or table, not {quote(spec.get('recall'))}")
    hidden = spec.get("hidden")
    if (
        not isinstance(hidden, list)
        or len(hidden) != 2
        or not all(type(width) is int and 1 <= width <= _HIDDEN_LIMIT for width in hidden)
    ):
        raise WeightsError(f"hidden: two widths from 1 to {_HIDDEN_LIMIT}, not {quote(hidden)}")
    generation = spec.get("generation")
    if type(generation) is not int or generation < 0:
        raise WeightsError(f"generation: a whole number from 0, not {quote(generation)}")
    if not isinstance(spec.get("meta"), dict):
        raise WeightsError("meta: not a JSON object")
    checks = spec.get("checks")
    if not isinstance(checks, list) or len(checks) > 64:
        raise WeightsError("checks: a list of at most 64 positions")


def greedy_network(
    players: int,
    hidden: Sequence[int] = (64, 32),
    *,
    seed: int = 0,
    meta: Mapping[str, Any] | None = None,
) -> ValueNetwork:
    """A fresh network for ``players``: it scores a position by
    ``evaluate / 8`` alone (its output layer is zero), so that a bot playing
    its best-scored move plays as the greedy bot does.

    The hidden layers are drawn with ``seed`` (He's scaling), ready to be
    trained; the bias is a logistic fit of the winner on the evaluation over
    greedy games, so that its logits are the odds of winning, roughly.
    """
    if players not in GREEDY_BIAS:
        raise ConfigurationError(f"S1: a game has 2 to 4 players, not {quote(players)}")
    spec = value_spec(players, hidden, meta=meta)
    rng = np.random.default_rng(seed)
    arrays: dict[str, npt.NDArray[Any]] = {}
    for name, shape in array_shapes(spec).items():
        if name.endswith("_weight") and len(shape) == 2:
            scale = math.sqrt(2.0 / shape[1])
            arrays[name] = rng.normal(0.0, scale, shape).astype(np.float32)
        else:
            dtype = np.float64 if name in _LINEAR else np.float32
            arrays[name] = np.zeros(shape, dtype=dtype)
    arrays["terms_weight"][0] = GREEDY_SCALE
    arrays["bias"][0] = GREEDY_BIAS[players]
    arrays["patience"][0] = GREEDY_PATIENCE * GREEDY_SCALE
    arrays["log_temperature"][0] = math.log(GREEDY_PRIOR_TEMPERATURE * GREEDY_SCALE)
    return ValueNetwork(spec, arrays)


def _replay(players: int, check: Any) -> tuple[GameState, int]:
    """The position of a check, replayed from its seed and action ids."""
    if (
        not isinstance(check, dict)
        or type(check.get("seed")) is not int
        or not isinstance(check.get("actions"), list)
        or len(check["actions"]) > 5000
        or type(check.get("seat")) is not int
        or not isinstance(check.get("score"), float)
    ):
        raise WeightsError("checks: each is an object of seed, actions, seat and score")
    layout = action_layout()
    try:
        state = new_game(players, seed=check["seed"])
        for action in check["actions"]:
            state = apply_move(state, layout.move_for(action, state))
    except (TroedlerError, TypeError, ValueError) as error:
        raise WeightsError(f"checks: a position cannot be replayed ({quote(str(error))})") from None
    if not 0 <= check["seat"] < players:
        raise WeightsError(f"checks: seat {quote(check['seat'])} is not at the table")
    return state, check["seat"]


def _verify_checks(network: ValueNetwork) -> None:
    encoder = network.encoder()
    for check in network.spec["checks"]:
        state, seat = _replay(network.players, check)
        score = float(network.state_scores([state], seat, encoder)[0])
        if not math.isclose(
            score, check["score"], rel_tol=_CHECK_TOLERANCE, abs_tol=_CHECK_TOLERANCE
        ):
            raise WeightsError(
                f"checks: a position scores {score:.6g} here, {check['score']:.6g} when saved: "
                "the network's inputs (evaluate, the tensors) changed since it was trained"
            )


def make_checks(
    network: ValueNetwork, positions: Sequence[tuple[int, Sequence[int], int]]
) -> list[Check]:
    """Checks of ``network``: each position, given as ``(seed, action ids,
    seat)``, with the score the network gives it now."""
    encoder = network.encoder()
    checks: list[Check] = []
    for seed, actions, seat in positions:
        check = {"seed": seed, "actions": [int(a) for a in actions], "seat": seat, "score": 0.0}
        state, _ = _replay(network.players, check)
        check["score"] = float(network.state_scores([state], seat, encoder)[0])
        checks.append(check)
    return checks


def load_value_network(path: str | Path) -> ValueNetwork:
    """The value network in the weight file at ``path`` (read without pickle).

    Raises :class:`~troedler.bots.neural.WeightsError` for a file that is
    missing, too large, not an archive of plain arrays, made for other
    layouts, or whose checks the installed engine does not reproduce.
    """
    spec, arrays = read_archive(path)
    network = ValueNetwork(spec, arrays)
    _verify_checks(network)
    return network


def save_value_network(
    path: str | Path,
    network: ValueNetwork,
    positions: Sequence[tuple[int, Sequence[int], int]] = (),
) -> None:
    """Write ``network`` to ``path``, with checks of ``positions`` (``(seed,
    action ids, seat)``, see :func:`make_checks`).

    The file is written beside ``path`` and moved into place once it has
    been read back, so a file that could not be played, or half a file, is
    never left at ``path``.
    """
    path = Path(path)
    spec = dict(network.spec, checks=make_checks(network, positions))
    stored: dict[str, Any] = {"spec": np.array(json.dumps(spec, sort_keys=True))}
    stored.update(network.arrays)
    partial = path.with_name(path.name + ".partial")
    with partial.open("wb") as file:
        np.savez_compressed(file, **stored)
    try:
        if partial.stat().st_size > MAX_FILE_BYTES:
            raise WeightsError(f"path: over the limit of {MAX_FILE_BYTES} bytes")
        load_value_network(partial)
    except WeightsError:
        partial.unlink()
        raise
    partial.replace(path)
