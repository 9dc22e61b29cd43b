"""Integer action ids: one global meaning per id, legal ids exactly the legal moves."""

from __future__ import annotations

import random

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers import position
from tests.reachable import reachable_states
from troedler import (
    EXTRA_GOOD,
    SPECIAL_FEED,
    ConfigurationError,
    DiscardCard,
    EndTurn,
    GameState,
    Good,
    Goods,
    IllegalMoveError,
    PlayExtraGood,
    PlayFeedExtraGood,
    PlayFeedMove,
    PlayRequest,
    PlayRoute,
    RouteKind,
    TakePile,
    apply_move,
    default_board,
    default_cards,
    legal_moves,
    new_game,
)
from troedler.core.cards import ROUTE_CARDS
from troedler.encoding.action_ids import (
    ACTION_LAYOUT_VERSION,
    IDENTITY_CAP,
    ActionEncoder,
    action_layout,
    card_types,
    deliveries,
    layout_for,
    request_types,
)
from troedler.io.state_json import fingerprint

LAYOUT = action_layout()

SECTION_SIZES = {
    "take pile": 5,
    "discard pile": 3,
    "route": 420,
    "extra good": 6,
    "feed move": 119,
    "feed extra good": 6,
    "deliver": 1848,
    "end turn": 1,
    "discard card": 33,
}
NUM_ACTIONS = sum(SECTION_SIZES.values())


def test_the_default_layout_has_its_documented_size_for_every_player_count() -> None:
    assert [(s.name, len(s)) for s in LAYOUT.sections] == list(SECTION_SIZES.items())
    assert LAYOUT.num_actions == NUM_ACTIONS == 2441
    for players in (2, 3, 4):
        assert layout_for(new_game(players, seed=players)) is LAYOUT
    starts = [s.start for s in LAYOUT.sections]
    stops = [s.stop for s in LAYOUT.sections]
    assert starts[0] == 0 and stops[-1] == NUM_ACTIONS and starts[1:] == stops[:-1]


def test_deliveries_count_every_multiset_of_the_request_size() -> None:
    sizes = [len(request.goods) for request in request_types(default_cards())]
    # Multisets of k goods of 6 kinds: C(k + 5, 5).
    per_size = {2: 21, 3: 56, 4: 126}
    assert len(LAYOUT.section("deliver")) == sum(per_size[k] for k in sizes)
    assert [str(g) for g in deliveries(2)[:3]] == ["AA", "AB", "AC"]
    assert len(set(deliveries(4))) == len(deliveries(4)) == 126


def test_every_id_means_one_move_and_back() -> None:
    moves = [LAYOUT.move(i) for i in range(LAYOUT.num_actions)]
    assert [LAYOUT.action_id(m) for m in moves] == list(range(LAYOUT.num_actions))
    assert len({str(m) for m in moves}) == LAYOUT.num_actions  # notation tells them apart
    for section in LAYOUT.sections:
        assert all(LAYOUT.section_of(i) == section for i in range(section.start, section.stop))


def test_the_layout_is_identified_by_version_and_fingerprint() -> None:
    assert LAYOUT.version == ACTION_LAYOUT_VERSION
    assert LAYOUT.fingerprint == fingerprint(default_board(), default_cards())
    assert repr(LAYOUT).startswith(f"<ActionLayout {LAYOUT.fingerprint}")
    # Same board and cards, same ids, however the layout is asked for.
    assert action_layout(default_board(), default_cards()) is LAYOUT


def test_section_order_and_the_ids_of_some_moves() -> None:
    first_route = LAYOUT.section("route").start
    route = LAYOUT.move(first_route)
    assert isinstance(route, PlayRoute) and route.kind is RouteKind.MOUNTAIN_TRAIL
    assert route.take is None
    assert LAYOUT.move(first_route + 1) == attrs.evolve(route, take=Good.ANVIL)
    assert LAYOUT.action_id(TakePile(4)) == 4
    assert LAYOUT.action_id(EndTurn()) == LAYOUT.section("end turn").start
    assert LAYOUT.move(LAYOUT.section("extra good").start + 5) == PlayExtraGood(Good.VASE)
    assert LAYOUT.move(LAYOUT.section("feed extra good").start) == PlayFeedExtraGood(Good.ANVIL)
    discards = LAYOUT.section("discard card")
    assert [LAYOUT.move(i).card for i in range(discards.start, discards.start + 5)] == [  # type: ignore[union-attr]
        *ROUTE_CARDS,
        EXTRA_GOOD,
    ]
    assert SPECIAL_FEED not in LAYOUT.discard_types  # special feed is never discarded (T7)
    assert card_types(default_cards())[5] is SPECIAL_FEED


def _ids_legal_somewhere() -> set[int]:
    """Build, for every id, a position where its move is legal (T2-T7, R4)."""
    board = default_board()
    found: set[int] = set()

    def legal_ids(state: GameState) -> None:
        found.update(LAYOUT.legal_action_ids(state))

    for players in (2, 4):  # two players discard one of 3 piles, four take one of 5
        legal_ids(new_game(players, seed=1))
    for village in board.villages:
        name = village.name
        # Every route and feed move into ``name``, taking each good there or nothing.
        for here in board.targets(board.index(name)):
            start = board.villages[here].name
            hand = " ".join(["feed", *(kind.code for kind in board.route_kinds(start))])
            for good in Good:
                legal_ids(position(cart=start, hand=hand, villages={name: good.code * 2}))
        # Extra goods where the cart stands.
        legal_ids(position(cart=name, hand="extra feed", villages={name: "ABCUPV"}))
    for request in request_types(default_cards()):
        for delivered in deliveries(len(request.goods)):
            legal_ids(
                position(
                    cart="Aberlour",
                    hand=f"{request} " + "feed " * len(request.goods),
                    goods=str(delivered),
                )
            )
    for card in LAYOUT.discard_types:
        legal_ids(_discard_due(card))
    return found


def _discard_due(card: object) -> GameState:
    """A state in which ``card`` is among the cards one may discard (T7)."""
    others = "trail bridge ferry moor"  # five cards: one to discard, any of them
    state = apply_move(position(cart="Aberlour", hand=f"{card} {others}"), EndTurn())
    assert state.turn.discards_due == 1 and state.current_player == 0
    return state


def test_T7_T4_every_action_id_is_legal_in_some_reachable_state() -> None:
    found = _ids_legal_somewhere()
    missing = sorted(set(range(LAYOUT.num_actions)) - found)
    assert not missing, [str(LAYOUT.move(i)) for i in missing[:10]]


SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(
    players=st.sampled_from([2, 3, 4]),
    seed=st.integers(0, 2**32),
    steps=st.integers(1, 300),
)
def test_legal_ids_match_the_legal_moves_of_reachable_states(
    players: int, seed: int, steps: int
) -> None:
    rng = random.Random(seed)
    for state in reachable_states(players, seed, steps):
        moves = legal_moves(state)
        ids = [LAYOUT.action_id(move) for move in moves]  # every legal move has an id
        assert len(set(ids)) == len(ids)  # distinct moves, distinct ids
        assert LAYOUT.legal_action_ids(state) == tuple(sorted(ids))
        for move in rng.sample(moves, min(3, len(moves))):
            assert LAYOUT.move_for(LAYOUT.action_id(move), state) == move
        legal = set(ids)
        for action in rng.sample(range(LAYOUT.num_actions), 4):
            if action not in legal:
                with pytest.raises(IllegalMoveError):
                    LAYOUT.move_for(action, state)


def test_every_id_not_listed_is_refused_in_states_of_every_phase() -> None:
    states = [new_game(2, seed=3), new_game(4, seed=3)]
    states.append(position(hand="bridge trail extra feed AAB:5", goods="AAB", cart="Aberlour"))
    states.append(_discard_due(ROUTE_CARDS[0]))
    for state in states:
        legal = set(LAYOUT.legal_action_ids(state))
        assert legal
        for action in range(LAYOUT.num_actions):
            if action in legal:
                assert LAYOUT.move_for(action, state) == LAYOUT.move(action)
            else:
                with pytest.raises(IllegalMoveError):
                    LAYOUT.move_for(action, state)


def test_the_refusal_names_the_rule() -> None:
    state = new_game(4, seed=3)
    with pytest.raises(IllegalMoveError, match="^R4") as error:
        LAYOUT.move_for(LAYOUT.action_id(TakePile(0)), apply_move(state, TakePile(0)))
    assert error.value.rule == "R4"
    route = LAYOUT.action_id(PlayRoute(RouteKind.BRIDGE, "Knockando"))
    with pytest.raises(IllegalMoveError, match="^T1"):
        LAYOUT.move_for(route, state)


@pytest.mark.parametrize("bad", [-1, 2441, 10**30, 1.0, "3", None, True, [1]])
def test_bad_ids_are_refused_with_a_short_message(bad: object) -> None:
    with pytest.raises(IllegalMoveError, match="^T1: an action id is an int 0 to 2440") as error:
        LAYOUT.move(bad)  # type: ignore[arg-type]
    assert len(str(error.value)) < 120


def test_numpy_style_integers_are_accepted() -> None:
    class Index:
        def __index__(self) -> int:
            return 7

    assert LAYOUT.move(Index()) == LAYOUT.move(7)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "move",
    [
        PlayRoute(RouteKind.BRIDGE, "Nowhere"),
        PlayFeedMove("Nowhere", Good.ANVIL),
        PlayRequest(request_types(default_cards())[0], Goods.parse("AAA")),
        TakePile(5),
        DiscardCard(SPECIAL_FEED),
        "take 0",
        [1, 2],
    ],
)
def test_moves_no_state_could_offer_have_no_id(move: object) -> None:
    with pytest.raises(IllegalMoveError, match="^T1: .* not a move of this board"):
        LAYOUT.action_id(move)  # type: ignore[arg-type]


def test_other_cards_make_another_layout_and_its_states_are_refused_here() -> None:
    cards = default_cards()
    first = cards.requests[0]
    other = attrs.evolve(
        cards, requests=(attrs.evolve(first, points=first.points + 1), *cards.requests[1:])
    )
    state = new_game(3, seed=1, cards=other)
    assert layout_for(state).fingerprint != LAYOUT.fingerprint
    with pytest.raises(ConfigurationError, match="other cards"):
        LAYOUT.legal_action_ids(state)
    with pytest.raises(ConfigurationError):
        LAYOUT.legal_action_ids("state")  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError):
        layout_for(None)  # type: ignore[arg-type]


HOSTILE_STATE = new_game(3, seed=1)


@settings(max_examples=100, deadline=None)
@given(
    st.one_of(
        st.integers(-(2**70), 2**70),
        st.floats(allow_nan=True),
        st.text(max_size=6),
        st.none(),
        st.booleans(),
        st.lists(st.integers(), max_size=2),
    )
)
def test_hostile_ids_and_moves_raise_only_illegal_move_errors(value: object) -> None:
    for call in (LAYOUT.move, LAYOUT.action_id, lambda v: LAYOUT.move_for(v, HOSTILE_STATE)):
        try:
            call(value)  # type: ignore[operator]
        except IllegalMoveError as error:
            assert len(str(error)) < 160


def test_chance_nodes_have_no_legal_ids_and_refuse_every_id() -> None:
    from troedler.core.chance import is_chance_node, new_explicit_game

    state = new_explicit_game(3)
    assert is_chance_node(state)
    assert LAYOUT.legal_action_ids(state) == ()
    for action in (0, LAYOUT.section("end turn").start):
        with pytest.raises(IllegalMoveError):
            LAYOUT.move_for(action, state)


def test_an_encoder_gives_the_layouts_ids_and_remembers_only_its_own_moves() -> None:
    rng = random.Random(8)
    first, second = ActionEncoder(LAYOUT), ActionEncoder(LAYOUT)
    for state in reachable_states(3, seed=8, count=300):
        moves = legal_moves(state)
        expected = LAYOUT.action_ids(moves)
        assert first.action_ids(moves) == expected == [first.action_id(m) for m in moves]
        assert first.legal_action_ids(state) == LAYOUT.legal_action_ids(state)
        if rng.random() < 0.5:
            second.action_ids(moves)
    assert 0 < len(first._kept) <= IDENTITY_CAP
    assert {id(move) for move in first._kept} == set(first._by_identity)
    # The shared layout remembers nothing; the encoders remember apart.
    assert not {"_by_identity", "_kept"} & set(vars(LAYOUT))
    assert first._by_identity is not second._by_identity
