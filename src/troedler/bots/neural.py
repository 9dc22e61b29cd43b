"""A bot that plays a trained policy network, with numpy only.

:class:`NeuralBot` reads a weight file written by a training run (for
instance ``examples/ppo_train.py`` on the JAX engine) and plays the masked
policy it holds: the observation of its seat as the tensor of
:mod:`troedler.encoding.tensors`, a small network of dense layers, and a
distribution over the legal action ids of :mod:`troedler.encoding.action_ids`.
It needs numpy, not JAX.

A weight file is a ``.npz`` archive read with ``allow_pickle=False``: the
network's arrays as ``float32``, and ``spec``, a JSON text with what the
inputs and outputs mean (the versions and sizes of the tensor and action
layouts, the fingerprint of board and cards, the player count) and how the
layers are built. A file made for other layouts is refused with a
:class:`WeightsError` rather than run on shifted inputs.

Needs numpy (``pip install -e '.[rl]'``).
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from troedler.core.board import default_board
from troedler.core.cards import default_cards, fingerprint
from troedler.core.errors import ConfigurationError, quote
from troedler.core.moves import Move
from troedler.encoding.action_ids import ACTION_LAYOUT_VERSION, action_layout
from troedler.encoding.tensors import TENSOR_LAYOUT_VERSION, observation_tensor, tensor_layout
from troedler.seat import Observation

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "MAX_FILE_BYTES",
    "NeuralBot",
    "Policy",
    "WeightsError",
    "load_policy",
    "policy_spec",
    "read_archive",
    "save_policy",
]

FORMAT = "troedler-policy"
"""The ``format`` field of a weight file's spec."""
FORMAT_VERSION = 1
"""Changes whenever the arrays or the spec of a weight file change meaning."""
MAX_FILE_BYTES = 64 * 2**20
"""The largest weight file read: a bound on what a bad file can make us load."""
_ACTIVATIONS = ("relu", "tanh")
_INPUTS = ("log1p", "identity")


class WeightsError(ConfigurationError):
    """A weight file that cannot be played: unreadable, malformed, or made
    for other tensor or action layouts than the installed ones."""


def policy_spec(
    players: int,
    hidden: Sequence[int],
    *,
    recall: str = "perfect",
    activation: str = "relu",
    inputs: str = "log1p",
    meta: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The spec of a network for ``players`` on troedler's own board and cards,
    with the installed layouts: what :func:`save_policy` writes.

    ``hidden`` are the widths of the dense layers between the tensor and the
    two heads (policy logits, value); ``inputs`` says what is done to the
    tensor first (``log1p`` or ``identity``); ``meta`` holds anything a
    training run wants to keep with its weights (seed, settings, version).
    """
    layout = tensor_layout(default_board(), default_cards(), players)
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "players": players,
        "tensor_layout_version": TENSOR_LAYOUT_VERSION,
        "tensor_size": layout.size,
        "action_layout_version": ACTION_LAYOUT_VERSION,
        "num_actions": action_layout().num_actions,
        "fingerprint": fingerprint(default_board(), default_cards()),
        "recall": recall,
        "inputs": inputs,
        "activation": activation,
        "hidden": [int(width) for width in hidden],
        "meta": dict(meta or {}),
    }


def _layer_names(hidden: Sequence[int]) -> list[str]:
    return [f"hidden_{i}" for i in range(len(hidden))] + ["policy", "value"]


class Policy:
    """A masked policy and value network read from a weight file, run with numpy.

    Build it with :func:`load_policy`. Its layers compute in ``float64`` from
    the file's ``float32`` weights.
    """

    def __init__(self, spec: Mapping[str, Any], arrays: Mapping[str, npt.NDArray[Any]]) -> None:
        self.spec = dict(spec)
        """The file's spec, checked against the installed layouts."""
        self._check_spec()
        hidden = self.spec["hidden"]
        sizes = [self.spec["tensor_size"], *hidden]
        shapes: dict[str, tuple[int, int]] = {
            f"hidden_{i}": (hidden[i], sizes[i]) for i in range(len(hidden))
        }
        shapes["policy"] = (self.spec["num_actions"], sizes[-1])
        shapes["value"] = (1, sizes[-1])
        self._layers: list[tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]] = []
        for name in _layer_names(hidden):
            weight = _array(arrays, f"{name}_weight", shapes[name])
            bias = _array(arrays, f"{name}_bias", (shapes[name][0],))
            # x @ W.T + b: the weights are kept as (out, in), as equinox and torch keep them.
            self._layers.append((weight.astype(np.float64).T.copy(), bias.astype(np.float64)))
        self.tests = {
            key: np.asarray(value) for key, value in arrays.items() if key.startswith("test_")
        }
        """Test vectors the file carries (``test_observations``, ``test_masks``,
        ``test_logits``, ``test_values``): inputs and what the training
        framework computed from them."""

    def _check_spec(self) -> None:
        spec = self.spec
        if spec.get("format") != FORMAT or spec.get("format_version") != FORMAT_VERSION:
            raise WeightsError(
                f"format: not a {FORMAT} file of version {FORMAT_VERSION} "
                f"(format {quote(spec.get('format'))}, version {quote(spec.get('format_version'))})"
            )
        players = spec.get("players")
        if type(players) is not int or not 2 <= players <= 4:
            raise WeightsError(f"players: 2 to 4, not {quote(players)}")
        expected = policy_spec(players, [])
        for field in (
            "tensor_layout_version",
            "tensor_size",
            "action_layout_version",
            "num_actions",
            "fingerprint",
        ):
            if spec.get(field) != expected[field]:
                raise WeightsError(
                    f"{field}: the weights were made for {quote(spec.get(field))}, "
                    f"the installed layouts have {quote(expected[field])}"
                )
        hidden = spec.get("hidden")
        if (
            not isinstance(hidden, list)
            or len(hidden) > 8
            or not all(type(width) is int and 1 <= width <= 4096 for width in hidden)
        ):
            raise WeightsError(
                f"hidden: a list of up to 8 widths from 1 to 4096, not {quote(hidden)}"
            )
        if spec.get("activation") not in _ACTIVATIONS:
            raise WeightsError(
                f"activation: one of {_ACTIVATIONS}, not {quote(spec.get('activation'))}"
            )
        if spec.get("inputs") not in _INPUTS:
            raise WeightsError(f"inputs: one of {_INPUTS}, not {quote(spec.get('inputs'))}")

    @property
    def players(self) -> int:
        """The player count the network was made for."""
        return int(self.spec["players"])

    def forward(
        self, tensors: npt.ArrayLike
    ) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """The logits over every action id and the value, for one tensor or a batch.

        ``tensors`` has :func:`~troedler.encoding.tensors.tensor_layout`'s size
        as its last axis; the logits have the action layout's size, the value
        is one number per tensor.
        """
        x = np.asarray(tensors, dtype=np.float64)
        if x.shape[-1:] != (self.spec["tensor_size"],):
            raise WeightsError(
                f"tensor_size: the network reads {self.spec['tensor_size']} numbers, "
                f"not a tensor of shape {x.shape}"
            )
        if self.spec["inputs"] == "log1p":
            x = np.log1p(x)
        for weight, bias in self._layers[:-2]:
            x = x @ weight + bias
            x = np.maximum(x, 0.0) if self.spec["activation"] == "relu" else np.tanh(x)
        (policy_w, policy_b), (value_w, value_b) = self._layers[-2:]
        return x @ policy_w + policy_b, (x @ value_w + value_b)[..., 0]

    def probabilities(
        self, tensors: npt.ArrayLike, masks: npt.ArrayLike
    ) -> npt.NDArray[np.float64]:
        """The policy over the action ids: a softmax of the logits over the
        ids where ``masks`` is true, 0 elsewhere."""
        logits, _ = self.forward(tensors)
        mask = np.asarray(masks, dtype=bool)
        if mask.shape != logits.shape or not mask.any(axis=-1).all():
            raise ConfigurationError(
                f"masks: one boolean per action id with at least one true, shape {logits.shape}"
            )
        masked = np.where(mask, logits, -np.inf)
        weights = np.exp(masked - masked.max(axis=-1, keepdims=True))
        return weights / weights.sum(axis=-1, keepdims=True)  # type: ignore[no-any-return]


def _array(
    arrays: Mapping[str, npt.NDArray[Any]], name: str, shape: tuple[int, ...]
) -> npt.NDArray[np.float32]:
    if name not in arrays:
        raise WeightsError(f"{name}: missing from the weight file")
    array = arrays[name]
    if array.dtype != np.float32 or array.shape != shape:
        raise WeightsError(
            f"{name}: expected float32 of shape {shape}, got {array.dtype} of shape {array.shape}"
        )
    if not np.isfinite(array).all():
        raise WeightsError(f"{name}: holds numbers that are not finite")
    return array


def read_archive(path: str | Path) -> tuple[dict[str, Any], dict[str, npt.NDArray[Any]]]:
    """The spec (a JSON object) and the arrays of the weight file at ``path``,
    an ``.npz`` archive read without pickle; the spec is not checked here.

    Raises :class:`WeightsError` for a file that is missing, too large, not
    an archive of plain arrays, or without a spec text.
    """
    path = Path(path)
    try:
        size = path.stat().st_size
    except OSError as error:
        raise WeightsError(f"path: cannot read {quote(str(path))} ({error.strerror})") from None
    if size > MAX_FILE_BYTES:
        raise WeightsError(f"path: {size} bytes, over the limit of {MAX_FILE_BYTES}")
    try:
        with np.load(path, allow_pickle=False) as archive:
            arrays = {name: archive[name] for name in archive.files}
    except (OSError, ValueError, EOFError) as error:
        raise WeightsError(
            f"path: {quote(str(path))} is not an .npz archive of plain arrays ({quote(str(error))})"
        ) from None
    spec_array = arrays.pop("spec", None)
    if spec_array is None or spec_array.dtype.kind != "U" or spec_array.shape != ():
        raise WeightsError("spec: the weight file has no spec text")
    try:
        spec = json.loads(str(spec_array))
    except ValueError:
        raise WeightsError("spec: not JSON") from None
    if not isinstance(spec, dict):
        raise WeightsError("spec: not a JSON object")
    return spec, arrays


def load_policy(path: str | Path) -> Policy:
    """The network in the weight file at ``path`` (a ``.npz`` read without pickle).

    Raises :class:`WeightsError` for a file that is missing, too large, not
    an archive of plain arrays, or made for other layouts.
    """
    spec, arrays = read_archive(path)
    return Policy(spec, arrays)


def save_policy(
    path: str | Path,
    spec: Mapping[str, Any],
    arrays: Mapping[str, npt.ArrayLike],
) -> None:
    """Write a weight file: ``spec`` (see :func:`policy_spec`) and the
    network's arrays, as ``float32`` (``test_...`` arrays as given).

    The file is checked by loading it back, so a file that could not be
    played is never left behind.
    """
    path = Path(path)
    stored: dict[str, Any] = {"spec": np.array(json.dumps(dict(spec), sort_keys=True))}
    for name, value in arrays.items():
        array = np.asarray(value)
        stored[name] = array if name.startswith("test_") else array.astype(np.float32)
    with path.open("wb") as file:
        np.savez_compressed(file, **stored)
    try:
        load_policy(path)
    except WeightsError:
        path.unlink()
        raise


class NeuralBot:
    """Plays the policy of a weight file (see :func:`load_policy`).

    It sees only its observation: the tensor of its seat is computed from it
    with :func:`~troedler.encoding.tensors.observation_tensor`, the legal
    moves become action ids, and the move is drawn from the network's
    distribution over them with ``rng`` (or, with ``greedy``, the most likely
    one is taken, the first of equals in legal-move order).

    ``NeuralBot(path)`` reads the file once; tournaments can name it as
    ``"troedler.bots.neural:NeuralBot:PATH"``.
    """

    def __init__(self, path: str | Path, *, greedy: bool = False, name: str = "neural") -> None:
        self.policy = load_policy(path)
        self.greedy = greedy
        self.name = name
        self._checked: tuple[object, object] | None = None

    def __repr__(self) -> str:
        return f"<NeuralBot {self.name!r}: {self.policy.players} players>"

    def distribution(
        self, observation: Observation, legal_moves: Sequence[Move]
    ) -> npt.NDArray[np.float64]:
        """The probability of each of ``legal_moves``, in their order."""
        self._check(observation)
        if not legal_moves:
            raise ConfigurationError("legal_moves: empty; a bot is asked only when it can move")
        layout = action_layout(observation.board, observation.cards)
        ids = np.array(layout.action_ids(legal_moves))
        mask = np.zeros(layout.num_actions, dtype=bool)
        mask[ids] = True
        probabilities = self.policy.probabilities(observation_tensor(observation), mask)
        legal: npt.NDArray[np.float64] = probabilities[ids]
        return legal

    def choose(
        self, observation: Observation, legal_moves: Sequence[Move], rng: random.Random
    ) -> Move:
        """A legal move drawn from the network's policy (or its most likely one)."""
        probabilities = self.distribution(observation, legal_moves)
        if self.greedy:
            return legal_moves[int(np.argmax(probabilities))]
        draw = rng.random() * math.fsum(probabilities)
        running = 0.0
        for move, probability in zip(legal_moves, probabilities, strict=True):
            running += probability
            if draw < running:
                return move
        return legal_moves[int(np.flatnonzero(probabilities > 0)[-1])]  # rounding at the top

    def check_players(self, num_players: int) -> None:
        """:class:`WeightsError` unless the network was made for ``num_players``."""
        if num_players != self.policy.players:
            raise WeightsError(
                f"players: the network plays {self.policy.players}-player games, "
                f"not {num_players}-player ones"
            )

    def _check(self, observation: Observation) -> None:
        if not isinstance(observation, Observation):
            raise ConfigurationError(f"expected an Observation, got {quote(observation)}")
        self.check_players(observation.rules.num_players)
        # The fingerprint is checked once per board and catalogue, not at every move.
        checked = self._checked
        if (
            checked is not None
            and checked[0] is observation.board
            and checked[1] is observation.cards
        ):
            return
        if fingerprint(observation.board, observation.cards) != self.policy.spec["fingerprint"]:
            raise WeightsError(
                "fingerprint: the game's board and cards are not those the network was made for"
            )
        self._checked = (observation.board, observation.cards)
