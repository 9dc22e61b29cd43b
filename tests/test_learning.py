"""Training by generations: the gradient, the SPRT, a whole small generation,
its resumption after a stop, and the replay of its verdict from its games."""

from __future__ import annotations

import gzip
import json
import math
import random
import shutil
from pathlib import Path
from typing import Any

import attrs
import pytest

np = pytest.importorskip("numpy")

from troedler.bots import GreedyBot  # noqa: E402
from troedler.bots.learned import LearnedBot  # noqa: E402
from troedler.bots.value import greedy_network, load_value_network, save_value_network  # noqa: E402
from troedler.learning.fit import Fitting, _forward, _objective, losses, trainable  # noqa: E402
from troedler.learning.games import GameLine, read_lines, replay_line, shares  # noqa: E402
from troedler.learning.generation import Settings, run_generation  # noqa: E402
from troedler.learning.labels import COLUMNS, Labelling, label_game  # noqa: E402
from troedler.learning.sprt import (  # noqa: E402
    SPRT,
    elo_to_score,
    llr,
    pair_specs,
    play_pairs,
    score_to_elo,
)
from troedler.learning.verify import curve, verify_log  # noqa: E402


def batch(rng: Any, tensor_size: int) -> dict[str, Any]:
    """Rows of six decisions of five options and ten other views, at random."""
    rows = 40
    return {
        "terms": rng.normal(0, 5, (rows, 8)).astype(np.float32),
        "tensors": rng.integers(0, 4, (rows, tensor_size)).astype(np.uint8),
        "decision": np.r_[np.repeat(np.arange(6), 5), -np.ones(10, int)].astype(np.int32),
        "end": np.arange(rows) % 5 == 4,
        "visits": np.tile(np.array([0.1, 0.2, 0.3, 0.4, 0.0]), 8).astype(np.float32),
        "value": np.where(rng.random(rows) < 0.8, rng.random(rows), np.nan).astype(np.float32),
        "count": rng.integers(0, 5, rows).astype(np.int32),
        "outcome": np.where(rng.random(rows) < 0.5, rng.integers(0, 2, rows), np.nan).astype(
            np.float32
        ),
        "game": np.zeros(rows, np.int32),
    }


def test_the_gradient_is_the_loss_s_derivative() -> None:
    rng = np.random.default_rng(0)
    network = greedy_network(2, hidden=(6, 5))
    params = trainable(network)
    for name in ("output_weight", "hidden_0_bias", "hidden_1_bias"):
        params[name] = rng.normal(0, 0.4, params[name].shape)  # off the ReLUs' kinks
    params["patience"][0], params["log_temperature"][0] = 0.1, -1.0
    rows = batch(rng, network.spec["tensor_size"])
    fitting = Fitting(l2=1e-3)
    _, grads = _objective(params, rows, fitting, grad=True)
    for name, array in params.items():
        for index in list(np.ndindex(array.shape))[:5]:
            kept = array[index]
            array[index] = kept + 1e-6
            up = _objective(params, rows, fitting, grad=False)[0].total
            array[index] = kept - 1e-6
            down = _objective(params, rows, fitting, grad=False)[0].total
            array[index] = kept
            numeric = (up - down) / 2e-6
            assert math.isclose(grads[name][index], numeric, rel_tol=1e-4, abs_tol=1e-7), name


def test_training_and_play_compute_the_same_scores() -> None:
    rng = np.random.default_rng(1)
    network = greedy_network(4, hidden=(12, 6))
    params = trainable(network)
    params["output_weight"] = rng.normal(0, 0.5, 6)
    arrays = {k: np.asarray(v, dtype=network.arrays[k].dtype) for k, v in params.items()}
    from troedler.bots.value import ValueNetwork

    played = ValueNetwork(network.spec, arrays)
    rows = batch(rng, network.spec["tensor_size"])
    trained, _ = _forward(params, rows["terms"], rows["tensors"])
    scores = played.scores(rows["terms"].astype(np.float64), rows["tensors"].astype(np.float32))
    assert np.allclose(trained, scores, rtol=1e-5, atol=1e-5)


def test_the_sprt_ratio_is_fishtest_s_and_stops_at_its_bounds() -> None:
    sprt = SPRT(elo0=0, elo1=20)
    low, high = sprt.bounds
    assert math.isclose(high, math.log(0.95 / 0.05)) and math.isclose(low, -high)
    assert math.isclose(score_to_elo(elo_to_score(35.0)), 35.0)
    # With many pairs the ratio is the normal approximation's:
    # N (s1 - s0) (2 mean - s0 - s1) / (2 variance).
    rng = random.Random(4)
    scores = [rng.choice([0.0, 0.25, 0.5, 0.5, 0.75, 1.0]) for _ in range(3000)]
    mean = sum(scores) / len(scores)
    variance = sum((s - mean) ** 2 for s in scores) / len(scores)
    s0, s1 = elo_to_score(0), elo_to_score(20)
    approximate = len(scores) * (s1 - s0) * (2 * mean - s0 - s1) / (2 * variance)
    assert math.isclose(sprt.llr(scores), approximate, rel_tol=0.02)
    # Even pairs tell against a better candidate, strong ones for it.
    assert sprt.run([0.5] * 400)[0] == "rejected"
    verdict, pairs = sprt.run([1.0, 0.5, 0.75] * 100)
    assert verdict == "accepted" and pairs < 60
    assert sprt.run([0.5, 1.0, 0.0])[0] is None
    assert llr([], 0, 20) == 0.0


def test_the_sprt_errs_about_as_often_as_it_says() -> None:
    # Pairs drawn at H0's score (no better): H1 is accepted rarely.
    sprt = SPRT(elo0=0, elo1=60)
    rng = random.Random(7)
    wrong = 0
    for _ in range(60):
        scores = []
        verdict = None
        while verdict is None and len(scores) < 2000:
            scores.append(rng.choice([0.0, 0.5, 0.5, 1.0]))
            verdict = sprt.verdict(scores)
        wrong += verdict == "accepted"
    assert wrong <= 8  # alpha = 0.05 of 60 is 3


def test_paired_deals_share_the_seed_and_swap_the_seats() -> None:
    specs = pair_specs([0, 1], 4, seed=3)
    assert [spec.index for spec in specs] == [0, 1, 2, 3]
    assert specs[0].seed == specs[1].seed != specs[2].seed
    assert specs[0].seats == ("candidate", "baseline", "candidate", "baseline")
    assert specs[1].seats == ("baseline", "candidate", "baseline", "candidate")
    played = list(play_pairs([0, 1, 2], GreedyBot, GreedyBot, players=2, seed=5))
    assert sorted(pair for pair, *_ in played) == [0, 1, 2]
    for _, score, first, second in played:
        assert first.seed == second.seed and 0 <= score <= 1
        assert first.seats == ("candidate", "baseline") and first.seats == second.seats[::-1]


def test_the_teacher_is_the_search_the_networks_guide_as_a_bot_text_plays() -> None:
    from troedler.simulation.lineup import bot_from_text

    network = greedy_network(2)
    teacher = Labelling(iterations=30).teacher(network)
    guided = bot_from_text("ismcts:30:neural")
    assert teacher.guide is not None and teacher.guide.network(2) is network
    assert (teacher.iterations, teacher.exploration) == (guided.iterations, guided.exploration)


def test_labelled_rows_carry_the_search_and_the_outcome(tmp_path: Path) -> None:
    from troedler.learning.games import line_of
    from troedler.simulation.games import GameSpec
    from troedler.simulation.runners import run_games

    (report,) = run_games([GameSpec(0, 21, ("greedy", "greedy"), 100, True)], {"greedy": GreedyBot})
    line = line_of(report)
    states, _ = replay_line(line)
    assert states[-1].is_over and len(states) == len(line.actions) + 1
    network = greedy_network(2)
    rows = label_game(line, network, Labelling(iterations=8, share=0.2), seed=1, game=0)
    assert set(rows) == set(COLUMNS)
    options = rows["decision"] >= 0
    for decision in np.unique(rows["decision"][options]):
        mine = rows["decision"] == decision
        assert math.isclose(rows["visits"][mine].sum(), 1.0, rel_tol=1e-5)
        assert rows["count"][mine].sum() == 8
        assert (~np.isnan(rows["outcome"][mine])).sum() == 1  # the option played
    assert np.array_equal(np.isnan(rows["value"]), rows["count"] == 0)
    assert set(np.unique(rows["outcome"][~options])) <= {0.0, 1.0}
    again = label_game(line, network, Labelling(iterations=8, share=0.2), seed=1, game=0)
    assert all(np.array_equal(rows[k], again[k], equal_nan=True) for k in COLUMNS)


def settings(folder: Path, weights: Path) -> Settings:
    return Settings(
        players=2,
        work=folder / "work",
        record=folder / "record",
        weights=weights,
        games=6,
        chunk_games=2,
        labelling=Labelling(iterations=6, share=0.3),
        fitting=Fitting(epochs=2, batch_decisions=16),
        sprt=SPRT(elo0=0, elo1=300),
        max_pairs=6,
        batch_pairs=3,
        measure_deals=2,
    )


class Stop(Exception):
    pass


def test_a_stopped_generation_resumes_to_the_same_record(tmp_path: Path) -> None:
    fresh = tmp_path / "fresh.npz"
    save_value_network(fresh, greedy_network(2, hidden=(8, 4)))
    whole, stopped = tmp_path / "whole", tmp_path / "stopped"
    for folder in (whole, stopped):
        folder.mkdir()
        shutil.copyfile(fresh, folder / "best.npz")
    line = run_generation(settings(whole, whole / "best.npz"), say=lambda _: None)

    said: list[str] = []

    def stop_at(word: str) -> Any:
        def say(text: str) -> None:
            said.append(text)
            if text.startswith(word):
                raise Stop(text)

        return say

    run = settings(stopped, stopped / "best.npz")
    for word in ("chunk 1", "epoch 1", "sprt: 3"):
        with pytest.raises(Stop):
            run_generation(run, say=stop_at(word))
        assert (run.work / "state.json").exists()
    resumed = run_generation(run, say=said.append)
    assert any(text.startswith("resuming generation 1 at test") for text in said)
    assert not run.work.exists()
    for record in (line, resumed):
        record.pop("minutes")
    assert resumed == line
    games = "games-2p/g001.jsonl.gz"
    assert (whole / "record" / games).read_bytes() == (stopped / "record" / games).read_bytes()
    assert line["generation"] == 1 and line["games"] == 6
    assert line["sprt"]["verdict"] in ("accepted", "rejected", "undecided")
    assert line["samples"]["rows"] > 0 and line["code"]


def test_the_record_s_verdicts_are_replayed_from_its_games(tmp_path: Path) -> None:
    weights = tmp_path / "best.npz"
    save_value_network(weights, greedy_network(2, hidden=(8, 4)))
    run = settings(tmp_path, weights)
    line = run_generation(run, say=lambda _: None)
    games = run.games_dir() / line["games_file"]
    kinds = {game.kind for game in read_lines(games)}
    assert {"play", "sprt"} <= kinds
    ((generation, same, how),) = verify_log(run.log_path(), run.games_dir())
    assert generation == 1 and same, how
    table = curve(run.log_path()).splitlines()
    assert len(table) == 3 and table[2].startswith(
        f"| 1 | 0 | 6 | {line['samples']['decisions']} |"
    )
    if line["sprt"]["verdict"] == "accepted":
        accepted = load_value_network(weights)
        assert accepted.generation == 1 and "against_greedy" in line
        assert LearnedBot(accepted).network(2) is accepted
    # The seats of a game won outright swapped: the replayed verdict no longer
    # matches the log.
    lines = [json.loads(text) for text in gzip.decompress(games.read_bytes()).decode().splitlines()]
    decided = next(
        game
        for game in lines
        if game["kind"] == "sprt"
        and sum(
            1 for share in shares(replay_line(GameLine.from_json(json.dumps(game)))[0][-1]) if share
        )
        == 1
    )
    decided["seats"] = decided["seats"][::-1]
    games.write_bytes(gzip.compress("".join(json.dumps(g) + "\n" for g in lines).encode()))
    ((_, same, how),) = verify_log(run.log_path(), run.games_dir())
    assert not same, how


def test_held_out_losses_fall_when_training_on_a_search_s_labels(tmp_path: Path) -> None:
    # Not a strength claim: the trainer learns what it is shown.
    weights = tmp_path / "best.npz"
    save_value_network(weights, greedy_network(2, hidden=(16, 8)))
    run = settings(tmp_path, weights)
    run = attrs.evolve(
        run, games=10, chunk_games=10, fitting=Fitting(epochs=4, batch_decisions=16), max_pairs=1
    )
    line = run_generation(run, say=lambda _: None)
    before, after = line["losses"]["before"], line["losses"]["after"]
    assert after["total"] < before["total"], line["losses"]
    assert losses(trainable(greedy_network(2)), _empty_rows(), Fitting()).total == 0.0


def _empty_rows() -> dict[str, Any]:
    from troedler.learning.labels import empty

    return empty(greedy_network(2))


ROOT = Path(__file__).resolve().parent.parent
RECORD = ROOT / "benchmarks" / "results" / "learned"


@pytest.mark.parametrize("players", [2, 4])
def test_what_ships_is_the_last_generation_the_record_accepted(players: int) -> None:
    import hashlib

    from troedler.bots.learned import shipped_path

    log = [json.loads(text) for text in (RECORD / f"log-{players}p.jsonl").read_text().splitlines()]
    accepted = [line for line in log if line["sprt"]["verdict"] == "accepted"]
    shipped = hashlib.sha256(shipped_path(players).read_bytes()).hexdigest()
    if not accepted:
        assert load_value_network(shipped_path(players)).generation == 0
        return
    last = accepted[-1]
    assert shipped == last["weights_sha256"]
    archived = RECORD / f"weights-{players}p" / f"g{last['generation']:03d}.npz"
    assert hashlib.sha256(archived.read_bytes()).hexdigest() == shipped
    assert load_value_network(shipped_path(players)).generation == last["generation"]
    assert (RECORD / f"games-{players}p" / last["games_file"]).exists()


def test_the_curve_in_the_docs_is_the_record_s() -> None:
    text = (ROOT / "docs" / "rl.md").read_text()
    for players, name in ((2, "Two players:"), (4, "Four players:")):
        table = curve(RECORD / f"log-{players}p.jsonl")
        assert f"{name}\n\n{table}\n" in text, f"docs/rl.md: {name} is not the record's curve"


def test_the_play_phase_mixes_self_play_greedy_random_and_earlier_tables(tmp_path: Path) -> None:
    from troedler.learning.generation import Generation

    weights = tmp_path / "best.npz"
    save_value_network(weights, greedy_network(4, hidden=(8, 4)))
    run = attrs.evolve(settings(tmp_path, weights), players=4)
    specs, makers = Generation(run, say=lambda _: None).line_ups(range(100))
    tables = [sorted(spec.seats) for spec in specs]
    share = {
        "self-play": tables.count(["best"] * 4),
        "two against two greedy": tables.count(["best", "best", "greedy", "greedy"]),
        "one against greedy": tables.count(["best", "greedy", "greedy", "greedy"]),
        "one against random": tables.count(["best", "random", "random", "random"]),
    }
    # No earlier generation yet: its tenth of the games is two against two greedy.
    assert share == {
        "self-play": 40,
        "two against two greedy": 30,
        "one against greedy": 10,
        "one against random": 20,
    }
    assert {name for spec in specs for name in spec.seats} <= set(makers)
    assert makers["random"]().name == "random"
    # A generation judges its network alone: its bots look one move ahead,
    # not past their best cards as the shipped bot does.
    best = makers["best"]()
    assert isinstance(best, LearnedBot)
    assert best.follow_ups == 0
    # Against random bots the learned bot sits every seat in turn.
    alone = [spec.seats.index("best") for spec in specs if "random" in spec.seats]
    assert sorted(set(alone)) == [0, 1, 2, 3]
