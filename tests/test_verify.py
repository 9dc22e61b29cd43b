"""Each action's rules are written once, in its verify_ function (as in
pokerkit): verify_x raises, or returns the checked move made of the engine's
own objects, and x applies what verify_x returned."""

from __future__ import annotations

import inspect
import random

import attrs
import pytest

from troedler import (
    EXTRA_GOOD,
    ConfigurationError,
    DiscardCard,
    DiscardPile,
    EndTurn,
    IllegalMoveError,
    Phase,
    PlayExtraGood,
    PlayFeedExtraGood,
    PlayFeedMove,
    PlayRequest,
    PlayRoute,
    RequestCard,
    RouteKind,
    TakePile,
    apply_move,
    is_legal,
    legal_moves,
    new_game,
    verify_move,
)
from troedler.core import actions, forming, moves
from troedler.core.chance import apply_chance, chance_outcomes, new_explicit_game
from troedler.core.forming import forming_outcomes
from troedler.core.goods import Good

from .helpers import goods_of, position

ACTIONS = (
    "take_pile",
    "discard_dealer_pile",
    "play_route",
    "play_extra_good",
    "play_feed_move",
    "play_feed_extra_good",
    "play_request",
    "end_turn",
    "discard_card",
)


@pytest.mark.parametrize("name", ACTIONS)
def test_every_action_has_a_verify_with_its_parameters_and_calls_it(name: str) -> None:
    action = getattr(actions, name)
    verify = getattr(actions, f"verify_{name}")
    params = list(inspect.signature(action).parameters)
    assert list(inspect.signature(verify).parameters) == params
    assert f"verify_{name}" in actions.__all__
    assert f"can_{name}" not in actions.__all__
    # The action states no rule of its own: it applies what verify_ returned.
    assert f"verify_{name}(" in inspect.getsource(action)


@pytest.mark.parametrize("name", [*ACTIONS, "turn_up"])
def test_the_can_functions_of_0_2_warn_and_still_answer(name: str) -> None:
    state = new_game(2, seed=5)  # the dealer first discards a pile
    with pytest.warns(DeprecationWarning, match="is_legal") as warned:
        can = getattr(actions, f"can_{name}")
    # The warning points out of troedler, at the caller (under a mutation
    # tester's wrapper, at the wrapper): never at the module that warns.
    assert warned[0].filename != actions.__file__
    with pytest.raises(AttributeError, match=f"has no attribute 'cannot_{name}'"):
        getattr(actions, f"cannot_{name}")
    if name == "discard_dealer_pile":
        assert can(state, 0)
    elif name == "take_pile":
        assert not can(state, 0)


def test_verify_move_gives_the_checked_move_of_the_engines_own_objects() -> None:
    state = position(cart="Knockando", hand="AA:4 feed", goods="AB")
    request = RequestCard(goods_of("AA"), 4)
    listed = [move for move in legal_moves(state) if isinstance(move, PlayRequest)]
    assert listed
    for move in listed:
        checked = verify_move(state, move)
        assert checked == move
        held = state.players[0].hand
        assert any(checked.request is card for card in held)  # the hand's own card
    asked = PlayRequest(RequestCard(goods_of("AA"), 4), goods_of("AB"))
    checked = verify_move(state, asked)
    assert checked == asked and checked.request is not asked.request
    assert checked.request is next(card for card in state.players[0].hand if card == request)
    assert apply_move(state, asked) == apply_move(state, checked)


def test_R4_verify_take_pile_gives_the_reason_the_action_gives() -> None:
    state = new_game(2, seed=5)  # the dealer first discards a pile
    with pytest.raises(IllegalMoveError, match="R4: seat 0, the dealer, first discards") as told:
        actions.verify_take_pile(state, 0)
    with pytest.raises(IllegalMoveError) as done:
        actions.take_pile(state, 0)
    assert str(told.value) == str(done.value)
    assert actions.verify_discard_dealer_pile(state, 0) == DiscardPile(0)
    assert not is_legal(state, TakePile(0))
    with pytest.raises(IllegalMoveError, match="R4"):
        verify_move(state, TakePile(0))


def test_T4_verify_play_request_states_the_delivery_rules() -> None:
    state = position(cart="Knockando", hand="AA:4 extra", goods="AA", villages={"Knockando": "C"})
    request = RequestCard(goods_of("AA"), 4)
    with pytest.raises(IllegalMoveError, match=r"T4: Knockando still holds 1 goods \(C\)"):
        actions.verify_play_request(state, request, goods_of("AA"))
    assert actions.verify_play_extra_good(state, Good.CHAIR) == PlayExtraGood(Good.CHAIR)
    taken = actions.play_extra_good(state, Good.CHAIR)
    with pytest.raises(IllegalMoveError, match="T3: seat 0 holds no extra card"):
        actions.verify_play_extra_good(taken, Good.CHAIR)  # the card is played
    assert actions.verify_play_request(taken, request, goods_of("AA")) == PlayRequest.exact(request)
    delivered = actions.play_request(taken, request, goods_of("AA"))
    assert delivered.goods_in("Knockando") == goods_of("AA")


def test_T2_verify_play_route_passes_for_each_listed_route_and_changes_nothing() -> None:
    state = position(cart="Knockando", hand="bridge")
    before = state
    routes = [move for move in legal_moves(state) if isinstance(move, PlayRoute)]
    assert routes
    for move in routes:
        # The listed move itself: the board's own, built once.
        assert actions.verify_play_route(state, move.kind, move.to, move.take) is move
    assert state == before
    assert not is_legal(state, PlayRoute(RouteKind.FERRY, routes[0].to))  # no ferry held
    with pytest.raises(IllegalMoveError, match="T2: seat 0 holds no ferry card"):
        actions.verify_play_route(state, RouteKind.FERRY, routes[0].to)


def test_a_verify_with_a_non_state_names_the_value_not_a_rule() -> None:
    with pytest.raises(ConfigurationError, match="expected a GameState"):
        actions.verify_end_turn("a state")  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="expected a GameState"):
        apply_move("a state", TakePile(0))  # type: ignore[arg-type]


def test_R2_verify_turn_up_names_a_card_the_pile_lacks_and_turn_up_lays_the_piles_own() -> None:
    state = new_explicit_game(2)
    while state.phase is not Phase.FORM_PILES:
        state = apply_chance(state, chance_outcomes(state)[0][0])
    card, _count = forming_outcomes(state)[0]
    assert forming.verify_turn_up(state, card) is next(
        c for c in state.game_round_pile if c == card
    )
    laid = forming.turn_up(state, card)
    top = next(pile for pile in laid.dealer_piles if pile)[0]
    assert top is card or top is next(c for c in state.game_round_pile if c == card)
    with pytest.raises(IllegalMoveError, match="R2: no dealer pile is being formed"):
        forming.verify_turn_up(new_game(2, seed=1), card)


def test_E1_no_move_is_legal_once_the_game_is_over() -> None:
    state = new_game(2, seed=3)
    rng = random.Random(3)
    while not state.is_over:
        moves = legal_moves(state)
        state = apply_move(state, moves[rng.randrange(len(moves))])
    assert legal_moves(state) == ()
    for move in (EndTurn(), TakePile(0), DiscardPile(0)):
        with pytest.raises(IllegalMoveError, match="E1: the game is over"):
            verify_move(state, move)
        assert not is_legal(state, move)


def test_R4_R5_verify_move_for_the_seat_to_move_passes_and_for_another_is_refused() -> None:
    taking = new_game(3, seed=1)
    seat = taking.current_player
    assert verify_move(taking, TakePile(0), seat=seat) == TakePile(0)
    with pytest.raises(IllegalMoveError, match=f"R4: seat {seat} is to move, not seat"):
        verify_move(taking, TakePile(0), seat=(seat + 1) % 3)  # type: ignore[operator]
    turn = position(hand="trail")
    assert verify_move(turn, EndTurn(), seat=0) == EndTurn()
    for other in (1, True, 0.0):
        with pytest.raises(IllegalMoveError, match="R5: seat 0 is to move"):
            verify_move(turn, EndTurn(), seat=other)  # type: ignore[arg-type]


def test_T4_T5c_the_exact_delivery_is_listed_first() -> None:
    state = position(cart="Knockando", hand="AA:4 feed feed", goods="AABC")
    deliveries = [move for move in legal_moves(state) if isinstance(move, PlayRequest)]
    assert len(deliveries) > 1
    assert deliveries[0] == PlayRequest.exact(deliveries[0].request)
    assert all(move.feed_cost > 0 for move in deliveries[1:])
    assert sorted(move.feed_cost for move in deliveries) == [m.feed_cost for m in deliveries]


def test_R4_T4_refusals_name_their_rule() -> None:
    three = new_game(3, seed=1)
    with pytest.raises(IllegalMoveError, match="^R4: only in the two-player game"):
        actions.verify_discard_dealer_pile(three, 0)
    two = apply_move(new_game(2, seed=1), DiscardPile(0))
    with pytest.raises(IllegalMoveError, match="^R4: the dealer discards a pile only before"):
        actions.verify_discard_dealer_pile(two, 1)
    turn = position(cart="Knockando", hand="AA:4 extra", goods="AA")
    for not_a_request in (EXTRA_GOOD, "AA:4", None):
        with pytest.raises(IllegalMoveError, match="^T4: .* is not a goods request"):
            actions.verify_play_request(turn, not_a_request, goods_of("AA"))  # type: ignore[arg-type]
    with pytest.raises(IllegalMoveError, match="^T4: .* is not goods to deliver"):
        actions.verify_play_request(turn, RequestCard(goods_of("AA"), 4), "AA")  # type: ignore[arg-type]


def _direct_call(state, move):  # type: ignore[no-untyped-def]
    """The action function of ``move``'s type called with the move's fields."""
    name, fields = {
        TakePile: ("take_pile", ("pile",)),
        DiscardPile: ("discard_dealer_pile", ("pile",)),
        PlayRoute: ("play_route", ("kind", "to", "take")),
        PlayExtraGood: ("play_extra_good", ("good",)),
        PlayFeedMove: ("play_feed_move", ("to", "take")),
        PlayFeedExtraGood: ("play_feed_extra_good", ("good",)),
        PlayRequest: ("play_request", ("request", "delivered")),
        EndTurn: ("end_turn", ()),
        DiscardCard: ("discard_card", ("card",)),
    }[type(move)]
    return getattr(actions, name)(state, *(getattr(move, field) for field in fields))


def test_each_action_called_directly_makes_the_move_apply_move_makes() -> None:
    # Every legal move of three whole seeded games, each called through its
    # own action function (R2-R5, T2-T7): the same state as apply_move.
    seen: set[type] = set()
    for players in (2, 3, 4):
        rng = random.Random(players)
        state = new_game(players, seed=40 + players)
        while not state.is_over:
            moves = legal_moves(state)
            for move in moves:
                assert _direct_call(state, move) == apply_move(state, move)
                seen.add(type(move))
            state = apply_move(state, rng.choice(moves))
    assert seen == set(actions.MOVE_RULES)


def test_T3_T5_an_action_called_directly_with_what_is_no_good_names_its_rule() -> None:
    turn = position(cart="Knockando", hand="extra feed", goods="", villages={"Knockando": "A"})
    for action, rule, move in (
        (actions.play_extra_good, "T3", PlayExtraGood(Good.ANVIL)),
        (actions.play_feed_extra_good, "T5b", PlayFeedExtraGood(Good.ANVIL)),
    ):
        with pytest.raises(IllegalMoveError, match=f"^{rule}: 'A' is not a good$"):
            action(turn, "A")  # type: ignore[arg-type]
        assert action(turn, Good.ANVIL) == apply_move(turn, move)


def test_T4_goods_that_only_look_like_goods_are_not_delivered() -> None:
    # A state never holds a caller's object (T4): neither a stand-in with the
    # goods' counts nor goods whose counts are not the engine's tuple.
    turn = position(cart="Knockando", hand="AA:4", goods="AA", villages={"Knockando": ""})
    request = turn.players[0].hand[0]

    class LookAlike:
        counts = goods_of("AA").counts

    odd = goods_of("AA")
    object.__setattr__(odd, "counts", list(odd.counts))
    for delivered in (LookAlike(), odd):
        with pytest.raises(IllegalMoveError, match="^T4: .* is not goods to deliver"):
            actions.play_request(turn, request, delivered)  # type: ignore[arg-type]


def test_T7_the_checked_discard_is_the_listed_move_of_the_hands_own_card() -> None:
    # One move per card value, shared with legal_moves, and always made of
    # the hand's own card: an equal card of another hand is not shared.
    state = apply_move(position(hand="trail bridge extra AA:4 BB:4 feed"), EndTurn())
    held = state.players[0].hand[0]
    moves.discard_move.cache_clear()
    listed = next(m for m in legal_moves(state) if isinstance(m, DiscardCard) and m.card == held)
    assert listed.card is held
    assert verify_move(state, DiscardCard(held)) is listed
    moves.discard_move.cache_clear()
    moves.discard_move(attrs.evolve(held))  # an equal card, another object
    assert verify_move(state, DiscardCard(held)).card is held
