"""Game records and state JSON: exact round trips, replay, and hostile input."""

from __future__ import annotations

import contextlib
import json
import tomllib
from pathlib import Path
from typing import Any

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers import greedy_move
from tests.test_properties import reachable_states
from troedler import (
    ConfigurationError,
    FormatError,
    GameRecord,
    GameState,
    TroedlerError,
    apply_move,
    check_invariants,
    legal_moves,
    new_game,
    parse_move,
    replay,
    state_from_json,
    state_to_json,
)
from troedler.bots import Bot, GreedyBot, RandomBot, play_game

BAD = Path(__file__).parent / "data" / "bad"
MANIFEST = tomllib.loads((BAD / "manifest.toml").read_text())["case"]


def _load(kind: str, data: str | bytes) -> object:
    if kind == "record":
        return GameRecord.from_json(data)
    return state_from_json(data)


def test_the_bad_file_corpus_is_large_enough() -> None:
    assert len(MANIFEST) >= 30
    assert {case["file"] for case in MANIFEST} == {p.name for p in BAD.glob("*.json")}


@pytest.mark.parametrize("case", MANIFEST, ids=[case["file"] for case in MANIFEST])
def test_bad_file_raises_format_error_at_its_path(case: dict[str, str]) -> None:
    raw = (BAD / case["file"]).read_bytes()
    with pytest.raises(FormatError) as info:
        _load(case["kind"], raw)
    assert info.value.field == case["path"], str(info.value)
    assert len(str(info.value)) <= 300, "messages quote bad input shortly"
    assert isinstance(info.value, ValueError) and isinstance(info.value, TroedlerError)
    assert str(info.value).startswith(case["kind"])


def _finished_game(players: int, seed: int) -> tuple[GameState, list[Any], GameState]:
    """A whole game between greedy and random bots in alternate seats."""
    bots: list[Bot] = [GreedyBot() if s % 2 == 0 else RandomBot() for s in range(players)]
    played = play_game(bots, seed=seed, max_rounds=200)
    assert played.finished
    states = replay(played.record)
    moves = [
        parse_move(text, state) for text, state in zip(played.record.moves, states, strict=False)
    ]
    return states[0], moves, states[-1]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_record_round_trip_and_exact_replay(players: int) -> None:
    first, moves, last = _finished_game(players, seed=players)
    record = GameRecord.of_game(first, moves, seats=[f"bot {i}" for i in range(players)])
    assert record.result is not None and record.result.winners
    again = GameRecord.from_json(record.to_json())
    assert again == record
    states = replay(again)
    assert states[0] == first and states[-1] == last
    assert len(states) == len(moves) + 1
    state = first
    for move, replayed in zip(moves, states[1:], strict=True):
        state = apply_move(state, move)
        assert replayed == state


def test_unfinished_game_has_no_result() -> None:
    first = new_game(3, seed=8)
    moves = list(legal_moves(first)[:1])
    record = GameRecord.of_game(first, moves)
    assert record.result is None and record.seats == ("seat 0", "seat 1", "seat 2")
    assert GameRecord.from_json(record.to_json()) == record


def test_a_record_starts_from_a_new_game() -> None:
    first = new_game(2, seed=3)
    later = apply_move(first, legal_moves(first)[0])
    with pytest.raises(ConfigurationError, match="begins with a state new_game returned"):
        GameRecord.of_game(later, [])
    with pytest.raises(ConfigurationError, match="2 seat names needed"):
        GameRecord.of_game(first, [], seats=["only one"])


def test_multi_megabyte_strings_are_refused() -> None:
    record = json.loads(GameRecord.of_game(new_game(2, seed=1), []).to_json())
    record["seats"][0] = "x" * 3_000_000
    with pytest.raises(FormatError) as info:
        GameRecord.from_json(json.dumps(record))
    assert info.value.field == "seats[0]"
    with pytest.raises(FormatError, match="more than"):
        state_from_json(" " * 5_000_000)
    with pytest.raises(FormatError, match="expected JSON text"):
        state_from_json(12)  # type: ignore[arg-type]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(reachable_states())
def test_state_json_round_trips_exactly(state: GameState) -> None:
    text = state_to_json(state)
    assert state_from_json(text) == state
    assert state_from_json(text.encode()) == state


# --- fuzzing: mutate valid documents ------------------------------------------

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**80), 2**80)
    | st.floats(allow_nan=False)
    | st.text(max_size=20)
    | st.sampled_from(["take 0", "end", "bridge", "feed", "AA:4", "Macallan", "-", "AAP"]),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=8,
)


def _paths(data: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(data, dict):
        for key, value in data.items():
            found += _paths(value, (*prefix, key))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            found += _paths(value, (*prefix, i))
    return found


@st.composite
def mutated(draw: st.DrawFn, document: str) -> str:
    data = json.loads(document)
    for _ in range(draw(st.integers(1, 3))):
        paths = [p for p in _paths(data) if p]
        path = draw(st.sampled_from(paths))
        parent = data
        for step in path[:-1]:
            parent = parent[step]
        key = path[-1]
        action = draw(st.sampled_from(["delete", "replace", "nudge", "add"]))
        if action == "delete":
            del parent[key]
        elif action == "nudge" and type(parent[key]) is int:
            parent[key] += draw(st.integers(-3, 3))
        elif action == "add" and isinstance(parent, dict):
            parent[draw(st.text(max_size=8))] = draw(json_values)
        else:
            parent[key] = draw(json_values)
    return json.dumps(data)


_FIRST = new_game(2, seed=1)
_MOVES: list[Any] = []
_STATE = _FIRST
for _ in range(15):
    _MOVES.append(greedy_move(_STATE))
    _STATE = apply_move(_STATE, _MOVES[-1])
RECORD_TEXT = GameRecord.of_game(_FIRST, _MOVES).to_json()
STATE_TEXT = state_to_json(_STATE)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated(RECORD_TEXT))
def test_mutated_records_are_refused_cleanly_or_valid(text: str) -> None:
    try:
        record = GameRecord.from_json(text)
    except FormatError:
        return
    states = replay(record)
    assert GameRecord.from_json(record.to_json()) == record
    check_invariants(states[-1])


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated(STATE_TEXT))
def test_mutated_states_are_refused_cleanly_or_valid(text: str) -> None:
    try:
        state = state_from_json(text)
    except FormatError:
        return
    check_invariants(state)
    assert state_from_json(state_to_json(state)) == state
    for move in legal_moves(state):
        apply_move(state, move)


JUNK: list[Any] = [None, True, 0, -1, 2**70, 1.5, "", "x" * 50, [], [1, "a"], {}, {"a": 1}]


@pytest.mark.parametrize(("kind", "document"), [("record", RECORD_TEXT), ("state", STATE_TEXT)])
def test_every_field_swapped_for_every_json_type_is_refused_cleanly(
    kind: str, document: str
) -> None:
    base = json.loads(document)
    swaps = 0
    for path in _paths(base):
        if not path:
            continue
        for junk in JUNK:
            data = json.loads(document)
            parent = data
            for step in path[:-1]:
                parent = parent[step]
            parent[path[-1]] = junk
            with contextlib.suppress(FormatError):
                _load(kind, json.dumps(data))
            swaps += 1
    # Every field at every depth (each card of each pile, each move) was swapped.
    assert swaps == (len(_paths(base)) - 1) * len(JUNK) > 300


VERSION_1 = sorted(
    path
    for path in (Path(__file__).parent / "data" / "v1").glob("*.json")
    if not path.name.endswith(".final-state.json")
)


def test_version_1_files_are_there() -> None:
    assert len(VERSION_1) >= 4


@pytest.mark.parametrize("path", VERSION_1, ids=lambda path: path.name)
def test_version_1_records_load_and_replay_as_todays_version(path: Path) -> None:
    old = json.loads(path.read_text())
    assert old["version"] == 1
    assert any(text.startswith("end discard") for text in old["moves"])
    record = GameRecord.from_json(path.read_text())
    assert record.format_version == 3
    assert not any(text.startswith("end discard") for text in record.moves)
    assert any(text.startswith("discard ") for text in record.moves)
    # The converted moves lead to the very position the old record reached.
    final = replay(record)[-1]
    assert final == state_from_json(path.with_suffix(".final-state.json").read_text())
    again = GameRecord.from_json(record.to_json())
    assert again == record
    assert json.loads(record.to_json())["version"] == 3


def test_version_1_states_still_load() -> None:
    text = (VERSION_1[0].with_suffix(".final-state.json")).read_text()
    assert json.loads(text)["version"] == 1
    state = state_from_json(text)
    assert state.turn.discards_due == 0
    assert json.loads(state_to_json(state))["version"] == 2


def test_a_version_1_record_with_a_wrong_discard_names_the_move() -> None:
    data = json.loads(VERSION_1[0].read_text())
    i = next(i for i, text in enumerate(data["moves"]) if text.startswith("end discard"))
    data["moves"][i] = data["moves"][i] + " trail"
    with pytest.raises(FormatError, match=rf"record: moves\[{i}\]: .*T7"):
        GameRecord.from_json(json.dumps(data))


@pytest.mark.parametrize("version", [0, 4, 99, "2", None])
def test_an_unknown_record_version_is_named(version: object) -> None:
    data = json.loads(VERSION_1[0].read_text())
    data["version"] = version
    with pytest.raises(FormatError, match=r"record: version: unknown format version .*1 to 3"):
        GameRecord.from_json(json.dumps(data))


def test_a_record_says_which_seat_made_each_move() -> None:
    first, moves, _ = _finished_game(4, seed=31)
    record = GameRecord.of_game(first, moves)
    states = replay(record)
    assert record.movers == tuple(state.current_player for state in states[:-1])
    assert len(set(record.movers or ())) == 4
    written = json.loads(record.to_json())
    assert written["movers"] == list(record.movers or ())
    # Every way the bots, the server and the simulations build a record says it too.
    played = play_game([GreedyBot(), RandomBot()], seed=5, max_rounds=200)
    assert played.record.movers == GameRecord.from_json(played.record.to_json()).movers


def test_a_record_of_an_earlier_version_gets_its_movers_from_the_replay() -> None:
    path = sorted((Path(__file__).parent / "data" / "v2").glob("*-greedy-random.json"))[0]
    data = json.loads(path.read_text())
    assert data["version"] == 2 and "movers" not in data
    record = GameRecord.from_json(path.read_text())
    states = replay(record)
    assert record.movers == tuple(state.current_player for state in states[:-1])
    assert json.loads(record.to_json())["version"] == 3


@pytest.mark.parametrize(
    ("change", "path"),
    [
        (lambda movers: movers[:-1], r"movers: expected one seat per move"),
        (
            lambda movers: [*movers[:2], (movers[2] + 1) % 4, *movers[3:]],
            r"movers\[2\]: the replay",
        ),
        (lambda movers: [True, *movers[1:]], r"movers\[0\]: the replay"),
        (lambda movers: "0123", r"movers: expected an array"),
    ],
)
def test_movers_that_the_replay_does_not_give_are_refused(change: Any, path: str) -> None:
    first, moves, _ = _finished_game(4, seed=32)
    data = json.loads(GameRecord.of_game(first, moves).to_json())
    data["movers"] = change(data["movers"])
    with pytest.raises(FormatError, match=rf"record: {path}"):
        GameRecord.from_json(json.dumps(data))


def test_movers_built_by_hand_are_checked_for_their_form() -> None:
    first, moves, _ = _finished_game(2, seed=33)
    record = GameRecord.of_game(first, moves)
    with pytest.raises(ConfigurationError, match="movers: expected a seat 0 to 1"):
        attrs.evolve(record, movers=record.movers[:-1] if record.movers else ())
    with pytest.raises(ConfigurationError, match="movers: expected a seat 0 to 1"):
        attrs.evolve(record, movers=[2] * len(record.moves))
