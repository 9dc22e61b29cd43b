"""Tournaments and ``troedler simulate``: the same figures whoever plays the games,
users' own bots, failing bots forfeiting, and no finished game ever lost."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from troedler import GameRecord
from troedler.bots import GreedyBot, RandomBot
from troedler.cli import main
from troedler.cli.simulate import write_summary
from troedler.core.errors import ConfigurationError
from troedler.simulation import Tournament, game_seed, tournament
from troedler.simulation.games import SEED_LIMIT

SRC = str(Path(__file__).resolve().parents[1] / "src")

USER_BOTS = '''
import os
import time


class FirstMove:
    """Always the first legal move; with an ARG, it is named after it."""

    def __init__(self, suffix=""):
        self.name = "first" + suffix

    def choose(self, observation, legal_moves, rng):
        return legal_moves[0]


class Raises:
    name = "raises"

    def choose(self, observation, legal_moves, rng):
        if observation.round >= 2:
            raise ValueError("no idea what to do")
        return legal_moves[-1]


class Sulks:
    """Plays as greedy, but fails in round 2 of the games it plays from seat 1."""

    name = "sulks"

    def __init__(self):
        from troedler.bots import GreedyBot

        self.greedy = GreedyBot()

    def choose(self, observation, legal_moves, rng):
        if observation.round >= 2 and observation.seat == 1:
            raise ValueError("I would rather not")
        return self.greedy.choose(observation, legal_moves, rng)


class Cheats:
    name = "cheats"

    def choose(self, observation, legal_moves, rng):
        return "take 9"


class Sleeps:
    name = "sleeps"

    def choose(self, observation, legal_moves, rng):
        time.sleep(600)


class Crashes:
    name = "crashes"

    def choose(self, observation, legal_moves, rng):
        os._exit(3)


class Nameless:
    def choose(self, observation, legal_moves, rng):
        return legal_moves[0]
'''


@pytest.fixture
def user_bots(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A module of the user's own bots, importable here and in worker processes."""
    (tmp_path / "userbots.py").write_text(USER_BOTS)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _troedler(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=SRC)
    return subprocess.run(
        [sys.executable, "-m", "troedler", *args],
        capture_output=True, text=True, check=False, cwd=cwd, env=env, timeout=120,
    )  # fmt: skip


def test_same_seed_same_summary_in_this_process_or_in_two_workers() -> None:
    bots = ["greedy", "random", "random"]
    alone = tournament(bots, games=8, seed=3, max_rounds=40)
    shared = tournament(bots, games=8, seed=3, max_rounds=40, workers=2)
    watched = tournament(bots, games=8, seed=3, max_rounds=40, workers=2, move_time_limit=60)
    assert alone == shared == watched
    assert alone.games == 8 and alone.players == 3


def test_game_seeds_are_hashed_into_any_records_range() -> None:
    seeds = [game_seed(20_000_000_000_000, i) for i in range(1000)]
    assert len(set(seeds)) == 1000
    assert all(0 <= seed < SEED_LIMIT for seed in seeds)
    # Neighbouring run seeds do not share games, as seed * k + i would.
    assert not set(seeds) & {game_seed(20_000_000_000_001, i) for i in range(1000)}
    assert game_seed(1, 0) == game_seed(1, 0) != game_seed(0, 1)


def test_seats_rotate_so_every_bot_plays_every_seat() -> None:
    run = Tournament(["greedy", "random", "random", "random"])
    specs = run.specs(range(4))
    assert [spec.seats.index("greedy") for spec in specs] == [0, 3, 2, 1]


def test_a_short_line_up_is_repeated_and_a_long_one_refused() -> None:
    assert Tournament([GreedyBot(), "random"], players=4).seats == (
        "greedy", "random", "greedy", "random",
    )  # fmt: skip
    with pytest.raises(ConfigurationError, match="3 bots given for 2 seats"):
        Tournament(["greedy", "random", "random"], players=2)
    assert Tournament([RandomBot(), RandomBot()]).seats == ("random", "random")
    with pytest.raises(ConfigurationError, match="two different bots are called 'random'"):
        Tournament([RandomBot(), RandomBot])


def test_a_bot_without_a_name_is_refused_before_any_game(user_bots: Path) -> None:
    from userbots import Nameless  # type: ignore[import-not-found]

    made = []

    def factory() -> object:
        made.append(1)
        return Nameless()

    with pytest.raises(ConfigurationError, match="needs a name"):
        tournament([factory, "random"], games=5)
    assert made == [1]  # made once to look at it, never for a game
    done = _troedler("simulate", "--bots", "userbots:Nameless,random", "--out", "f", cwd=user_bots)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "bot 'userbots:Nameless' needs a name" in done.stderr
    assert not (user_bots / "f").exists()


def test_capped_games_have_no_winners_and_say_where_they_stopped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "capped.jsonl"
    args = ["simulate", "--games", "3", "--bots", "random,random", "--max-rounds", "2"]
    assert main([*args, "--workers", "1", "--out", str(out)]) == 0
    table = capsys.readouterr().out
    assert "3 games of 2 players: 0 finished, 3 capped at round 2, 0 forfeited" in table
    assert "mean rounds \u2013" in table and "0.0%" not in table
    row = next(line for line in table.splitlines() if line.startswith("random "))
    assert row.split() == ["random", "0", *["\u2013"] * 5, "0"]
    assert main(["replay", str(out), "--game", "2"]) == 0
    assert "Stopped after round 2: the game did not end." in capsys.readouterr().out
    summary = tournament(["random", "random"], games=3, max_rounds=2)
    assert summary.capped == 3 and summary.mean_rounds is None
    assert summary.bot("random").win_share is None
    assert summary.to_dict()["bots"]["random"]["win_share_95"] is None


def test_a_big_run_seed_gives_records_that_replay(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "f.jsonl"
    code = main(
        ["simulate", "--games", "4", "--workers", "1", "--seed", "20000000000000",
         "--json", "--out", str(out)]
    )  # fmt: skip
    assert code == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["games"] == 4 and summary["players"] == 4
    assert set(summary["bots"]) == {"greedy", "random"}
    greedy = summary["bots"]["greedy"]
    assert greedy["seat_games"] == summary["finished"]
    low, high = greedy["win_share_95"]
    assert 0 <= low <= greedy["win_share"] <= high <= 1
    lines = out.read_text().splitlines()
    assert [GameRecord.from_json(line).seed for line in lines] == [
        game_seed(20_000_000_000_000, i) for i in range(4)
    ]
    assert main(["replay", str(out), "--game", "3"]) == 0
    assert "Game over after round" in capsys.readouterr().out


def test_user_bots_from_a_module_in_two_worker_processes(user_bots: Path) -> None:
    done = _troedler(
        "simulate", "--games", "4", "--workers", "2", "--json",
        "--bots", "userbots:FirstMove,userbots:FirstMove:2,greedy", cwd=user_bots,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert set(summary["bots"]) == {"userbots:FirstMove", "userbots:FirstMove:2", "greedy"}
    assert summary["forfeited"] == 0
    in_process = tournament(
        ["userbots:FirstMove", "userbots:FirstMove:2", "greedy"], games=4, seed=1
    )
    assert summary == in_process.to_dict()


def test_failing_bots_forfeit_their_games_with_the_game_and_move_named(user_bots: Path) -> None:
    """A bot that raises, cheats, never returns or crashes its process forfeits
    its game; the run goes on and reports each failure."""
    summary = tournament(
        ["userbots:Raises", "userbots:Cheats", "userbots:Sleeps", "userbots:Crashes"],
        games=4, workers=2, move_time_limit=0.2,
    )  # fmt: skip
    assert summary.games == 4 and summary.forfeited == 4 and summary.finished == 0
    kinds = {failure.bot: failure.kind for failure in summary.failures}
    assert set(kinds.values()) <= {"raised", "illegal", "slow", "crashed"}
    for failure in summary.failures:
        assert failure.bot == f"userbots:{failure.bot.split(':')[1]}"
        assert failure.move >= 0 and failure.round >= 1
    # Each kind on its own, with a random partner that never fails.
    for bot, kind, detail in (
        ("userbots:Raises", "raised", "ValueError: no idea what to do (userbots.py:"),
        ("userbots:Cheats", "illegal", "chose 'take 9', which is not legal"),
        ("userbots:Sleeps", "slow", "did not move within the limit of 0.2 s"),
        ("userbots:Crashes", "crashed", "ended with exit code 3"),
    ):
        alone = tournament([bot, "random"], games=2, workers=2, move_time_limit=0.2)
        assert [f.game for f in alone.failures] == [0, 1], bot
        for failure in alone.failures:
            assert failure.kind == kind and detail in failure.detail and failure.bot == bot
        assert alone.bot(bot).forfeits == 2
    raised = tournament(["userbots:Raises", "random"], games=1).failures[0]
    assert raised.round == 2 and raised.move > 0


def test_the_table_lists_forfeits(user_bots: Path) -> None:
    done = _troedler(
        "simulate", "--games", "2", "--bots", "userbots:Cheats,greedy", "--workers", "1",
        cwd=user_bots,
    )  # fmt: skip
    assert done.returncode == 0
    assert "2 forfeited" in done.stdout
    assert "forfeit: game 1, move " in done.stdout
    assert "userbots:Cheats in seat 1 made an illegal move: chose 'take 9'" in done.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--bots", "ismcts:-5"], "bad bot 'ismcts:-5': the iterations of ismcts:N must be"),
        (["--bots", "greedy,,random"], "--bots: bot 2 of 3 is empty"),
        (["--bots", ""], "--bots: no bots given"),
        (["--bots", "greedy,random,random", "--players", "2"], "3 bots given for 2 seats"),
        (["--bots", "greedy,wizard"], "no bot called 'wizard'"),
        (["--bots", "greedy:5"], "greedy takes no parameter"),
        (["--bots", "nomodule:Bot"], "there is no module 'nomodule' on the Python path"),
        (["--out", "no/such/dir/f.jsonl"], "--out: cannot write no/such/dir/f.jsonl"),
        (["--resume"], "--resume needs --out FILE"),
        (["--scheduler", "nonsense"], "'nonsense' is not a Dask scheduler address"),
    ],
)
def test_bad_arguments_get_one_line_and_exit_code_2(
    args: list[str],
    message: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(["simulate", "--games", "2", *args]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("troedler: ") and captured.err.count("\n") == 1
    assert message in captured.err


def test_no_arguments_print_plain_help_and_there_is_a_version() -> None:
    bare = _troedler()
    assert bare.returncode == 2 and "simulate" in bare.stderr and "``" not in bare.stderr
    version = _troedler("--version")
    assert version.returncode == 0 and version.stdout.startswith("troedler ")


def _lines(path: Path) -> int:
    return path.read_bytes().count(b"\n") if path.exists() else 0


def test_ctrl_c_keeps_every_finished_game_and_resume_completes_the_run(tmp_path: Path) -> None:
    out = tmp_path / "games.jsonl"
    run = ["simulate", "--games", "60", "--bots", "greedy,random", "--seed", "5"]
    run += ["--out", str(out)]
    env = dict(os.environ, PYTHONPATH=SRC)
    running = subprocess.Popen(
        [sys.executable, "-m", "troedler", *run, "--workers", "2"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
        start_new_session=True,  # Ctrl-C in a terminal reaches the whole group
    )  # fmt: skip
    deadline = time.monotonic() + 120
    while _lines(out) < 3 and running.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    os.killpg(running.pid, signal.SIGINT)
    stdout, stderr = running.communicate(timeout=60)
    assert running.returncode == 130, stderr
    assert "Traceback" not in stderr
    finished = int(stdout.split(" games of ")[0])
    assert 3 <= finished < 60
    assert f"interrupted after {finished} of 60 games" in stderr
    assert _lines(out) == finished
    for line in out.read_text().splitlines():
        GameRecord.from_json(line)
    # A crash in the middle of writing leaves a line cut short: it is dropped.
    with out.open("a") as file:
        file.write('{"format": "troedler-rec')
    resumed = _troedler("simulate", "--out", str(out), "--resume", "--json")
    assert resumed.returncode == 0, resumed.stderr
    whole = tournament(["greedy", "random"], games=60, seed=5, workers=2)
    assert json.loads(resumed.stdout) == whole.to_dict()
    records = [GameRecord.from_json(line) for line in out.read_text().splitlines()]
    assert [record.seed for record in records] == [game_seed(5, i) for i in range(60)]
    other = _troedler("simulate", "--out", str(out), "--resume", "--seed", "6")
    assert other.returncode == 2
    assert "--resume: --seed 6 differs from the run in" in other.stderr


def test_out_refuses_a_file_that_holds_games_unless_resume_or_overwrite(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    run = ["simulate", "--games", "2", "--workers", "1", "--json", "--out", "games.jsonl"]
    assert main(run) == 0
    kept = (tmp_path / "games.jsonl").read_bytes()
    capsys.readouterr()
    assert main(run) == 2
    err = capsys.readouterr().err
    assert "--out: games.jsonl already holds 2 games; continue that run with --resume" in err
    assert "--overwrite" in err and (tmp_path / "games.jsonl").read_bytes() == kept
    assert main([*run, "--overwrite"]) == 0
    assert (tmp_path / "games.jsonl").read_bytes().count(b"\n") == 2
    assert main([*run, "--overwrite", "--resume"]) == 2
    assert "give one" in capsys.readouterr().err
    assert main([*run, "--drop-broken"]) == 2
    assert "with --resume only" in capsys.readouterr().err


def test_resume_after_a_record_cut_short_says_how_to_recover_and_drops_it_on_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "games.jsonl"
    run = ["simulate", "--games", "3", "--workers", "1", "--json", "--out", "games.jsonl"]
    run += ["--bots", "greedy,random"]
    assert main(run) == 0
    whole = json.loads(capsys.readouterr().out)
    # A crash after the journal's line reached the disk but not the whole record.
    data = out.read_bytes()
    out.write_bytes(data[: data.rindex(b"\n", 0, len(data) - 1) + 40])
    assert main(["simulate", "--out", "games.jsonl", "--resume", "--json"]) == 2
    err = capsys.readouterr().err
    assert "games.jsonl: line 3: the last game is cut short" in err
    assert "--resume --drop-broken" in err and err.count("\n") == 1
    assert main(["simulate", "--out", "games.jsonl", "--resume", "--json", "--drop-broken"]) == 0
    assert json.loads(capsys.readouterr().out) == whole
    records = [GameRecord.from_json(line) for line in out.read_text().splitlines()]
    assert [record.seed for record in records] == [game_seed(1, i) for i in range(3)]
    # A journal line that is not JSON is named by file and line.
    journal = tmp_path / "games.jsonl.journal"
    lines = journal.read_text().splitlines()
    journal.write_text("\n".join([*lines[:2], "{oops", *lines[3:]]) + "\n")
    assert main(["simulate", "--out", "games.jsonl", "--resume"]) == 2
    assert "games.jsonl.journal: line 3: is not JSON" in capsys.readouterr().err


@pytest.mark.parametrize("games", [0, -3, 2.5, "4"])
def test_a_tournament_of_no_games_is_refused_as_the_command_line_refuses_it(
    games: object,
) -> None:
    with pytest.raises(ConfigurationError, match="games must be a whole number of at least 1"):
        tournament(["greedy", "random"], games=games)  # type: ignore[arg-type]
    done = _troedler("simulate", "--games", "0")
    assert done.returncode == 2 and "expected a whole number of at least 1" in done.stderr


def test_a_forfeit_counts_as_a_loss_in_the_second_win_share(user_bots: Path) -> None:
    summary = tournament(["userbots:Sulks", "random"], games=6, seed=3)
    row = summary.bot("userbots:Sulks")
    assert row.forfeits == summary.forfeited == 3 and row.seat_games == 3
    assert row.wins > 0
    assert row.win_share_with_forfeits == row.wins / 6
    assert row.win_share is not None and row.win_share_with_forfeits < row.win_share
    other = summary.bot("random")
    assert other.forfeits == 0 and other.win_share_with_forfeits == other.win_share
    assert summary.to_dict()["bots"]["random"]["win_share_with_forfeits"] == other.win_share
    done = _troedler(
        "simulate", "--games", "6", "--seed", "3", "--bots", "userbots:Sulks,random",
        "--workers", "1", cwd=user_bots,
    )  # fmt: skip
    shares = [line for line in done.stdout.splitlines() if line.startswith("win share, each")]
    assert shares == [
        f"win share, each forfeit a loss: random: {other.win_share:.1%}  "
        f"userbots:Sulks: {row.win_share_with_forfeits:.1%}"
    ]


def test_the_tables_of_the_bots_page_are_what_simulate_writes() -> None:
    page = (Path(__file__).resolve().parents[1] / "docs" / "bots.md").read_text()
    default = page.split("```\n300 games of 4 players")[1].split("```")[0].splitlines()
    out = io.StringIO()
    write_summary(tournament(["greedy", "random", "random", "random"], games=4), out)
    written = out.getvalue().splitlines()
    assert default[2] == written[2]  # the headings, "seat-games" one word
    assert [line.split()[:2] for line in default[3:5]] == [["greedy", "300"], ["random", "900"]]
    for heading in ("seat-games", "win share", "95% interval", "points", "damage",
                    "total dmg", "forfeits", "win share per seat"):  # fmt: skip
        assert f"**{heading}**" in page, heading  # each explained
    assert "win share, each forfeit a loss: mybots:Sulks: 50.0%" in page
