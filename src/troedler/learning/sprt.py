"""A sequential probability ratio test over paired deals, as fishtest runs it.

Two bots play *pairs* of games: the same deal (the same seed) twice, the
seats turned so that each bot plays the other's seats the second time.
With two players the candidate sits in seat 0, then in seat 1; with four,
the two bots take alternate seats (``A B A B``, then ``B A B A``). A pair
scores the candidate's share of the two wins, from 0 to 1 (a shared win
counts its share; a game stopped at the round cap counts as even). The
deal's luck falls on both bots alike, and a pair's score varies less than
two single games' do.

The test weighs two hypotheses about the candidate's expected pair score,
given as logistic Elo (``score = 1 / (1 + 10 ** (-elo / 400))``): H0, no
better than ``elo0``, against H1, at least ``elo1``. After every pair it
computes the log-likelihood ratio of H1 to H0 by the generalized SPRT of
fishtest (Michel Van den Bergh's): the distribution of pair scores seen so
far, re-weighted to the nearest distribution of the hypothesis's mean (the
maximum-likelihood estimate under that mean). It stops at the first pair
where the ratio leaves ``[log(beta / (1 - alpha)), log((1 - beta) / alpha)]``,
about [-2.94, 2.94] for alpha = beta = 0.05: above, H1 is accepted (the
candidate is better); below, H0 is (it is not).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence

import attrs

from troedler.bots.base import Bot
from troedler.core.errors import ConfigurationError
from troedler.simulation.games import GameReport, GameSpec, game_seed
from troedler.simulation.runners import run_games

__all__ = [
    "BASELINE",
    "CANDIDATE",
    "SPRT",
    "deal_specs",
    "elo_to_score",
    "game_score",
    "interval",
    "llr",
    "pair_score",
    "pair_specs",
    "play_pairs",
    "score_to_elo",
]

CANDIDATE = "candidate"
"""The label of the bot under test in an SPRT's games."""
BASELINE = "baseline"
"""The label of the bot it is tested against."""

_REGULARIZE = 1e-3
"""The count given to a possible pair score never seen (fishtest's epsilon)."""


def elo_to_score(elo: float) -> float:
    """The expected score of a bot ``elo`` logistic Elo points stronger."""
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def score_to_elo(score: float) -> float:
    """The logistic Elo difference of an expected ``score`` (0 < score < 1)."""
    return -400.0 * math.log10(1.0 / score - 1.0)


def _mle(distribution: Sequence[tuple[float, float]], mean: float) -> list[float]:
    """The distribution nearest to ``distribution`` (values and their
    probabilities) whose expectation is ``mean``: ``p_i / (1 + x (a_i - mean))``
    with ``x`` solving ``sum p_i (a_i - mean) / (1 + x (a_i - mean)) = 0``."""
    low_value, high_value = distribution[0][0], distribution[-1][0]
    if not low_value < mean < high_value:
        raise ConfigurationError(f"the mean {mean} lies outside the scores seen")
    low, high = -1.0 / (high_value - mean), 1.0 / (mean - low_value)

    def slope(x: float) -> float:
        return sum(p * (a - mean) / (1.0 + x * (a - mean)) for a, p in distribution)

    # The sum falls from +inf at ``low`` to -inf at ``high``: bisect inside.
    margin = (high - low) * 1e-12
    left, right = low + margin, high - margin
    for _ in range(200):
        middle = (left + right) / 2
        if slope(middle) > 0:
            left = middle
        else:
            right = middle
    x = (left + right) / 2
    return [p / (1.0 + x * (a - mean)) for a, p in distribution]


def llr(
    scores: Sequence[float], elo0: float, elo1: float, support: Sequence[float] = (0.0, 1.0)
) -> float:
    """The log-likelihood ratio of H1 (``elo1``) to H0 (``elo0``) given pair
    ``scores`` from 0 to 1. Every value of ``support`` counts as seen at
    least ``1e-3`` times, so that a short run's ratio stays finite."""
    if not scores:
        return 0.0
    counts: dict[float, float] = dict(Counter(scores))
    for value in support:
        counts.setdefault(value, _REGULARIZE)
    total = sum(counts.values())
    distribution = sorted((value, count / total) for value, count in counts.items())
    if len(distribution) < 2:
        return 0.0
    h0 = _mle(distribution, elo_to_score(elo0))
    h1 = _mle(distribution, elo_to_score(elo1))
    return len(scores) * sum(
        p * math.log(one / zero) for (_, p), zero, one in zip(distribution, h0, h1, strict=True)
    )


@attrs.frozen
class SPRT:
    """The test's settings: the hypotheses in logistic Elo and the error rates."""

    elo0: float = 0.0
    elo1: float = 20.0
    alpha: float = 0.05
    beta: float = 0.05
    support: tuple[float, ...] = (0.0, 0.25, 0.5, 0.75, 1.0)
    """The pair scores the test regularizes over (for two players, the five
    outcomes of a pair: the pentanomial model)."""

    def __attrs_post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ConfigurationError(f"elo0 ({self.elo0}) must be below elo1 ({self.elo1})")
        if not (0 < self.alpha < 0.5 and 0 < self.beta < 0.5):
            raise ConfigurationError("alpha and beta are error rates between 0 and 0.5")

    @property
    def bounds(self) -> tuple[float, float]:
        """Where the log-likelihood ratio stops the test: accept H0 below, H1 above."""
        return (math.log(self.beta / (1 - self.alpha)), math.log((1 - self.beta) / self.alpha))

    def llr(self, scores: Sequence[float]) -> float:
        """The log-likelihood ratio after ``scores``."""
        return llr(scores, self.elo0, self.elo1, self.support)

    def verdict(self, scores: Sequence[float]) -> str | None:
        """``accepted`` (H1: the candidate is better), ``rejected`` (H0), or
        None while the ratio lies between the bounds."""
        ratio = self.llr(scores)
        low, high = self.bounds
        if ratio >= high:
            return "accepted"
        if ratio <= low:
            return "rejected"
        return None

    def run(self, scores: Sequence[float]) -> tuple[str | None, int]:
        """The verdict of the sequential test over ``scores`` in order, and
        the number of pairs it took (all of them while undecided)."""
        for count in range(1, len(scores) + 1):
            verdict = self.verdict(scores[:count])
            if verdict is not None:
                return verdict, count
        return None, len(scores)


def interval(scores: Sequence[float]) -> tuple[float, float, float]:
    """The mean pair score with its 95% interval (normal approximation)."""
    n = len(scores)
    if n == 0:
        return (0.5, 0.0, 1.0)
    mean = sum(scores) / n
    variance = sum((score - mean) ** 2 for score in scores) / max(1, n - 1)
    half = 1.959963984540054 * math.sqrt(variance / n)
    return (mean, max(0.0, mean - half), min(1.0, mean + half))


def pair_specs(
    pairs: Sequence[int], players: int, seed: int, max_rounds: int | None = 100
) -> list[GameSpec]:
    """The two games of each pair: the same deal, the candidate's and the
    baseline's seats swapped."""
    if players not in (2, 4):
        raise ConfigurationError(
            f"paired deals seat two bots evenly at 2 or 4 players, not {players}"
        )
    first = tuple(CANDIDATE if seat % 2 == 0 else BASELINE for seat in range(players))
    second = tuple(BASELINE if label == CANDIDATE else CANDIDATE for label in first)
    specs = []
    for pair in pairs:
        deal = game_seed(seed, pair)
        for half, seats in enumerate((first, second)):
            specs.append(GameSpec(2 * pair + half, deal, seats, max_rounds, True))
    return specs


def deal_specs(
    deals: Sequence[int], players: int, seed: int, max_rounds: int | None = 100
) -> list[GameSpec]:
    """Each deal played ``players`` times, the candidate in each seat in turn
    and the baseline in all the others (one bot against a table of another)."""
    specs = []
    for deal in deals:
        for seat in range(players):
            seats = tuple(CANDIDATE if s == seat else BASELINE for s in range(players))
            specs.append(
                GameSpec(players * deal + seat, game_seed(seed, deal), seats, max_rounds, True)
            )
    return specs


def game_score(report: GameReport) -> float:
    """The candidate's share of the win in one game: the winners share 1; a
    game stopped at the round cap is shared by every seat alike; a game a
    bot forfeits is shared by the others."""
    seats = report.seats
    mine = sum(label == CANDIDATE for label in seats)
    if report.failure is not None:
        # The bot that failed loses; the others share the game evenly.
        failed = seats[report.failure.seat] == CANDIDATE
        return (mine - failed) / (len(seats) - 1)
    if not report.finished:
        return mine / len(seats)
    share = 1.0 / len(report.winners)
    return sum(share for seat in report.winners if seats[seat] == CANDIDATE)


def pair_score(first: GameReport, second: GameReport) -> float:
    """The candidate's score over a pair's two games, from 0 to 1."""
    return (game_score(first) + game_score(second)) / 2


def play_pairs(
    pairs: Sequence[int],
    candidate: Callable[[], Bot],
    baseline: Callable[[], Bot],
    *,
    players: int,
    seed: int,
    workers: int = 1,
    scheduler: str | None = None,
    max_rounds: int | None = 100,
) -> Iterator[tuple[int, float, GameReport, GameReport]]:
    """Play the ``pairs`` through the tournament runners; each pair's number,
    score and two reports as its second game ends."""
    makers: Mapping[str, Callable[[], Bot]] = {CANDIDATE: candidate, BASELINE: baseline}
    waiting: dict[int, GameReport] = {}
    specs = pair_specs(pairs, players, seed, max_rounds)
    for report in run_games(specs, makers, workers=workers, scheduler=scheduler):
        pair = report.index // 2
        other = waiting.pop(pair, None)
        if other is None:
            waiting[pair] = report
            continue
        first, second = sorted((report, other), key=lambda r: r.index)
        yield pair, pair_score(first, second), first, second
