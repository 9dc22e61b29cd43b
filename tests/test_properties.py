"""Properties over random reachable states (hypothesis)."""

from __future__ import annotations

import copy
import itertools
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.helpers import greedy_move
from troedler import (
    EXTRA_GOOD,
    SPECIAL_FEED,
    ConfigurationError,
    DiscardCard,
    DiscardPile,
    EndTurn,
    GameState,
    Good,
    Goods,
    IllegalMoveError,
    Move,
    NotationError,
    PlayExtraGood,
    PlayFeedExtraGood,
    PlayFeedMove,
    PlayRequest,
    PlayRoute,
    RequestCard,
    RouteKind,
    TakePile,
    apply_move,
    check_invariants,
    is_legal,
    legal_moves,
    new_game,
    parse_move,
    verify_move,
)
from troedler.core.cards import ROUTE_CARDS, card_sort_key
from troedler.core.invariants import cards_in_state

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _walk(players: int, seed: int, choice_seed: int, steps: int) -> list[tuple[GameState, Move]]:
    """A game played for ``steps`` moves: three in ten by the greedy bot (so
    requests get delivered and games end), the rest at random."""
    rng = random.Random(choice_seed)
    state = new_game(players, seed=seed, starting_dealer=rng.randrange(players))
    path = []
    for _ in range(steps):
        if state.is_over:
            break
        move = greedy_move(state, rng) if rng.random() < 0.3 else rng.choice(legal_moves(state))
        path.append((state, move))
        state = apply_move(state, move)
    path.append((state, EndTurn()))
    return path


walks = st.builds(
    _walk,
    players=st.sampled_from([2, 3, 4]),
    seed=st.integers(0, 2**40),
    choice_seed=st.integers(0, 2**32),
    steps=st.integers(0, 400),
)


@st.composite
def reachable_states(draw: st.DrawFn) -> GameState:
    path = draw(walks)
    return path[draw(st.integers(0, len(path) - 1))][0]


@SETTINGS
@given(walks)
def test_every_move_conserves_goods_and_cards(path: list[tuple[GameState, Move]]) -> None:
    first = path[0][0]
    expected_cards = cards_in_state(first)
    for (state, move), (after, _next) in itertools.pairwise(path):
        check_invariants(after)
        assert cards_in_state(after) == expected_cards
        assert (
            sum(len(g) for g in after.village_goods) + sum(len(p.goods) for p in after.players)
            == 48
        )
        counts = [n for g in after.village_goods for n in g.counts]
        counts += [n for p in after.players for n in p.goods.counts]
        assert min(counts) >= 0
        for before_player, after_player in zip(state.players, after.players, strict=True):
            assert len(after_player.fulfilled_requests) >= len(before_player.fulfilled_requests)
            assert after_player.feed_used >= before_player.feed_used
        if isinstance(move, (EndTurn, DiscardCard)):
            ender = state.current_player
            assert ender is not None
            # T7: at the hand limit once the turn is over, and exactly the
            # discards still due above it before.
            due = after.turn.discards_due if after.current_player == ender else 0
            limit = after.rules.hand_limit
            assert len(after.players[ender].hand) <= limit + due
            if due:
                assert len(after.players[ender].hand) == limit + due
        if not after.is_over:
            assert legal_moves(after)


@SETTINGS
@given(reachable_states())
def test_legal_moves_all_apply_each_once_with_distinct_effects(state: GameState) -> None:
    moves = legal_moves(state)
    assert len(set(moves)) == len(moves)
    results = [apply_move(state, move) for move in moves]
    assert len(set(results)) == len(results)
    assert bool(moves) != state.is_over


def _universe(state: GameState) -> list[Move]:
    """Many candidate moves, legal or not, for the current position."""
    villages = [v.name for v in state.board.villages]
    takes: list[Good | None] = [None, *Good]
    moves: list[Move] = [TakePile(i) for i in range(6)] + [DiscardPile(i) for i in range(6)]
    moves += [PlayRoute(k, v, t) for k in RouteKind for v in villages for t in takes]
    moves += [PlayFeedMove(v, t) for v in villages for t in takes]
    moves += [PlayExtraGood(g) for g in Good] + [PlayFeedExtraGood(g) for g in Good]
    if state.current_player is not None:
        player = state.players[state.current_player]
        requests = {c for c in player.hand if isinstance(c, RequestCard)}
        requests |= set(state.cards.requests[:3])
        for request in sorted(requests, key=str):
            for combo in itertools.combinations_with_replacement(Good, len(request.goods)):
                moves.append(PlayRequest(request, Goods.of(combo)))
        moves.append(EndTurn())
        discardable = {*player.hand, *ROUTE_CARDS, EXTRA_GOOD, SPECIAL_FEED, *requests}
        moves += [DiscardCard(card) for card in sorted(discardable, key=card_sort_key)]
    return moves


@SETTINGS
@given(reachable_states())
def test_legal_moves_are_exactly_the_moves_that_apply(state: GameState) -> None:
    listed = set(legal_moves(state))
    for move in _universe(state):
        assert is_legal(state, move) == (move in listed), move
    assert all(is_legal(state, move) for move in listed)


@SETTINGS
@given(reachable_states())
def test_verify_move_refuses_exactly_what_apply_move_refuses_with_the_same_reason(
    state: GameState,
) -> None:
    # One statement of each rule: the action calls its verify_ function, so
    # the two doors give the same verdict and the same message.
    for move in _universe(state):
        try:
            verify_move(state, move)
            verdict = None
        except IllegalMoveError as error:
            verdict = str(error)
        try:
            apply_move(state, move)
            applied = None
        except IllegalMoveError as error:
            applied = str(error)
        assert verdict == applied, move


@SETTINGS
@given(reachable_states())
def test_applying_never_changes_the_state_passed_in(state: GameState) -> None:
    snapshot = copy.deepcopy(state)
    for move in legal_moves(state)[:10]:
        apply_move(state, move)
    assert state == snapshot


@SETTINGS
@given(walks)
def test_same_seed_and_moves_give_equal_states(path: list[tuple[GameState, Move]]) -> None:
    first = path[0][0]
    replayed = new_game(first.num_players, seed=first.seed, starting_dealer=first.dealer)
    assert replayed == first
    for state, move in path[:-1]:
        assert replayed == state
        replayed = apply_move(replayed, move)
    assert replayed == path[-1][0]


@SETTINGS
@given(reachable_states())
def test_notation_round_trips_for_every_legal_move(state: GameState) -> None:
    for move in legal_moves(state):
        text = str(move)
        assert parse_move(text, state) == move
        assert str(parse_move(text, state)) == text
        assert parse_move(text.upper(), state) == move


junk = st.one_of(
    st.none(),
    st.integers(-(2**70), 2**70),
    st.text(max_size=12),
    st.sampled_from(list(Good) + list(RouteKind)),
    st.sampled_from(["Knockando", "Aberlour", "Macallan", "knockando"]),
    st.builds(
        RequestCard,
        st.builds(Goods.of, st.lists(st.sampled_from(list(Good)), max_size=5)),
        st.integers(0, 9),
    ),
    st.builds(Goods.of, st.lists(st.sampled_from(list(Good)), max_size=6)),
    st.lists(st.integers(), max_size=3),
    st.floats(allow_nan=True),
)


def _built(kind: type, *fields: object) -> object:
    """``kind(*fields)``, or the fields themselves where the move's own type
    checks refuse them: a bool, float or int is not a good or a pile number."""
    try:
        return kind(*fields)
    except ConfigurationError:
        return fields


hostile_moves = st.one_of(
    st.builds(_built, st.just(TakePile), junk),
    st.builds(_built, st.just(DiscardPile), junk),
    st.builds(_built, st.just(PlayRoute), junk, junk, junk),
    st.builds(_built, st.just(PlayExtraGood), junk),
    st.builds(_built, st.just(PlayFeedMove), junk, junk),
    st.builds(_built, st.just(PlayFeedExtraGood), junk),
    st.builds(_built, st.just(PlayRequest), junk, junk),
    st.just(EndTurn()),
    st.builds(_built, st.just(DiscardCard), junk),
    junk,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(reachable_states(), hostile_moves)
def test_hostile_moves_raise_only_illegal_move_error(state: GameState, move: object) -> None:
    before = copy.deepcopy(state)
    try:
        after = apply_move(state, move)  # type: ignore[arg-type]
    except IllegalMoveError as error:
        assert error.rule and str(error).startswith(error.rule + ": ")
    else:
        assert move in legal_moves(state)
        check_invariants(after)
    assert state == before


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60))
def test_any_text_parses_to_a_move_or_a_notation_error(text: str) -> None:
    state = new_game(4, seed=1)
    try:
        move = parse_move(text, state)
    except NotationError as error:
        assert isinstance(error, ValueError)
    else:
        assert parse_move(str(move), state) == move
