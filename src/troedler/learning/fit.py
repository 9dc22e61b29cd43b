"""Training a value network on labelled positions, with numpy.

The network is small (two hidden layers), so its gradient is a few lines of
numpy, written out below, and training needs nothing beyond the ``rl``
extra on any machine that plays the games. Adam updates the weights.

The loss has three parts, over the rows of :mod:`troedler.learning.labels`:

- **policy**: the cross-entropy between the search's visit shares over a
  decision's options and the network's policy, a softmax of the options'
  scores (ending the turn with the patience added) over the temperature.
  This is what teaches the bot to choose as the search does;
- **search value**: the binary cross-entropy between the network's chance of
  winning (the sigmoid of the logit) and the mean share of the win the
  search found behind each option, weighted by ``visits / (visits + 8)``;
- **outcome**: the same between the chance and the game's outcome, for the
  option played and for the other seats' views.

plus a small L2 penalty on the hidden layers. Part of the games (one in
ten, by game number) are held out, and the epoch whose held-out loss is
lowest is kept.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping
from typing import Any

import attrs
import numpy as np
import numpy.typing as npt

from troedler.bots.value import TERM_SCALE, ValueNetwork

__all__ = ["Fitting", "Losses", "holdout_mask", "losses", "train_step", "trainable"]

Arrays = dict[str, npt.NDArray[Any]]

TRAINED = (
    "terms_weight",
    "bias",
    "patience",
    "log_temperature",
    "hidden_0_weight",
    "hidden_0_bias",
    "hidden_1_weight",
    "hidden_1_bias",
    "output_weight",
)
_DECAYED = ("hidden_0_weight", "hidden_1_weight", "output_weight")
_VISIT_PRIOR = 8.0


@attrs.frozen
class Fitting:
    """How a network is trained."""

    epochs: int = 30
    batch_decisions: int = 128
    """Decisions per minibatch (with a matching share of the other rows)."""
    learning_rate: float = 1e-3
    policy_weight: float = 1.0
    value_weight: float = 1.0
    outcome_weight: float = 0.5
    l2: float = 1e-5
    patience_epochs: int = 4
    """Stop after this many epochs without a better held-out loss."""


@attrs.frozen
class Losses:
    """The loss parts over a sample set (means), and how often the network's
    best option is the one the search visited most."""

    policy: float
    value: float
    outcome: float
    total: float
    agreement: float

    def as_dict(self) -> dict[str, float]:
        """The figures rounded for a log line."""
        return {key: round(value, 5) for key, value in attrs.asdict(self).items()}


def trainable(network: ValueNetwork) -> Arrays:
    """``network``'s arrays as float64 copies to train."""
    return {name: network.arrays[name].astype(np.float64) for name in TRAINED}


def holdout_mask(samples: Mapping[str, npt.NDArray[Any]]) -> npt.NDArray[np.bool_]:
    """The rows held out: those of every tenth game."""
    held: npt.NDArray[np.bool_] = samples["game"] % 10 == 9
    return held


def _forward(
    params: Arrays, terms: npt.NDArray[Any], tensors: npt.NDArray[Any]
) -> tuple[npt.NDArray[np.float64], Arrays]:
    t = terms.astype(np.float64)
    inputs = np.concatenate(
        [np.log1p(tensors.astype(np.float64)), t * np.asarray(TERM_SCALE)], axis=1
    )
    z1 = inputs @ params["hidden_0_weight"].T + params["hidden_0_bias"]
    h1 = np.maximum(z1, 0.0)
    z2 = h1 @ params["hidden_1_weight"].T + params["hidden_1_bias"]
    h2 = np.maximum(z2, 0.0)
    scores = t @ params["terms_weight"] + h2 @ params["output_weight"]
    return scores, {"inputs": inputs, "t": t, "z1": z1, "h1": h1, "z2": z2, "h2": h2}


def _sigmoid(x: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    out: npt.NDArray[np.float64] = 0.5 * (1.0 + np.tanh(0.5 * x))
    return out


def _bce(chance: npt.NDArray[np.float64], target: npt.NDArray[np.float64]) -> npt.NDArray[Any]:
    tiny = 1e-12
    loss: npt.NDArray[Any] = -(
        target * np.log(chance + tiny) + (1 - target) * np.log(1 - chance + tiny)
    )
    return loss


def _objective(
    params: Arrays, batch: Mapping[str, npt.NDArray[Any]], fitting: Fitting, grad: bool
) -> tuple[Losses, Arrays]:
    scores, cache = _forward(params, batch["terms"], batch["tensors"])
    logits = scores + params["bias"][0]
    chance = _sigmoid(logits)
    d_logit = np.zeros_like(scores)
    # Search value.
    counts = batch["count"].astype(np.float64)
    searched = counts > 0
    weights = np.where(searched, counts / (counts + _VISIT_PRIOR), 0.0)
    value_target = np.nan_to_num(batch["value"].astype(np.float64))
    value_loss = 0.0
    if weights.sum() > 0:
        norm = weights.sum()
        value_loss = float((weights * _bce(chance, value_target)).sum() / norm)
        d_logit += fitting.value_weight * weights * (chance - value_target) / norm
    # Outcome.
    known = ~np.isnan(batch["outcome"])
    outcome_loss = 0.0
    if known.any():
        target = np.nan_to_num(batch["outcome"].astype(np.float64))
        norm = float(known.sum())
        outcome_loss = float(_bce(chance, target)[known].sum() / norm)
        d_logit += fitting.outcome_weight * np.where(known, chance - target, 0.0) / norm
    # Policy, over each decision's options (contiguous rows).
    d_score = d_logit.copy()
    options = batch["decision"] >= 0
    policy_loss, agreement = 0.0, 0.0
    d_patience, d_log_temperature = 0.0, 0.0
    if options.any():
        rows = np.flatnonzero(options)
        numbers = batch["decision"][rows]
        starts = np.flatnonzero(np.r_[True, numbers[1:] != numbers[:-1]])
        temperature = math.exp(params["log_temperature"][0])
        end = batch["end"][rows]
        raw = scores[rows] + params["patience"][0] * end
        scaled = raw / temperature
        top = np.maximum.reduceat(scaled, starts)
        sizes = np.diff(np.r_[starts, len(rows)])
        exp = np.exp(scaled - np.repeat(top, sizes))
        total = np.add.reduceat(exp, starts)
        probability = exp / np.repeat(total, sizes)
        visits = batch["visits"][rows].astype(np.float64)
        decisions = len(starts)
        policy_loss = float(-(visits * np.log(probability + 1e-12)).sum() / decisions)
        best_raw = np.maximum.reduceat(raw, starts)
        best_visits = np.maximum.reduceat(visits, starts)
        picked = np.repeat(best_raw, sizes) == raw
        agree = np.add.reduceat((picked & (np.repeat(best_visits, sizes) == visits)), starts)
        agreement = float((agree > 0).mean())
        d_scaled = fitting.policy_weight * (probability - visits) / decisions
        d_score[rows] += d_scaled / temperature
        d_patience = float((d_scaled / temperature * end).sum())
        d_log_temperature = float(-(d_scaled * scaled).sum())
    penalty = fitting.l2 * sum(float((params[name] ** 2).sum()) for name in _DECAYED)
    total_loss = (
        fitting.policy_weight * policy_loss
        + fitting.value_weight * value_loss
        + fitting.outcome_weight * outcome_loss
        + penalty
    )
    figures = Losses(policy_loss, value_loss, outcome_loss, total_loss, agreement)
    if not grad:
        return figures, {}
    grads: Arrays = {
        "bias": np.array([d_logit.sum()]),
        "patience": np.array([d_patience]),
        "log_temperature": np.array([d_log_temperature]),
        "terms_weight": cache["t"].T @ d_score,
        "output_weight": cache["h2"].T @ d_score,
    }
    d_z2 = np.outer(d_score, params["output_weight"]) * (cache["z2"] > 0)
    grads["hidden_1_weight"] = d_z2.T @ cache["h1"]
    grads["hidden_1_bias"] = d_z2.sum(axis=0)
    d_z1 = (d_z2 @ params["hidden_1_weight"]) * (cache["z1"] > 0)
    grads["hidden_0_weight"] = d_z1.T @ cache["inputs"]
    grads["hidden_0_bias"] = d_z1.sum(axis=0)
    for name in _DECAYED:
        grads[name] = grads[name] + 2 * fitting.l2 * params[name]
    return figures, grads


def losses(
    params: Arrays, samples: Mapping[str, npt.NDArray[Any]], fitting: Fitting, chunk: int = 20_000
) -> Losses:
    """The loss parts of ``params`` over ``samples`` (in pieces of whole decisions)."""
    parts: list[tuple[Losses, tuple[int, int, int]]] = []
    for piece in _pieces(samples, chunk):
        figures, _ = _objective(params, piece, fitting, grad=False)
        decisions = len(np.unique(piece["decision"][piece["decision"] >= 0]))
        parts.append(
            (
                figures,
                (
                    decisions,
                    int((piece["count"] > 0).sum()),
                    int((~np.isnan(piece["outcome"])).sum()),
                ),
            )
        )

    def mean(field: str, index: int) -> float:
        """The mean of a loss part over the pieces, weighted by what it counts."""
        weight = sum(counts[index] for _, counts in parts)
        found = sum(float(getattr(figures, field)) * counts[index] for figures, counts in parts)
        return found / max(1, weight)

    policy, value, outcome = mean("policy", 0), mean("value", 1), mean("outcome", 2)
    total = (
        fitting.policy_weight * policy
        + fitting.value_weight * value
        + fitting.outcome_weight * outcome
    )
    return Losses(policy, value, outcome, total, mean("agreement", 0))


def _pieces(samples: Mapping[str, npt.NDArray[Any]], size: int) -> list[Arrays]:
    """``samples`` in pieces of about ``size`` rows, never splitting a decision."""
    n = len(samples["decision"])
    cuts = [0]
    while cuts[-1] < n:
        cut = min(n, cuts[-1] + size)
        decision = samples["decision"]
        while 0 < cut < n and decision[cut] >= 0 and decision[cut] == decision[cut - 1]:
            cut += 1
        cuts.append(cut)
    return [{k: v[a:b] for k, v in samples.items()} for a, b in itertools.pairwise(cuts)]


@attrs.define
class Adam:
    """Adam's moments and step count, kept with a checkpoint."""

    first: Arrays
    second: Arrays
    step: int = 0

    @classmethod
    def fresh(cls, params: Arrays) -> Adam:
        """Zero moments for ``params``."""
        return cls(
            {k: np.zeros_like(v) for k, v in params.items()},
            {k: np.zeros_like(v) for k, v in params.items()},
        )

    def update(self, params: Arrays, grads: Arrays, rate: float) -> None:
        """One step of Adam on ``params``, in place."""
        self.step += 1
        b1, b2 = 0.9, 0.999
        for name, grad in grads.items():
            self.first[name] = b1 * self.first[name] + (1 - b1) * grad
            self.second[name] = b2 * self.second[name] + (1 - b2) * grad * grad
            m = self.first[name] / (1 - b1**self.step)
            v = self.second[name] / (1 - b2**self.step)
            params[name] -= rate * m / (np.sqrt(v) + 1e-8)


def train_step(
    params: Arrays, adam: Adam, batch: Mapping[str, npt.NDArray[Any]], fitting: Fitting
) -> Losses:
    """One minibatch step, in place; the batch's losses before it."""
    figures, grads = _objective(params, batch, fitting, grad=True)
    adam.update(params, grads, fitting.learning_rate)
    return figures


def batches(
    samples: Mapping[str, npt.NDArray[Any]], fitting: Fitting, rng: np.random.Generator
) -> list[npt.NDArray[np.int64]]:
    """One epoch's minibatches as row indices: whole decisions in random
    order, each with a matching share of the other rows."""
    decision = samples["decision"]
    option_rows = np.flatnonzero(decision >= 0)
    other_rows = rng.permutation(np.flatnonzero(decision < 0))
    numbers = decision[option_rows]
    starts = np.flatnonzero(np.r_[True, numbers[1:] != numbers[:-1]])
    ends = np.r_[starts[1:], len(option_rows)]
    order = rng.permutation(len(starts))
    count = max(1, math.ceil(len(order) / fitting.batch_decisions))
    others = np.array_split(other_rows, count)
    result = []
    for k, chosen in enumerate(np.array_split(order, count)):
        parts = [option_rows[starts[d] : ends[d]] for d in chosen]
        result.append(np.concatenate([*parts, others[k]]).astype(np.int64))
    return result


def run_epoch(
    params: Arrays,
    adam: Adam,
    samples: Mapping[str, npt.NDArray[Any]],
    fitting: Fitting,
    rng: np.random.Generator,
    between: Callable[[], None] | None = None,
) -> None:
    """Train one epoch over ``samples``, in place; ``between`` is called between minibatches."""
    for rows in batches(samples, fitting, rng):
        train_step(params, adam, {k: v[rows] for k, v in samples.items()}, fitting)
        if between is not None:
            between()
