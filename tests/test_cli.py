"""``troedler play`` and ``troedler replay`` driven as a person would."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from troedler import new_game, replay
from troedler.bots import GreedyBot, RandomBot, play_game
from troedler.io.position_text import position_text


def _troedler(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "troedler", *args],
        input=stdin, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip


def test_a_scripted_person_plays_a_whole_game(tmp_path: Path) -> None:
    # The person's moves are those a greedy bot made in the same seat and
    # game; the random bot opposite draws the same chances, so the game ends.
    played = play_game([GreedyBot(), RandomBot()], seed=4, max_rounds=100)
    assert played.finished
    states = replay(played.record)
    mine = [
        text
        for state, text in zip(states, played.record.moves, strict=False)
        if state.current_player == 0
    ]
    # Typed sometimes by number, and with some mistakes on the way.
    # Dealer piles go by their own numbers, so 7 is no pile.
    script = ["help", "7", "fly to the moon", "moves", "history"] + mine
    done = _troedler(
        "play", "--players", "2", "--seed", "4", "--bots", "random",
        "--save", str(tmp_path / "game.json"), stdin="\n".join(script) + "\n",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert "There is no pile 7: choose 0 to 2." in done.stdout
    assert "That is not a move" in done.stdout
    assert f"Game over after round {played.final.round}." in done.stdout
    assert "Winner: you" in done.stdout


def test_table_recall_hides_the_other_hands(tmp_path: Path) -> None:
    save = str(tmp_path / "game.json")
    done = _troedler(
        "play", "--players", "3", "--seed", "1", "--recall", "table", "--save", save,
        stdin="quit\n",
    )  # fmt: skip
    assert done.returncode == 0 and "You left the game." in done.stdout
    assert "hand 3 cards" in done.stdout or "hand 7 cards" in done.stdout
    perfect = _troedler("play", "--players", "3", "--seed", "1", "--save", save, stdin="quit\n")
    assert "hand 3 cards" not in perfect.stdout and "hand 7 cards" not in perfect.stdout


def test_play_refuses_a_seat_that_is_not_there() -> None:
    done = _troedler("play", "--players", "2", "--seat", "2", stdin="")
    assert done.returncode == 2 and "--seat must be 0 to 1" in done.stderr


def test_replay_steps_through_a_simulated_game(tmp_path: Path) -> None:
    out = tmp_path / "games.jsonl"
    made = _troedler("simulate", "--games", "2", "--workers", "1", "--json", "--out", str(out))
    assert made.returncode == 0, made.stderr
    shown = _troedler("replay", str(out), "--game", "1")
    assert shown.returncode == 0, shown.stderr
    assert "Round 1 (dealer: seat 0)" in shown.stdout and "Game over after round" in shown.stdout
    stepped = _troedler("replay", str(out), "--step", stdin="\n\nq\n")
    assert stepped.stdout.count("[Enter] next · b back") == 3
    assert "Step 2/" in stepped.stdout and "Game over" not in stepped.stdout
    missing = _troedler("replay", str(out), "--game", "7")
    assert missing.returncode == 2 and "there is no game 7" in missing.stderr
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "troedler-record"}')
    refused = _troedler("replay", str(broken))
    assert refused.returncode == 2 and "record: version" in refused.stderr
    assert "Traceback" not in refused.stderr


def test_position_during_a_game_asks_first_and_shows_nothing_hidden_unless_told(
    tmp_path: Path,
) -> None:
    whole = position_text(new_game(3, seed=1))
    pile = whole.split(" pile=")[1].split()[0]
    assert len(pile) > 20
    save = str(tmp_path / "game.json")
    refused = _troedler(
        "play", "--players", "3", "--seed", "1", "--recall", "table", "--save", save,
        stdin="position\nno\nquit\n",
    )  # fmt: skip
    assert refused.returncode == 0, refused.stderr
    assert "Show it anyway? (yes/no)" in refused.stdout
    assert "The whole position was not shown." in refused.stdout
    assert pile not in refused.stdout and "seed=1" not in refused.stdout
    (tmp_path / "game.json").unlink()
    shown = _troedler(
        "play", "--players", "3", "--seed", "1", "--recall", "table", "--save", save,
        stdin="position\nyes\nquit\n",
    )  # fmt: skip
    assert "players=3 seed=1 " in shown.stdout and " pile=" in shown.stdout
    # replay --step of the unfinished game asks the same; of a finished one it does not.
    stepped = _troedler("replay", save, "--step", stdin="position\n\nq\n")
    assert "Show it anyway?" in stepped.stdout and pile not in stepped.stdout
    finished = tmp_path / "finished.json"
    finished.write_text(play_game([GreedyBot(), RandomBot()], seed=1).record.to_json())
    stepped = _troedler("replay", str(finished), "--step", stdin="position\nq\n")
    assert "Show it anyway?" not in stepped.stdout and " pile=" in stepped.stdout


def test_a_record_cut_short_is_named_by_line_and_column_in_whole_words(tmp_path: Path) -> None:
    text = play_game([GreedyBot(), RandomBot()], seed=2, max_rounds=1).record.to_json()
    assert text.count("\n") > 5  # a record written over many lines, as play saves it
    for cut in (len(text) // 3, len(text) // 2, len(text) - 3):
        short = tmp_path / "short.json"
        short.write_text(text[:cut])
        try:
            json.loads(text[:cut])
        except json.JSONDecodeError as error:
            where = f"line {error.lineno}, column {error.colno}"
        for args in (["replay", str(short)], ["play", "--resume", str(short)]):
            done = _troedler(*args)
            assert done.returncode == 2, done.stdout
            message = done.stderr.strip()
            assert message.startswith(f"troedler: {short}: {where}: not valid JSON: "), message
            assert "cut short?" in message and "..." not in message and "\n" not in message


def test_simulate_with_fewer_players_takes_the_default_line_ups_first_seats() -> None:
    done = _troedler("simulate", "--games", "2", "--players", "2", "--workers", "1", "--json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["players"] == 2
    assert sorted(summary["bots"]) == ["greedy", "random"]
