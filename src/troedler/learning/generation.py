"""One generation of expert iteration, resumable at every step.

A generation runs four phases, each checkpointed in a *work* folder so
that a run stopped at any moment resumes where it was
(:func:`run_generation` reads the folder's ``state.json``):

1. **play**: games in chunks through the tournament runners (local
   processes, or Dask with a scheduler): self-play of the best network with
   a little exploration, and games against the greedy bot, random bots
   and earlier generations. Each chunk's games are labelled by the search at once
   (:mod:`.labels`) and written, games and rows, before the next begins.
2. **train**: a new network, started from the best one, trained on the
   rows (:mod:`.fit`); a checkpoint after every epoch.
3. **test**: the SPRT of the new network against the best over paired
   deals (:mod:`.sprt`), in batches of pairs, each batch checkpointed.
4. **measure**: an accepted network against the greedy bot, for the curve.

Then the *record* is written, which is what a project commits: a line in
the log (generation, games, samples, losses, verdict, seeds, code
commit), the generation's games as seeds and action ids, and, when the
network was accepted, its weights, which also replace the best network.
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import shutil
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Executor, ProcessPoolExecutor
from pathlib import Path
from typing import Any

import attrs
import numpy as np
import numpy.typing as npt

from troedler.bots.base import Bot
from troedler.bots.greedy import GreedyBot
from troedler.bots.learned import LearnedBot
from troedler.bots.random_bot import RandomBot
from troedler.bots.value import (
    ValueNetwork,
    load_value_network,
    save_value_network,
)
from troedler.core.errors import ConfigurationError
from troedler.learning.fit import Adam, Fitting, holdout_mask, losses, run_epoch, trainable
from troedler.learning.games import GameLine, line_of, read_lines, write_atomic, write_lines
from troedler.learning.labels import Labelling, concatenate, label_game
from troedler.learning.sprt import (
    BASELINE,
    CANDIDATE,
    SPRT,
    deal_specs,
    game_score,
    interval,
    pair_specs,
    score_to_elo,
)
from troedler.simulation.games import GameReport, GameSpec, game_seed
from troedler.simulation.runners import run_games

__all__ = ["Settings", "run_generation"]

MAX_ROUNDS = 100
"""Games are stopped after this round, as tournaments stop them."""

TABLES = (
    *["self-play"] * 4,
    *["two against two greedy"] * 2,
    "one against greedy",
    *["one against random"] * 2,
    "two against two earlier",
)
"""The tables of the play phase, game by game in turn. Alone against random
bots, weak players leave it to the learned bot to end the game and to
out-point players who hoard goods: there the four-player generation 1,
trained without such tables, won 74%, generation 2, with a tenth of them,
78%, where greedy wins 94%.
Two against two earlier generations, or against greedy before there is one."""


def _learned(network: ValueNetwork, name: str, exploration: float = 0.0) -> Callable[[], Bot]:
    """A maker of the learned bot as a generation plays and judges it: with
    one move of look-ahead (no follow-ups), so that the network alone is
    judged and a generation's games keep to their time."""
    return functools.partial(LearnedBot, network, follow_ups=0, exploration=exploration, name=name)


@attrs.frozen
class Settings:
    """Everything a generation is run with."""

    players: int
    work: Path
    """The folder of checkpoints (not committed)."""
    record: Path
    """The folder of the committed record: log, games, accepted weights."""
    weights: Path
    """The best network so far, replaced by an accepted one."""
    seed: int = 1
    games: int = 4000
    """The most games a generation plays."""
    play_minutes: float = 75.0
    """Stop playing after this much time spent in the play phase."""
    chunk_games: int = 8
    exploration: float = 0.05
    labelling: Labelling = attrs.field(factory=Labelling)
    fitting: Fitting = attrs.field(factory=Fitting)
    train_minutes: float = 15.0
    sprt: SPRT = attrs.field(factory=SPRT)
    max_pairs: int = 1500
    """The SPRT stops undecided after this many pairs (the network is not kept)."""
    test_minutes: float = 45.0
    """... or after this much time spent in the test phase."""
    batch_pairs: int = 10
    measure_deals: int = 100
    """Deals played by an accepted network against the greedy bot (2 players:
    pairs; 4 players: the network in each seat against three greedy bots)."""
    workers: int = 1
    scheduler: str | None = None

    def log_path(self) -> Path:
        """The record's log of generations for this player count."""
        return self.record / f"log-{self.players}p.jsonl"

    def games_dir(self) -> Path:
        """The record's folder of games for this player count."""
        return self.record / f"games-{self.players}p"

    def weights_dir(self) -> Path:
        """The record's folder of accepted networks for this player count."""
        return self.record / f"weights-{self.players}p"


def _read_log(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _code_commit() -> str:
    """The commit of the code that runs, where it runs from a git checkout."""
    try:
        found = subprocess.run(
            ["git", "rev-parse", "HEAD"],  # noqa: S607 - git from the PATH, no input of ours
            cwd=Path(__file__).parent,
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    return found.stdout.strip() if found.returncode == 0 else "unknown"


def _save_json(path: Path, data: Mapping[str, Any]) -> None:
    write_atomic(path, (json.dumps(data, indent=1, sort_keys=True) + "\n").encode())


def _save_arrays(path: Path, arrays: Mapping[str, npt.NDArray[Any]]) -> None:
    buffer = io.BytesIO()
    np.savez(buffer, allow_pickle=False, **dict(arrays))
    write_atomic(path, buffer.getvalue())


def _load_arrays(path: Path) -> dict[str, npt.NDArray[Any]]:
    with np.load(path, allow_pickle=False) as archive:
        return {name: archive[name] for name in archive.files}


class Generation:
    """The state of one generation in its work folder."""

    def __init__(self, settings: Settings, say: Callable[[str], None]) -> None:
        self.settings = settings
        self.say = say
        self.work = settings.work
        self.work.mkdir(parents=True, exist_ok=True)
        (self.work / "chunks").mkdir(exist_ok=True)
        self.best = load_value_network(settings.weights)
        if self.best.players != settings.players:
            raise ConfigurationError(
                f"weights: the best network plays {self.best.players} players, "
                f"not {settings.players}"
            )
        state_path = self.work / "state.json"
        if state_path.exists():
            self.state: dict[str, Any] = json.loads(state_path.read_text())
            if self.state["players"] != settings.players:
                raise ConfigurationError("work: this folder holds another player count's run")
            say(f"resuming generation {self.state['generation']} at {self.state['phase']}")
        else:
            log = _read_log(settings.log_path())
            generation = len(log) + 1
            base = game_seed(settings.seed, generation)
            self.state = {
                "players": settings.players,
                "generation": generation,
                "best_generation": self.best.generation,
                "phase": "play",
                "seeds": {
                    name: game_seed(base, i)
                    for i, name in enumerate(("games", "labels", "train", "sprt", "measure"))
                },
                "code": _code_commit(),
                "games": 0,
                "chunks": 0,
                "elapsed": {"play": 0.0, "train": 0.0, "test": 0.0, "measure": 0.0},
                "started": time.time(),
            }
            self.save_state()
            say(f"generation {generation} begins against generation {self.best.generation}")

    def save_state(self) -> None:
        """Write the state file (atomically)."""
        _save_json(self.work / "state.json", self.state)

    @property
    def generation(self) -> int:
        """The number of the generation being made."""
        return int(self.state["generation"])

    # -- play ---------------------------------------------------------------

    def earlier(self) -> list[ValueNetwork]:
        """Accepted networks before the best one, newest first (at most three)."""
        found = []
        folder = self.settings.weights_dir()
        for path in sorted(folder.glob("g*.npz"), reverse=True):
            network = load_value_network(path)
            if network.generation < self.best.generation:
                found.append(network)
            if len(found) == 3:
                break
        return found

    def line_ups(
        self, indices: Sequence[int]
    ) -> tuple[list[GameSpec], dict[str, Callable[[], Bot]]]:
        """The games ``indices`` of the play phase and the bots they seat."""
        s = self.settings
        earlier = self.earlier()
        makers: dict[str, Callable[[], Bot]] = {
            "best": _learned(self.best, "best", s.exploration),
            "greedy": GreedyBot,
            "random": RandomBot,
        }
        for k, network in enumerate(earlier):
            makers[f"earlier{k}"] = _learned(network, f"earlier{k}", s.exploration)
        n = s.players
        specs = []
        for index in indices:
            kind = TABLES[index % len(TABLES)]
            other = f"earlier{index // len(TABLES) % len(earlier)}" if earlier else "greedy"
            if kind == "self-play":
                table = ["best"] * n
            elif kind == "two against two greedy":
                table = ["best", "greedy"] * (n // 2)
            elif kind == "one against greedy":
                table = ["best"] + ["greedy"] * (n - 1)
            elif kind == "one against random":
                table = ["best"] + ["random"] * (n - 1)
            else:
                table = ["best", other] * (n // 2)
            turn = index // len(TABLES) % n  # each kind of table takes every seat in turn
            seats = tuple(table[(seat + turn) % n] for seat in range(n))
            seed = game_seed(self.state["seeds"]["games"], index)
            specs.append(GameSpec(index, seed, seats, MAX_ROUNDS, True))
        return specs, makers

    def play(self, executor: Executor | None) -> None:
        """Play and label chunks until the games or the minutes are used up."""
        s = self.settings
        while self.state["games"] < s.games and self.state["elapsed"]["play"] < s.play_minutes * 60:
            started = time.monotonic()
            chunk = self.state["chunks"]
            first = self.state["games"]
            indices = list(range(first, min(s.games, first + s.chunk_games)))
            specs, makers = self.line_ups(indices)
            reports = sorted(
                run_games(specs, makers, workers=s.workers, scheduler=s.scheduler),
                key=lambda report: report.index,
            )
            lines = [line_of(report, "play") for report in reports]
            task = functools.partial(
                label_game,
                network=self.best,
                labelling=s.labelling,
                seed=self.state["seeds"]["labels"],
            )
            if executor is None:
                labelled = [task(line, game=i) for line, i in zip(lines, indices, strict=True)]
            else:
                labelled = list(executor.map(_label_one, [task] * len(lines), lines, indices))
            samples = concatenate(labelled)
            _save_arrays(self.work / "chunks" / f"c{chunk:05d}.npz", samples)
            write_lines(self.work / "chunks" / f"c{chunk:05d}.games.gz", lines)
            self.state["chunks"] = chunk + 1
            self.state["games"] = indices[-1] + 1
            self.state["elapsed"]["play"] += time.monotonic() - started
            self.save_state()
            decisions = len(np.unique(samples["decision"][samples["decision"] >= 0]))
            self.say(
                f"chunk {chunk}: games {first}-{indices[-1]}, {decisions} decisions labelled, "
                f"{len(samples['decision'])} rows, {time.monotonic() - started:.0f} s"
            )
        self.state["phase"] = "train"
        self.save_state()

    def samples(self) -> dict[str, npt.NDArray[Any]]:
        """Every row labelled in this generation."""
        sets = [
            _load_arrays(self.work / "chunks" / f"c{chunk:05d}.npz")
            for chunk in range(self.state["chunks"])
        ]
        return concatenate(sets)

    # -- train --------------------------------------------------------------

    def train(self) -> None:
        """Train the candidate, resuming from the last epoch's checkpoint."""
        s = self.settings
        data = self.samples()
        held = holdout_mask(data)
        training = {k: v[~held] for k, v in data.items()}
        holdout = {k: v[held] for k, v in data.items()}
        checkpoint = self.work / "train.npz"
        if checkpoint.exists():
            saved = _load_arrays(checkpoint)
            params = {k[7:]: v for k, v in saved.items() if k.startswith("params.")}
            best = {k[5:]: v for k, v in saved.items() if k.startswith("best.")}
            adam = Adam(
                {k[6:]: v for k, v in saved.items() if k.startswith("first.")},
                {k[7:]: v for k, v in saved.items() if k.startswith("second.")},
                int(saved["step"]),
            )
            epoch, stale = int(saved["epoch"]), int(saved["stale"])
            best_loss = float(saved["best_loss"])
        else:
            params = trainable(self.best)
            best = {k: v.copy() for k, v in params.items()}
            adam = Adam.fresh(params)
            epoch, stale = 0, 0
            before = losses(params, holdout, s.fitting)
            best_loss = before.total
            self.state["train"] = {
                "rows": len(data["decision"]),
                "decisions": len(np.unique(data["decision"][data["decision"] >= 0])),
                "holdout_rows": int(held.sum()),
                "before": before.as_dict(),
                "epochs": [],
            }
            self.save_state()
        while (
            epoch < s.fitting.epochs
            and stale < s.fitting.patience_epochs
            and self.state["elapsed"]["train"] < s.train_minutes * 60
        ):
            started = time.monotonic()
            rng = np.random.default_rng([self.state["seeds"]["train"], epoch])
            run_epoch(params, adam, training, s.fitting, rng)
            figures = losses(params, holdout, s.fitting)
            epoch += 1
            if figures.total < best_loss:
                best_loss, stale = figures.total, 0
                best = {k: v.copy() for k, v in params.items()}
            else:
                stale += 1
            stored = {f"params.{k}": v for k, v in params.items()}
            stored |= {f"best.{k}": v for k, v in best.items()}
            stored |= {f"first.{k}": v for k, v in adam.first.items()}
            stored |= {f"second.{k}": v for k, v in adam.second.items()}
            stored |= {
                "step": np.array(adam.step),
                "epoch": np.array(epoch),
                "stale": np.array(stale),
                "best_loss": np.array(best_loss),
            }
            _save_arrays(checkpoint, stored)
            self.state["elapsed"]["train"] += time.monotonic() - started
            self.state["train"]["epochs"].append(figures.as_dict())
            self.save_state()
            self.say(f"epoch {epoch}: held-out {figures.as_dict()}")
        candidate = self.network(best)
        self.state["train"]["after"] = losses(best, holdout, s.fitting).as_dict()
        lines = list(read_lines(self.work / "chunks" / "c00000.games.gz"))
        save_value_network(self.work / "candidate.npz", candidate, _check_positions(lines))
        self.state["phase"] = "test"
        self.save_state()

    def network(self, params: Mapping[str, npt.NDArray[Any]]) -> ValueNetwork:
        """The candidate network with trained ``params``."""
        arrays = {
            name: np.asarray(value, dtype=self.best.arrays[name].dtype)
            for name, value in params.items()
        }
        spec = dict(
            self.best.spec,
            generation=self.generation,
            meta={
                "seeds": self.state["seeds"],
                "code": self.state["code"],
                "trained_from": self.best.generation,
            },
        )
        return ValueNetwork(spec, arrays)

    # -- test ---------------------------------------------------------------

    def test(self) -> None:
        """The SPRT of the candidate against the best, batch by batch."""
        s = self.settings
        candidate = load_value_network(self.work / "candidate.npz")
        scores: list[float] = self.state.setdefault("sprt_scores", [])
        verdict, _ = s.sprt.run(scores)
        while (
            verdict is None
            and len(scores) < s.max_pairs
            and self.state["elapsed"]["test"] < s.test_minutes * 60
        ):
            started = time.monotonic()
            first = len(scores)
            pairs = list(range(first, min(s.max_pairs, first + s.batch_pairs)))
            specs = pair_specs(pairs, s.players, self.state["seeds"]["sprt"], MAX_ROUNDS)
            makers = {
                CANDIDATE: _learned(candidate, "candidate"),
                BASELINE: _learned(self.best, "baseline"),
            }
            reports = sorted(
                run_games(specs, makers, workers=s.workers, scheduler=s.scheduler),
                key=lambda report: report.index,
            )
            for a, b in zip(reports[::2], reports[1::2], strict=True):
                scores.append((game_score(a) + game_score(b)) / 2)
            self._append_games(reports, "sprt")
            verdict, _ = s.sprt.run(scores)
            self.state["elapsed"]["test"] += time.monotonic() - started
            self.save_state()
            mean, low, high = interval(scores)
            self.say(
                f"sprt: {len(scores)} pairs, score {mean:.3f} ({low:.3f}-{high:.3f}), "
                f"llr {s.sprt.llr(scores):.2f}"
            )
        decided, taken = s.sprt.run(scores)
        self.state["verdict"] = decided or "undecided"
        self.state["sprt_pairs"] = taken
        self.state["phase"] = "measure" if decided == "accepted" else "record"
        self.save_state()

    def _append_games(self, reports: Sequence[GameReport], kind: str) -> None:
        number = self.state.setdefault("extra_chunks", 0)
        write_lines(
            self.work / "chunks" / f"x{number:05d}.games.gz",
            [line_of(report, kind) for report in reports],
        )
        self.state["extra_chunks"] = number + 1

    # -- measure ------------------------------------------------------------

    def measure(self) -> None:
        """An accepted candidate against the greedy bot, for the curve."""
        s = self.settings
        candidate = load_value_network(self.work / "candidate.npz")
        scores: list[float] = self.state.setdefault("measure_scores", [])
        while len(scores) < s.measure_deals:
            started = time.monotonic()
            deals = list(range(len(scores), min(s.measure_deals, len(scores) + s.batch_pairs)))
            specs = deal_specs(deals, s.players, self.state["seeds"]["measure"], MAX_ROUNDS)
            makers: dict[str, Callable[[], Bot]] = {
                CANDIDATE: _learned(candidate, "candidate"),
                BASELINE: GreedyBot,
            }
            reports = sorted(
                run_games(specs, makers, workers=s.workers, scheduler=s.scheduler),
                key=lambda report: report.index,
            )
            n = s.players
            for deal in range(len(deals)):
                games = reports[n * deal : n * deal + n]
                scores.append(sum(game_score(report) for report in games) / n)
            self._append_games(reports, "measure")
            self.state["elapsed"]["measure"] += time.monotonic() - started
            self.save_state()
        self.state["phase"] = "record"
        self.save_state()

    # -- record -------------------------------------------------------------

    def record(self) -> dict[str, Any]:
        """Write the committed record; replace the best network if accepted."""
        s = self.settings
        state = self.state
        accepted = state["verdict"] == "accepted"
        scores = state.get("sprt_scores", [])
        counted = scores[: state["sprt_pairs"]]
        mean, low, high = interval(counted)
        games_dir = s.games_dir()
        games_dir.mkdir(parents=True, exist_ok=True)
        paths = [self.work / "chunks" / f"c{k:05d}.games.gz" for k in range(state["chunks"])]
        paths += [
            self.work / "chunks" / f"x{k:05d}.games.gz" for k in range(state.get("extra_chunks", 0))
        ]
        games_file = games_dir / f"g{self.generation:03d}.jsonl.gz"
        write_lines(games_file, [line for path in paths for line in read_lines(path)])
        line: dict[str, Any] = {
            "generation": self.generation,
            "players": s.players,
            "baseline_generation": state["best_generation"],
            "games": state["games"],
            "samples": {k: state["train"][k] for k in ("rows", "decisions", "holdout_rows")},
            "losses": {
                "before": state["train"]["before"],
                "after": state["train"]["after"],
                "epochs": len(state["train"]["epochs"]),
            },
            "sprt": {
                "verdict": state["verdict"],
                "pairs": state["sprt_pairs"],
                "pairs_played": len(scores),
                "score": round(mean, 4),
                "score_95": [round(low, 4), round(high, 4)],
                "elo": round(score_to_elo(min(max(mean, 1e-6), 1 - 1e-6)), 1),
                "llr": round(s.sprt.llr(counted), 3),
                "elo0": s.sprt.elo0,
                "elo1": s.sprt.elo1,
                "alpha": s.sprt.alpha,
                "beta": s.sprt.beta,
                "support": list(s.sprt.support),
            },
            "seeds": state["seeds"],
            "code": state["code"],
            "settings": {
                "exploration": s.exploration,
                "label_iterations": s.labelling.iterations,
                "label_share": s.labelling.share,
                "chunk_games": s.chunk_games,
                "max_pairs": s.max_pairs,
                "fitting": attrs.asdict(s.fitting),
            },
            "minutes": {k: round(v / 60, 1) for k, v in state["elapsed"].items()},
            "games_file": games_file.name,
        }
        if "measure_scores" in state:
            m_mean, m_low, m_high = interval(state["measure_scores"])
            line["against_greedy"] = {
                "deals": len(state["measure_scores"]),
                "games": len(state["measure_scores"]) * s.players,
                "score": round(m_mean, 4),
                "score_95": [round(m_low, 4), round(m_high, 4)],
            }
        if accepted:
            weights_dir = s.weights_dir()
            weights_dir.mkdir(parents=True, exist_ok=True)
            archived = weights_dir / f"g{self.generation:03d}.npz"
            shutil.copyfile(self.work / "candidate.npz", archived)
            line["weights_sha256"] = hashlib.sha256(archived.read_bytes()).hexdigest()
            write_atomic(s.weights, archived.read_bytes())
        log = _read_log(s.log_path())
        if log and log[-1]["generation"] == self.generation:
            log.pop()  # written before the run was stopped: written again, the same
        log.append(line)
        write_atomic(s.log_path(), "".join(json.dumps(row) + "\n" for row in log).encode())
        return line


def _label_one(task: Callable[..., Any], line: GameLine, game: int) -> Any:
    return task(line, game=game)


def _check_positions(lines: Sequence[GameLine]) -> list[tuple[int, list[int], int]]:
    """A few positions of the first games for a weight file's checks."""
    positions = []
    for line in lines[:4]:
        for ply in (len(line.actions) // 3, 2 * len(line.actions) // 3):
            positions.append((line.seed, list(line.actions[:ply]), ply % line.players))
    return positions


def _executor(settings: Settings) -> tuple[Executor | None, Callable[[], None]]:
    """Where labelling runs: this process, local processes, or the Dask cluster."""
    if settings.scheduler is not None:
        from troedler.simulation.runners import connect  # noqa: PLC0415

        client = connect(settings.scheduler)
        return client.get_executor(pure=False), client.close
    if settings.workers > 1:
        pool = ProcessPoolExecutor(settings.workers)
        return pool, pool.shutdown
    return None, lambda: None


def run_generation(settings: Settings, say: Callable[[str], None] = print) -> dict[str, Any]:
    """Run (or resume) one generation to its verdict, write its record, and
    clear the work folder; the log line written."""
    generation = Generation(settings, say)
    executor, close = _executor(settings)
    try:
        if generation.state["phase"] == "play":
            generation.play(executor)
    finally:
        close()
    if generation.state["phase"] == "train":
        generation.train()
    if generation.state["phase"] == "test":
        generation.test()
    if generation.state["phase"] == "measure":
        generation.measure()
    line = generation.record()
    shutil.rmtree(settings.work)
    say(json.dumps(line))
    return line
