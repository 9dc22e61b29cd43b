"""The trust boundary: whatever troedler writes it reads back, whatever it
reads it can play, it raises only its own errors, and its values are values.

Each test names the class of leak it closes: written => readable, read =>
playable, only library errors, values are values.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import itertools
import json
import random
import sys
import tracemalloc
from typing import Any

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from troedler import (
    SPECIAL_FEED,
    UNKNOWN,
    Board,
    CardCatalogue,
    ConfigurationError,
    DiscardCard,
    DiscardPile,
    EndTurn,
    FormatError,
    GameRecord,
    Good,
    Goods,
    IllegalMoveError,
    PlayExtraGood,
    PlayFeedExtraGood,
    PlayFeedMove,
    PlayRequest,
    PlayRoute,
    RequestCard,
    RouteKind,
    Rules,
    TakePile,
    TroedlerError,
    Turn,
    apply_move,
    check_invariants,
    default_board,
    default_cards,
    determinize,
    is_legal,
    legal_moves,
    load_board,
    new_game,
    observe,
    outcome,
    parse_move,
    replay,
    score,
    state_from_json,
    state_to_json,
    tally,
)
from troedler.bots import GreedyBot, play_game
from troedler.bots.base import Bot
from troedler.core import chance
from troedler.core import goods as goods_module

from .helpers import play, position

# --- written => readable -----------------------------------------------------


@pytest.mark.parametrize("seed", [-1, 2**64, 2**70, -(2**63), True, 1.0, "7"])
def test_written_readable_seeds_outside_the_domain_are_refused_by_new_game(seed: object) -> None:
    with pytest.raises(ConfigurationError, match="seed"):
        new_game(2, seed=seed)  # type: ignore[arg-type]


@settings(max_examples=60, deadline=None)
@given(st.integers(-(2**70), 2**70), st.sampled_from([2, 3, 4]))
def test_written_readable_every_seed_new_game_accepts_survives_json(seed: int, n: int) -> None:
    try:
        first = new_game(n, seed=seed)
    except ConfigurationError:
        return
    assert state_from_json(state_to_json(first)) == first
    record = GameRecord.of_game(first, [])
    assert GameRecord.from_json(record.to_json()) == record


seat_names = st.one_of(
    st.text(max_size=80),
    st.sampled_from(["x" * 64, "x" * 65, "tab\there", "new\nline", "\ud800", "ok name"]),
    st.integers(),
    st.none(),
)


@settings(max_examples=100, deadline=None)
@given(st.lists(seat_names, min_size=2, max_size=2))
def test_written_readable_every_seat_name_a_record_accepts_survives_json(names: list[Any]) -> None:
    first = new_game(2, seed=5)
    try:
        record = GameRecord.of_game(first, legal_moves(first)[:1], seats=names)
    except ConfigurationError:
        return
    assert GameRecord.from_json(record.to_json()) == record


class _NamedBot:
    """A bot with a name longer than a record's seat names may be."""

    name = "a bot whose name goes on and on and on, far past what a game record holds"

    def choose(self, observation: Any, legal_moves: Any, rng: random.Random) -> Any:
        return legal_moves[0]


def test_written_readable_play_game_writes_no_record_the_reader_refuses() -> None:
    bots: list[Bot] = [_NamedBot(), _NamedBot()]
    try:
        played = play_game(bots, seed=3, max_rounds=1)
    except ConfigurationError as error:
        assert "name" in str(error)
    else:
        assert GameRecord.from_json(played.record.to_json()) == played.record


def test_written_readable_a_round_beyond_the_domain_is_not_written() -> None:
    state = new_game(2, seed=1)
    late = attrs.evolve(state, round=100_000)
    assert state_from_json(state_to_json(late)) == late
    with pytest.raises(ConfigurationError, match="round"):
        state_to_json(attrs.evolve(state, round=1_000_001))


def test_written_readable_a_record_of_more_moves_than_the_reader_takes_is_refused() -> None:
    first = new_game(2, seed=1)
    with pytest.raises(ConfigurationError, match="100000 moves"):
        GameRecord(
            rules=first.rules,
            fingerprint="2aac7a52af4131b0",
            seed=1,
            starting_dealer=0,
            seats=("a", "b"),
            moves=("end",) * 100_001,
            result=None,
        )


# --- read => playable ----------------------------------------------------------


def _state_data(state: Any) -> dict[str, Any]:
    return json.loads(state_to_json(state))  # type: ignore[no-any-return]


def test_read_playable_a_hand_of_82_cards_is_refused() -> None:
    data = _state_data(play(new_game(4, seed=2), "take 0", "take 1", "take 2", "take 3"))
    hand = data["players"][0]["hand"]
    hand += data["game_round_pile"]
    data["game_round_pile"] = []
    for other in data["players"][1:]:
        hand += other["hand"][:5]
        other["hand"] = other["hand"][5:]
    assert len(hand) == 82
    with pytest.raises(FormatError, match="holds 82 cards"):
        state_from_json(json.dumps(data))


def test_read_playable_a_set_up_pile_missing_a_card_is_refused() -> None:
    # I2: until the first reshuffle the discard pile starts with the set-up pile.
    data = _state_data(new_game(3, seed=4))
    data["game_round_pile"].append(data["discard_pile"].pop(0))
    with pytest.raises(FormatError, match="set-up"):
        state_from_json(json.dumps(data))


@pytest.mark.parametrize(("option", "value"), [("hand_limit", 50), ("hand_limit", 100)])
def test_read_playable_rule_options_outside_their_sane_range_are_refused(
    option: str, value: int
) -> None:
    data = _state_data(new_game(3, seed=4))
    data["rules"][option] = value
    with pytest.raises(FormatError) as info:
        state_from_json(json.dumps(data))
    assert info.value.field == f"rules.{option}"
    with pytest.raises(ConfigurationError, match=option):
        Rules.for_players(3, **{option: value})


def test_read_playable_S5_new_game_refuses_cards_too_few_for_the_set_up() -> None:
    cards = default_cards()
    few = attrs.evolve(cards, special_feed=5)
    with pytest.raises(ConfigurationError, match="S5"):
        new_game(3, seed=1, cards=few)


def _observation(seed: int = 4) -> Any:
    state = play(new_game(3, seed=seed), "take 0", "take 1", "take 2")
    return observe(state, 1, recall="table")


def _player(seen: Any, seat: int, **changes: Any) -> tuple[Any, ...]:
    players = list(seen.players)
    players[seat] = attrs.evolve(players[seat], **changes)
    return tuple(players)


_BROKEN = {
    "cart": lambda o: {"players": _player(o, 0, cart="Atlantis")},
    "hand size": lambda o: {"players": _player(o, 2, hand=(UNKNOWN,) * 9)},
    "seat": lambda o: {"seat": 3},
    "seat bool": lambda o: {"seat": True},
    "dealer": lambda o: {"dealer": -1},
    "current player": lambda o: {"current_player": 7},
    "village goods": lambda o: {"village_goods": ()},
    "delivered to": lambda o: {"turn": Turn(delivered_to=("Atlantis",))},
    "known face-down card": lambda o: {"game_round_pile": (SPECIAL_FEED, *o.game_round_pile[1:])},
    "unknown own card": lambda o: {"players": _player(o, 1, hand=(UNKNOWN,) * 7)},
}


@pytest.mark.parametrize("broken", sorted(_BROKEN))
def test_read_playable_determinize_refuses_observations_that_break_their_invariants(
    broken: str,
) -> None:
    seen = _observation()
    with pytest.raises(TroedlerError):
        determinize(attrs.evolve(seen, **_BROKEN[broken](seen)), random.Random(0))


def test_read_playable_determinize_answers_only_with_its_observation() -> None:
    seen = _observation()
    # A hidden hand shown to the seat: no state can be observed like that.
    shown = attrs.evolve(seen, players=_player(seen, 2, hand=seen.players[1].hand))
    with pytest.raises(TroedlerError, match="players does not show what seat 1 knows"):
        determinize(shown, random.Random(0))
    dealt = determinize(seen, random.Random(0))
    assert observe(dealt, 1, recall="table") == seen


# --- only library errors -----------------------------------------------------


def _turn_state() -> Any:
    return position(cart="Aberlour", hand="AB:3 feed", goods="AB", villages={"Aberlour": ""})


@pytest.mark.parametrize("count", [10**8, 10**30])
def test_library_errors_huge_goods_cannot_be_made(count: int) -> None:
    with pytest.raises(ConfigurationError) as info:
        Goods((count, 0, 0, 0, 0, 0))
    assert len(str(info.value)) < 200
    with pytest.raises(ConfigurationError):
        Goods.of_counts((count, 0, 0, 0, 0, 0))


def test_library_errors_a_delivery_of_huge_goods_is_refused_shortly() -> None:
    state = _turn_state()
    request = RequestCard(Goods.parse("AB"), 3)
    with pytest.raises(ConfigurationError):
        move = PlayRequest(request, Goods.parse("A").add(Good.ANVIL, 10**30))
        is_legal(state, move)
        str(move)


@pytest.mark.parametrize("text", ["XYZ", "AAP", 42, None])
def test_library_errors_goods_from_the_wrong_thing(text: object) -> None:
    with pytest.raises(TroedlerError):
        Goods(text)  # type: ignore[arg-type]
    if text != "AAP":
        with pytest.raises(TroedlerError):
            Goods.parse(text)  # type: ignore[arg-type]


def _with_nested(data: dict[str, Any], path: tuple[str, ...], depth: int) -> str:
    """``data`` as JSON with the field at ``path`` replaced by arrays nested
    ``depth`` deep (built as text: the writer would run out of stack)."""
    data = json.loads(json.dumps(data))
    table = data
    for key in path[:-1]:
        table = table[key]
    table[path[-1]] = "NESTED"
    return json.dumps(data).replace('"NESTED"', "[" * depth + "1" + "]" * depth)


# RecursionError escaped at one depth only, just below what the JSON parser
# refuses: the depth where the message builder ran out of stack. Where that
# lies depends on the stack already in use, so every depth up to past the
# recursion limit is tried.
_DEPTHS = range(2, sys.getrecursionlimit() + 50)


@pytest.mark.parametrize("field", ["turn", "village_goods", "rules", "result"])
def test_library_errors_deep_json_in_a_table_is_a_format_error(field: str) -> None:
    if field == "result":
        data = json.loads(GameRecord.of_game(new_game(2, seed=1), []).to_json())
        load: Any = GameRecord.from_json
    else:
        data, load = _state_data(new_game(2, seed=1)), state_from_json
    for depth in _DEPTHS:
        with pytest.raises(FormatError):
            load(_with_nested(data, (field,), depth))


def test_library_errors_wrong_types_at_the_public_doors() -> None:
    state = new_game(3, seed=1)
    seen = observe(state, 0)
    calls = [
        lambda: determinize(state, random.Random(0)),  # type: ignore[arg-type]
        lambda: determinize(seen, 42),  # type: ignore[arg-type]
        lambda: determinize(None, random.Random(0)),  # type: ignore[arg-type]
        lambda: replay("text"),  # type: ignore[arg-type]
        lambda: state_to_json(None),  # type: ignore[arg-type]
        lambda: check_invariants(None),  # type: ignore[arg-type]
        lambda: observe(None, 0),  # type: ignore[arg-type]
        lambda: GameRecord.of_game(None, []),  # type: ignore[arg-type]
        lambda: Board(None, None, None),  # type: ignore[arg-type]
        lambda: RequestCard(None, 1),  # type: ignore[arg-type]
    ]
    for call in calls:
        with pytest.raises(TroedlerError):
            call()


def test_library_errors_an_edited_observation_raises_no_key_error() -> None:
    seen = observe(new_game(3, seed=1), 0)
    cards = default_cards()
    elsewhere = attrs.evolve(
        cards, starting_sets=[attrs.evolve(s, village="Atlantis") for s in cards.starting_sets]
    )
    with pytest.raises(TroedlerError):
        determinize(attrs.evolve(seen, cards=elsewhere), random.Random(0))


# --- values are values ---------------------------------------------------------


def test_values_the_board_index_shared_by_all_games_is_read_only() -> None:
    state = position(cart="Aberlour", hand="trail")
    before = legal_moves(state)
    index = state.board.positions
    with pytest.raises(TypeError):
        index["Knockando"] = 0  # type: ignore[index]
    assert legal_moves(state) == before
    assert default_board() == state.board


def test_values_goods_never_change_once_built() -> None:
    goods = Goods.parse("A")
    before = attrs.asdict(goods) | {"_size": len(goods), "_kinds": goods.kinds()}
    right = goods.add(Good.BOTTLE)
    assert goods.remove(Good.ANVIL) == Goods()
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        goods.counts = (9, 9, 9, 9, 9, 9)  # type: ignore[misc]
    assert attrs.asdict(goods) | {"_size": len(goods), "_kinds": goods.kinds()} == before
    assert goods.add(Good.BOTTLE) is right and right == Goods.parse("AB")
    with pytest.raises(ConfigurationError):
        Goods.of_counts((48, 0, 0, 0, 0, 0)).add(Good.ANVIL)  # no carry into the next kind
    with pytest.raises(ConfigurationError):
        Goods.of_counts((0, 1, 0, 0, 0, 0)).remove(Good.ANVIL)  # no borrow from the next kind


def test_values_the_goods_interning_table_is_bounded() -> None:
    table = goods_module._INTERNED
    for n in range(9, 40):  # more of a kind than the game has: never kept
        Goods.of_counts((n, 0, 0, 0, 0, 1))
    assert all(max(counts) <= 8 for counts in table)
    by_code = goods_module._BY_CODE
    assert all(by_code[goods._code] is goods for goods in table.values())
    for i in range(60_000):
        Goods.of_counts((i % 9, i // 9 % 9, i // 81 % 9, i // 729 % 9, i // 6561 % 9, i // 59049))
    assert len(table) <= 50_000


def _refused_state_text(rng: random.Random, base: dict[str, Any]) -> str:
    """A state text that names goods requests and goods never seen, and is refused."""
    data = json.loads(json.dumps(base))
    letters = "ABCUPV"
    for player in data["players"]:
        player["hand"] = [
            "".join(rng.choice(letters) for _ in range(rng.randint(1, 8)))
            + f":{rng.randint(1, 999)}"
            for _ in range(40)
        ]
        player["goods"] = "".join(rng.choice(letters) for _ in range(40))
    return json.dumps(data)


def test_values_refused_input_leaves_nothing_behind() -> None:
    base = _state_data(new_game(4, seed=1))
    rng = random.Random(5)
    texts = [_refused_state_text(rng, base) for _ in range(100)]
    with pytest.raises(FormatError):
        state_from_json(texts[0])  # warm every cache a refusal may touch
    interned = len(goods_module._INTERNED)
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for text in texts[1:]:
            with pytest.raises(FormatError):
                state_from_json(text)
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert len(goods_module._INTERNED) == interned
    # 99 texts naming 16,000 goods requests and 400 goods never seen before.
    assert kept < 50_000, f"{kept} bytes kept by 99 refused texts"


def test_values_duplicate_json_keys_are_refused() -> None:
    first = new_game(2, seed=1)
    text = GameRecord.of_game(first, legal_moves(first)[:1]).to_json()
    # The first moves list is illegal, the second legal: no reader may pick one.
    doubled = text.replace('"moves": [', '"moves": ["take 9"], "moves": [', 1)
    with pytest.raises(FormatError, match="twice"):
        GameRecord.from_json(doubled)
    state_text = state_to_json(first)
    with pytest.raises(FormatError, match="twice"):
        state_from_json(state_text[:-1] + ', "seed": 2}')


def test_values_records_hold_tuples_whatever_they_are_built_from() -> None:
    first = new_game(2, seed=1)
    record = GameRecord.of_game(first, [parse_move("discard 0", first)], seats=["Ivy", "Jack"])
    rebuilt = attrs.evolve(record, seats=list(record.seats), moves=list(record.moves))
    assert rebuilt == record and type(rebuilt.seats) is tuple and type(rebuilt.moves) is tuple
    assert hash(rebuilt) == hash(record)


def test_values_a_state_holding_a_list_is_refused_at_the_boundary() -> None:
    state = new_game(2, seed=1)
    listed = attrs.evolve(state, players=list(state.players))
    with pytest.raises(TroedlerError, match="tuple"):
        check_invariants(listed)
    with pytest.raises(ConfigurationError, match="tuple"):
        state_to_json(listed)


def test_values_catalogues_and_boards_keep_tuples() -> None:
    cards = default_cards()
    listed = CardCatalogue(
        list(cards.routes),
        list(cards.requests),
        cards.special_feed,
        cards.extra_goods,
        list(cards.starting_sets),
    )
    assert listed == cards and hash(listed) == hash(cards)
    board = default_board()
    again = Board(list(board.villages), list(board.routes), list(board.start_villages))
    assert again == board and hash(again) == hash(board)
    with pytest.raises(ConfigurationError):
        Rules(2, 7, two_player_rules="yes")  # type: ignore[arg-type]


# --- the property: read => playable, on mutated reachable states ----------


@functools.cache
def _reachable_pool() -> tuple[str, ...]:
    """State texts from random games of 2, 3 and 4 players: the set-up, both
    phases, after reshuffles, and game over where random play gets there."""
    texts = []
    for players, seed in itertools.product((2, 3, 4), (1, 2)):
        rng = random.Random(seed * 10 + players)
        state = new_game(players, seed=seed, starting_dealer=rng.randrange(players))
        for step in range(2_000):
            if step in (0, 1, 3, 9, 30, 77, 150, 400, 900) or state.is_over:
                texts.append(state_to_json(state))
            if state.is_over:
                break
            state = apply_move(state, rng.choice(legal_moves(state)))
    # Games with explicit chance stop while chance sets up and forms piles.
    for players in (2, 4):
        rng = random.Random(players)
        state = chance.new_explicit_game(players)
        for step in range(700):
            if step in (0, 5, 40, 49, 60, 70, 300, 650) or state.is_over:
                texts.append(state_to_json(state))
            if state.is_over:
                break
            if chance.is_chance_node(state):
                outcomes = chance.chance_outcomes(state)
                state = chance.apply_chance(state, rng.choice(outcomes)[0])
            else:
                state = apply_move(state, rng.choice(legal_moves(state)))
    return tuple(texts)


def _card_lists(data: dict[str, Any]) -> list[list[Any]]:
    lists = [data["game_round_pile"], data["discard_pile"], data["turn"]["played"]]
    lists += [pile for pile in data["dealer_piles"] if pile is not None]
    for player in data["players"]:
        lists += [player["hand"], player["value_pile"]]
    return lists


def _goods_holders(data: dict[str, Any]) -> list[tuple[dict[str, Any], str]]:
    holders = [(data["village_goods"], name) for name in data["village_goods"]]
    return holders + [(player, "goods") for player in data["players"]]


_VILLAGES = [village.name for village in default_board().villages]
_JUNK: list[Any] = [None, True, -1, 0, 1, 2, 5, 99, 2**64, 1.5, "", "feed", "AA:4", [], {}]


def _mutate(data: dict[str, Any], rng: random.Random) -> None:
    """One change to a state's JSON: most keep goods and cards conserved, so
    that the loader's other checks are what is tried."""
    op = rng.randrange(9)
    if op <= 2:  # a card moves from one place to another
        lists = [cards for cards in _card_lists(data) if cards]
        source, target = rng.choice(lists), rng.choice(_card_lists(data))
        target.insert(rng.randint(0, len(target)), source.pop(rng.randrange(len(source))))
    elif op == 3:  # a good moves
        source, key = rng.choice([h for h in _goods_holders(data) if h[0][h[1]] != "-"])
        target, target_key = rng.choice(_goods_holders(data))
        good = rng.choice(source[key])
        source[key] = source[key].replace(good, "", 1) or "-"
        target[target_key] = "".join(sorted(target[target_key].strip("-") + good)) or "-"
    elif op == 4:  # a number changes a little
        table, key = rng.choice(
            [(data, k) for k in ("round", "shuffles", "dealer", "current_player", "seed")]
            + [(data["rules"], k) for k in data["rules"] if k != "num_players"]
        )
        value = table[key]
        table[key] = (value if type(value) is int else 0) + rng.choice([-2, -1, 1, 2, 7])
    elif op == 5:
        data["phase"] = rng.choice(["take_piles", "play_turns", "game_over"])
        data["current_player"] = rng.choice([None, 0, 1, 2, 3])
    elif op == 6:
        place = rng.choice([*data["players"], None])
        if place is None:
            data["turn"]["delivered_to"].append(rng.choice(_VILLAGES))
        else:
            place["cart"] = rng.choice(_VILLAGES)
    elif op == 7:
        data["dealer_piles"] = rng.choice([[], [None] * 5, data["dealer_piles"] + [None]])
    else:  # any field at all becomes junk
        table = rng.choice([data, data["rules"], data["turn"], *data["players"]])
        table[rng.choice(list(table))] = rng.choice(_JUNK)


def play_on_a_loaded_state(text: str, rng: random.Random) -> bool:
    """Load ``text``; if the loader accepts it, play 50 random moves, observe
    and determinize for every seat, and let the greedy bot decide once.
    Whether it was accepted."""
    try:
        state = state_from_json(text)
    except FormatError as error:
        assert len(str(error)) <= 300, "messages quote bad input shortly"
        return False
    assert state_from_json(state_to_json(state)) == state
    for _ in range(50):
        if state.is_over:
            break
        try:
            if chance.is_chance_node(state):
                outcome = rng.choice(chance.chance_outcomes(state))[0]
                state = chance.apply_chance(state, outcome)
            else:
                state = apply_move(state, rng.choice(legal_moves(state)))
        except IllegalMoveError:  # the one exception the property allows
            break
    for seat in range(state.num_players):
        for recall in ("perfect", "table"):
            seen = observe(state, seat, recall=recall)  # type: ignore[arg-type]
            assert observe(determinize(seen, rng), seat, recall=recall) == seen  # type: ignore[arg-type]
    if state.current_player is not None:
        seat = state.current_player
        seen = observe(state, seat)
        try:
            move = GreedyBot().choose(seen, legal_moves(seen), rng)
            apply_move(state, move)
        except IllegalMoveError:
            pass
    return True


def _mutated_text(index: int, seed: int, count: int) -> str:
    pool = _reachable_pool()
    data = json.loads(pool[index % len(pool)])
    rng = random.Random(seed)
    for _ in range(count):
        # A change that junk from an earlier one gets in the way of is skipped.
        with contextlib.suppress(TypeError, KeyError, IndexError, AttributeError, ValueError):
            _mutate(data, rng)
    return json.dumps(data)


mutated_states = st.builds(
    _mutated_text, st.integers(0, 10**6), st.integers(0, 2**32), st.integers(1, 3)
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_states, st.randoms(use_true_random=False))
def test_read_playable_mutated_states_the_loader_accepts_can_be_played(
    text: str, rng: random.Random
) -> None:
    play_on_a_loaded_state(text, rng)


# --- values are values: moves ----------------------------------------------------


@pytest.mark.parametrize(
    "build",
    [
        lambda: TakePile(True),  # type: ignore[arg-type]
        lambda: TakePile(1.0),  # type: ignore[arg-type]
        lambda: TakePile([1]),  # type: ignore[arg-type]
        lambda: DiscardPile(Good.BOTTLE),
        lambda: PlayRoute(2, "Knockando"),  # type: ignore[arg-type]
        lambda: PlayRoute(RouteKind.BRIDGE, "Knockando", 5),  # type: ignore[arg-type]
        lambda: PlayFeedMove(["Knockando"]),  # type: ignore[arg-type]
        lambda: PlayExtraGood(1),  # type: ignore[arg-type]
        lambda: PlayFeedExtraGood(True),  # type: ignore[arg-type]
        lambda: PlayRequest("AB:3", Goods.parse("AB")),  # type: ignore[arg-type]
        lambda: PlayRequest(RequestCard(Goods.parse("AB"), 3), "AB"),  # type: ignore[arg-type]
        lambda: DiscardCard("trail"),  # type: ignore[arg-type]
    ],
)
def test_values_look_alikes_are_not_moves(build: Any) -> None:
    with pytest.raises(ConfigurationError):
        build()


@pytest.mark.parametrize("seat", [True, 1.0, Good.BOTTLE])
def test_values_look_alikes_are_not_seats(seat: object) -> None:
    state = new_game(4, seed=1)
    assert state.current_player == 1
    move = legal_moves(state)[0]
    with pytest.raises(IllegalMoveError, match="R4"):
        apply_move(state, move, seat=seat)  # type: ignore[arg-type]
    apply_move(state, move, seat=1)


def test_library_errors_no_state_at_the_engine_doors() -> None:
    move = legal_moves(new_game(2, seed=1))[0]
    turns = play(new_game(3, seed=1), "take 0", "take 1", "take 2")
    seen = observe(turns, 0)  # an observation is not a state: it lists moves, never makes them
    for call in (
        lambda: legal_moves(None),  # type: ignore[arg-type]
        lambda: apply_move(None, move),  # type: ignore[arg-type]
        lambda: apply_move(seen, EndTurn()),  # type: ignore[arg-type]
        lambda: is_legal("state", move),  # type: ignore[arg-type]
        lambda: apply_move(None, TakePile(0)),  # type: ignore[arg-type]
        lambda: apply_move(42, EndTurn()),  # type: ignore[arg-type]
        lambda: apply_move(seen, EndTurn()),  # type: ignore[arg-type]
        lambda: outcome(None),  # type: ignore[arg-type]
        lambda: tally(turns, 7),
        lambda: score(None),  # type: ignore[arg-type]
        lambda: load_board(None),  # type: ignore[arg-type]
    ):
        with pytest.raises(TroedlerError):
            call()


def _pending() -> Any:
    """A state in which the current player still owes hand-limit discards."""
    state = position(hand="trail bridge ferry extra AA:4 BB:4 feed", others={1: "trail"})
    state = apply_move(state, EndTurn())
    assert state.turn.discards_due
    return state


def test_read_playable_pending_discards_must_fit_the_hand() -> None:
    data = _state_data(_pending())
    again = state_from_json(json.dumps(data))
    assert again == _pending()
    for edit in (
        {"discards_due": 5},  # more than the hand is over the limit
        {"discards_due": 1},  # fewer: the hand would stay over the limit
        {"last_discard": "moor"},  # not the card on top of the discard pile
        {"last_discard": "AAAB:7"},
    ):
        changed = json.loads(json.dumps(data))
        changed["turn"].update(edit)
        with pytest.raises(FormatError):
            state_from_json(json.dumps(changed))
    changed = json.loads(json.dumps(data))
    changed["turn"]["last_discard"] = ["trail"]
    with pytest.raises(FormatError) as info:
        state_from_json(json.dumps(changed))
    assert info.value.field == "turn.last_discard"


_OBSERVATION_JUNK: list[Any] = [None, True, -1, 0, 1, 3, 99, 1.0, "Atlantis", (), (None,), (0, 1)]


@st.composite
def edited_observations(draw: st.DrawFn) -> tuple[Any, Any]:
    """An observation of a state of the pool, one of its fields changed."""
    pool = _reachable_pool()
    state = state_from_json(pool[draw(st.integers(0, len(pool) - 1))])
    seat = draw(st.integers(0, state.num_players - 1))
    seen = observe(state, seat, recall=draw(st.sampled_from(["perfect", "table"])))
    field = draw(st.sampled_from([f.name for f in attrs.fields(type(seen))]))
    value = getattr(seen, field)
    if type(value) is tuple and value and draw(st.booleans()):
        # Change one entry, or drop or repeat one.
        i = draw(st.integers(0, len(value) - 1))
        entry = draw(st.sampled_from([*_OBSERVATION_JUNK, value[i]]))
        value = draw(
            st.sampled_from([value[:i] + (entry,) + value[i + 1 :], value[:i], value + value[i:]])
        )
    else:
        value = draw(st.sampled_from(_OBSERVATION_JUNK))
    return seen, attrs.evolve(seen, **{field: value})


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edited_observations(), st.randoms(use_true_random=False))
def test_read_playable_determinize_refuses_an_edited_observation_or_answers_it_exactly(
    pair: tuple[Any, Any], rng: random.Random
) -> None:
    _original, edited = pair
    try:
        dealt = determinize(edited, rng)
    except TroedlerError:
        return
    assert observe(dealt, edited.seat, recall=edited.recall) == edited
    check_invariants(dealt)


def _first_state_with(move_type: type, seed: int = 3) -> tuple[Any, Any]:
    """The first state of a random 3-player playout with a legal move of ``move_type``."""
    rng = random.Random(seed)
    state = new_game(3, seed=seed)
    while True:
        moves = legal_moves(state)
        found = [move for move in moves if type(move) is move_type]
        if found:
            return state, found[0]
        state = apply_move(state, rng.choice(moves))


def _look_alike(value: Any, **fields: Any) -> Any:
    """A copy of the record ``value`` built past its constructor, ``fields`` changed."""
    fake = object.__new__(type(value))
    for field in attrs.fields(type(value)):
        object.__setattr__(fake, field.name, getattr(value, field.name))
    for name, changed in fields.items():
        object.__setattr__(fake, name, changed)
    return fake


def test_values_a_state_keeps_the_engines_card_not_a_look_alike() -> None:

    state, move = _first_state_with(PlayRequest)
    fake = _look_alike(move.request, points=float(move.request.points))
    assert fake == move.request and fake is not move.request
    after = apply_move(state, PlayRequest(fake, move.delivered))
    requests = [card for card in after.turn.played if type(card) is RequestCard]
    assert all(card is not fake and type(card.points) is int for card in requests)
    state_to_json(after)  # a look-alike stored would fail here
    state, move = _first_state_with(DiscardCard)
    fake = _look_alike(move.card)
    after = apply_move(state, _look_alike(move, card=fake))
    assert all(card is not fake for card in after.discard_pile.cards)
    assert state_to_json(after)


def test_values_look_alike_goods_are_refused_or_replaced_by_the_engines() -> None:

    state, move = _first_state_with(PlayRequest)
    floats = _look_alike(move.delivered, counts=tuple(map(float, move.delivered.counts)))
    with pytest.raises(IllegalMoveError, match="T4"):
        apply_move(state, _look_alike(move, delivered=floats))
    copy = _look_alike(move.delivered)
    after = apply_move(state, _look_alike(move, delivered=copy))
    village = after.board.index(after.players[state.current_player].cart)
    assert after.village_goods[village] is Goods.of_counts(move.delivered.counts)


def test_values_a_cart_stands_on_the_boards_own_village_name() -> None:
    state, move = _first_state_with(PlayRoute)
    caller = "".join(list(move.to))  # an equal string, another object
    after = apply_move(state, PlayRoute(move.kind, caller, move.take))
    cart = after.players[state.current_player].cart
    assert cart == caller and cart is state.board.villages[state.board.index(caller)].name
