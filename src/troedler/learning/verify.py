"""Checking a training record: each generation's verdict follows from its games.

The record keeps every game of a generation's SPRT as a seed and action
ids. :func:`verify_log` replays them with the engine (no network is run),
scores each pair as the test did, runs the test again over the pairs in
order, and compares the verdict, the pairs it took and the score with the
log's line.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from troedler.learning.games import GameLine, read_lines, replay_line, shares
from troedler.learning.sprt import CANDIDATE, SPRT, interval

__all__ = ["curve", "pair_scores", "verify_log"]


def _game_score(line: GameLine) -> float:
    states, _ = replay_line(line)
    final = shares(states[-1])
    return sum(share for seat, share in enumerate(final) if line.seats[seat] == CANDIDATE)


def pair_scores(lines: list[GameLine]) -> list[float]:
    """The candidate's score in each SPRT pair of ``lines``, in pair order."""
    games = sorted((line for line in lines if line.kind == "sprt"), key=lambda line: line.index)
    scores = []
    for first, second in zip(games[::2], games[1::2], strict=True):
        if (first.index // 2, first.seed) != (second.index // 2, second.seed):
            raise ValueError(f"games {first.index} and {second.index} are not one pair")
        scores.append((_game_score(first) + _game_score(second)) / 2)
    return scores


def verify_log(log: Path, games: Path) -> Iterator[tuple[int, bool, str]]:
    """For each generation of ``log`` (a record's log file), whether its
    verdict follows from its games in the folder ``games``, and how."""
    import json  # noqa: PLC0415

    for text in log.read_text().splitlines():
        if not text.strip():
            continue
        line: dict[str, Any] = json.loads(text)
        test = line["sprt"]
        sprt = SPRT(
            elo0=test["elo0"],
            elo1=test["elo1"],
            alpha=test["alpha"],
            beta=test["beta"],
            support=tuple(test["support"]),
        )
        scores = pair_scores(list(read_lines(games / line["games_file"])))
        verdict, pairs = sprt.run(scores)
        mean, _, _ = interval(scores[:pairs])
        found = verdict or "undecided"
        same = (
            found == test["verdict"] and pairs == test["pairs"] and round(mean, 4) == test["score"]
        )
        yield (
            line["generation"],
            same,
            f"replayed {len(scores)} pairs: {found} after {pairs}, score {mean:.4f} "
            f"(log: {test['verdict']} after {test['pairs']}, score {test['score']})",
        )


def curve(log: Path) -> str:
    """The generations of a record's ``log`` as a Markdown table, as docs/rl.md shows it."""
    import json  # noqa: PLC0415

    rows = [
        "| generation | against | games | decisions labelled | SPRT | pairs | score (95%) "
        "| against greedy (95%) | minutes (play, train, test) |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for text in log.read_text().splitlines():
        if not text.strip():
            continue
        line = json.loads(text)
        test = line["sprt"]
        low, high = test["score_95"]
        greedy = line.get("against_greedy")
        shown = "\u2013"
        if greedy is not None:
            g_low, g_high = greedy["score_95"]
            shown = (
                f"{greedy['score']:.1%} ({g_low:.1%}\u2013{g_high:.1%}), {greedy['games']} games"
            )
        minutes = line["minutes"]
        rows.append(
            f"| {line['generation']} | {line['baseline_generation']} | {line['games']} "
            f"| {line['samples']['decisions']} | {test['verdict']} | {test['pairs']} "
            f"| {test['score']:.1%} ({low:.1%}\u2013{high:.1%}) | {shown} "
            f"| {minutes['play']:g}, {minutes['train']:g}, {minutes['test']:g} |"
        )
    return "\n".join(rows)
