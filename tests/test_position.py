"""The position text: exact round trips in every phase, and hostile text refused."""

from __future__ import annotations

import random
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.reachable import reachable_states
from troedler import (
    ConfigurationError,
    FormatError,
    GameState,
    Phase,
    Rules,
    apply_move,
    default_cards,
    from_position_text,
    legal_moves,
    new_game,
    position_text,
    replay,
)
from troedler.bots import RandomBot, play_game
from troedler.core.chance import apply_chance, chance_outcomes, is_chance_node, new_explicit_game
from troedler.io.position_text import MAX_POSITION_CHARS

TWO = (
    "players=2 seed=1 shuffles=4 round=1 phase=take_piles dealer=0 to_move=0 pile=estmts2b"
    "AA4tfPPV5ft2fbefbAAAB7mUU4sm2UUVV6sABCU6sbAAB5efAAA6tUPV4mPPPV7s3PP4bCUPV6ebsVV4sfBBC5"
    "BCV4BB4tbtbfm2fsbtsbfsm2ACU4 piles=mfsf/btsCCUU6/CVV5mst discard=AB3UUP5PPP6s6CC4BBCC6"
    "CU3BBVV6s villages=-/ACCUU/AUUV/BPV/-/CCUPV/AAPV/CUV/-/CCPPP/ABVV/ABU/-/ABBCV/BBBP/AUP"
    "/- seats=Aberlour:tsABC4:-:-/Tomintoul:fsACU4:-:- turn=-"
)
"""The two-player game of seed 1 as it starts: docs/format.md shows it too."""


def _kind(state: GameState) -> str:
    """The phase, with turns that owe discards told apart."""
    if state.turn.discards_due:
        return "discards due"
    return state.phase.name.lower()


def _round_trip(state: GameState) -> None:
    text = position_text(state)
    again = from_position_text(text)
    assert again == state
    assert position_text(again) == text
    assert "\n" not in text


def test_the_first_position_of_a_game_reads_as_documented() -> None:
    state = new_game(2, seed=1)
    assert position_text(state) == TWO
    assert from_position_text(TWO) == state


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_state_of_seeded_games_round_trips(players: int) -> None:
    seen: Counter[str] = Counter()
    for state in reachable_states(players, seed=40 + players, count=1500):
        _round_trip(state)
        seen[_kind(state)] += 1
    assert {"take_piles", "play_turns", "game_over", "discards due"} <= set(seen), seen


def _explicit_states(players: int, count: int, rng: random.Random) -> list[GameState]:
    states = []
    state = new_explicit_game(players)
    while len(states) < count:
        states.append(state)
        if state.is_over:
            state = new_explicit_game(players)
        elif is_chance_node(state):
            outcomes = chance_outcomes(state)
            picked = rng.choices([o for o, _ in outcomes], weights=[w for _, w in outcomes])
            state = apply_chance(state, picked[0])
        else:
            state = apply_move(state, rng.choice(legal_moves(state)))
    return states


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_state_of_explicit_chance_games_round_trips(players: int) -> None:
    seen: Counter[str] = Counter()
    for state in _explicit_states(players, 1200, random.Random(players)):
        _round_trip(state)
        seen[_kind(state)] += 1
    assert {"set_up", "form_piles", "take_piles", "play_turns"} <= set(seen), seen
    assert "explicit_chance=yes" in position_text(new_explicit_game(players))


def test_rules_options_are_written_only_where_they_differ() -> None:
    rules = Rules.for_players(
        3, hand_limit=6, end_threshold=2, setup_feed=3, reshuffle_mid_forming=False
    )
    state = new_game(3, seed=7, rules=rules)
    text = position_text(state)
    assert text.startswith(
        "players=3 end_threshold=2 hand_limit=6 setup_feed=3 reshuffle_mid_forming=no seed=7 "
    )
    assert from_position_text(text).rules == rules
    assert " hand_limit=" not in position_text(new_game(3, seed=7))


def test_other_cards_are_named_by_their_fingerprint() -> None:
    cards = attrs.evolve(default_cards(), requests=default_cards().requests[::-1])
    state = new_game(2, seed=3, cards=cards)
    text = position_text(state)
    stamp = text.split()[1]
    assert stamp.startswith("board=") and stamp != "board=2aac7a52af4131b0"
    assert from_position_text(text, cards=cards) == state
    with pytest.raises(FormatError, match="^position: board: the game used another"):
        from_position_text(text)
    with pytest.raises(FormatError, match="^position: board: is missing"):
        from_position_text(TWO, cards=cards)


def test_only_reachable_states_are_written() -> None:
    state = new_game(2, seed=1)
    broken = attrs.evolve(state, round=0)
    with pytest.raises(ConfigurationError, match="no game can reach"):
        position_text(broken)
    with pytest.raises(ConfigurationError, match="GameState"):
        position_text("players=2")  # type: ignore[arg-type]


def _with(field: str, value: str) -> str:
    return " ".join(
        f"{field}={value}" if word.startswith(field + "=") else word for word in TWO.split()
    )


@pytest.mark.parametrize(
    ("text", "part", "words"),
    [
        (_with("seats", "Aberlour:tsABC4:-:-/Tomintoul:fsACU4:-"), "seats[1]", "cart:hand"),
        (_with("seats", "Aberlour:tsABC4:-:-/Nowhere:fsACU4:-:-"), "seats[1].cart", "village"),
        (_with("seats", "Aberlour:tsABC4:-:-/Tomintoul:fsAC?:-:-"), "seats[1].hand", "no card"),
        (_with("seats", "Aberlour:tsABC4:-:-/Tomintoul:fsACU4:-:s/"), "seats", "more than 2"),
        (_with("seats", "Aberlour:tsABC4:-:-/Tomintoul:fsACU4:aa:-"), "seats[1].goods", "AAP"),
        (_with("seed", "18446744073709551616"), "seed", "0 to 18446744073709551615"),
        (_with("seed", "9" * 5000), "seed", "whole number"),
        (_with("shuffles", "-1"), "shuffles", "whole number"),
        (_with("phase", "lunch"), "phase", "set_up"),
        (_with("to_move", "2"), "to_move", "0 to 1"),
        (_with("piles", "mfsf/btsCCUU6/CVV5mst/-"), "piles", "more than 3"),
        (_with("piles", "mfsf/bts/CVV5mst"), "", "C2"),
        (_with("villages", "-/ACCUU"), "villages", "17 villages"),
        (
            _with(
                "villages", "-/ACCUUA/AUUV/BPV/-/CCUPV/AAPV/CUV/-/CCPPP/ABVV/ABU/-/ABBCV/BBBP/AUP/-"
            ),
            "villages",
            "C1",
        ),
        (_with("turn", "t:-:0"), "turn", "played:delivered"),
        (_with("turn", "-:-:0:tb"), "turn.last_discard", "one card"),
        (_with("pile", "A0"), "pile[0]", "1 to 999"),
        (_with("pile", "Z5"), "pile[0]", "no goods request"),
        (_with("pile", "ts0"), "pile[1]", "1 to 200"),
        (_with("pile", "s150s60"), "pile", "more than 200 cards"),
        (_with("shuffles", "99"), "shuffles", "a game can reach: .*at most two a round"),
        (TWO.replace("players=2", "players=5"), "players", "2 to 4"),
        (TWO.replace("players=2", "players=2 hand_limit=99"), "hand_limit", "0 to 20"),
        (TWO.replace("players=2", "players=2 explicit_chance=maybe"), "explicit_chance", "yes"),
        (TWO.replace("players=2", "players=2 players=2"), "players", "twice"),
        (TWO.replace(" seed=1", "") + " seed=1", "seed", "out of order"),
        (TWO.replace(" turn=-", ""), "turn", "missing"),
        (TWO + " colour=red", "colour", "unknown field"),
        (TWO.replace(" ", "  ", 1), "", "one space"),
        (TWO.replace("seed=1", "seed=\u0661"), "", "ASCII"),
        (TWO.replace("seed=1", "seed"), "", "key=value"),
        ("x" * (MAX_POSITION_CHARS + 1), "", "more than"),
        ("", "", "ASCII"),
    ],
)
def test_malformed_text_names_the_part_at_fault(text: str, part: str, words: str) -> None:
    with pytest.raises(FormatError, match=words) as caught:
        from_position_text(text)
    assert caught.value.field == part
    assert caught.value.source == "position"


def test_cards_that_lie_together_are_counted() -> None:
    state = new_game(2, seed=1)
    assert " discard=AB3UUP5PPP6s6CC4" in TWO
    spelled = TWO.replace("PPP6s6CC4", "PPP6ssssssCC4").replace("sm2UUVV6", "smmUUVV6")
    assert from_position_text(spelled) == state
    assert from_position_text(TWO.replace("s6CC4", "s3s1s2CC4")) == state


def test_text_that_is_no_text_is_refused() -> None:
    with pytest.raises(FormatError, match="expected a position text, got bytes"):
        from_position_text(TWO.encode())  # type: ignore[arg-type]


_ALPHABET = st.sampled_from("tbfmesxABCUPVZ0123456789-/:,=_ aprl.\n?")


def _read_or_refuse(text: str) -> None:
    try:
        state = from_position_text(text)
    except FormatError as error:
        assert str(error).startswith("position")
        assert len(str(error)) < 1000
    else:
        # Hands are read in any order, so the text may differ; the state may not.
        assert from_position_text(position_text(state)) == state


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(_ALPHABET, max_size=300))
def test_random_text_is_read_or_refused_with_a_format_error(text: str) -> None:
    _read_or_refuse(text)


@settings(max_examples=400, deadline=None)
@given(st.data())
def test_edited_positions_are_read_or_refused_with_a_format_error(data: st.DataObject) -> None:
    text = TWO
    for _ in range(data.draw(st.integers(1, 3))):
        at = data.draw(st.integers(0, len(text)))
        cut = data.draw(st.integers(0, 3))
        new = data.draw(st.text(_ALPHABET, max_size=3))
        text = text[:at] + new + text[at + cut :]
    _read_or_refuse(text)


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_fields_swapped_between_positions_are_read_or_refused(data: st.DataObject) -> None:
    """Parts of two real positions put together: refused unless a game can reach them."""
    states = [new_game(n, seed=s) for n in (2, 3) for s in (1, 2)]
    states.append(apply_move(states[0], legal_moves(states[0])[0]))
    first = data.draw(st.sampled_from(states))
    second = data.draw(st.sampled_from(states))
    words = position_text(first).split()
    others = dict(word.split("=", 1) for word in position_text(second).split())
    key = data.draw(st.sampled_from(sorted(others)))
    text = " ".join(
        f"{key}={others[key]}" if word.startswith(key + "=") else word for word in words
    )
    _read_or_refuse(text)


def test_a_finished_game_names_no_one_to_move() -> None:
    for state in reachable_states(2, seed=5, count=4000):
        if state.phase is Phase.GAME_OVER:
            assert " to_move=- " in position_text(state)
            _round_trip(state)
            return
    pytest.fail("no game ended")


def test_the_format_doc_examples_run_and_read_back() -> None:
    doc = (Path(__file__).resolve().parents[1] / "docs" / "format.md").read_text()
    section = doc.split("## Position text", 1)[1].split("\n## ", 1)[0]
    for block in re.findall(r"```python\n(.*?)```", section, flags=re.DOTALL):
        exec(compile(block, "docs/format.md", "exec"), {})  # noqa: S102 - our own docs
    texts = re.findall(r"```text\n(.*?)\n```", section, flags=re.DOTALL)
    assert texts[0] == TWO
    assert all(position_text(from_position_text(text)) == text for text in texts)
    phases = [from_position_text(text).phase for text in texts]
    assert phases == [Phase.TAKE_PILES, Phase.PLAY_TURNS, Phase.SET_UP]
    assert from_position_text(texts[1]).turn.discards_due == 1


def _troedler(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "troedler", *args],
        input=stdin, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip


def test_play_starts_from_a_position_and_prints_it(tmp_path: Path) -> None:
    save = tmp_path / "game.json"
    done = _troedler(
        "play", "--position", TWO, "--bots", "random", "--save", str(save),
        stdin="position\nquit\n",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    # Once for the command, once as the game stops (no move was made).
    assert done.stdout.count(TWO) == 2
    assert f"it stopped at: {TWO}" in done.stdout
    assert not save.exists()
    refused = _troedler("play", "--position", TWO.replace("seed=1", "seed=x"))
    assert refused.returncode == 2
    assert "troedler: position: seed: expected a whole number" in refused.stderr


def test_replay_step_prints_the_position_of_the_step(tmp_path: Path) -> None:
    record = play_game([RandomBot(), RandomBot()], seed=3, max_rounds=1).record
    path = tmp_path / "game.json"
    path.write_text(record.to_json())
    # The game was stopped unfinished: the whole position is shown once confirmed.
    done = _troedler("replay", str(path), "--step", stdin="\nposition\nyes\nq\n")
    assert done.returncode == 0, done.stderr
    assert position_text(replay(record)[1]) in done.stdout
