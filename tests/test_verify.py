"""Each move's rules are written once, in its check (as in pokerkit):
verify_x(state, move) raises, or returns the checked move made of the
engine's own objects, and the move's action applies what the check returned."""

from __future__ import annotations

import inspect
import random
import re
import typing

import attrs
import pytest

import troedler
from troedler import (
    EXTRA_GOOD,
    SPECIAL_FEED,
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
from troedler.core.cards import ROUTE_CARDS
from troedler.core.chance import apply_chance, chance_outcomes, new_explicit_game
from troedler.core.forming import forming_outcomes
from troedler.core.goods import Good

from .helpers import forged, goods_of, position

CHECKS = {
    TakePile: "verify_take_pile",
    DiscardPile: "verify_discard_dealer_pile",
    PlayRoute: "verify_play_route",
    PlayExtraGood: "verify_play_extra_good",
    PlayFeedMove: "verify_play_feed_move",
    PlayFeedExtraGood: "verify_play_feed_extra_good",
    PlayRequest: "verify_play_request",
    EndTurn: "verify_end_turn",
    DiscardCard: "verify_discard_card",
}


@pytest.mark.parametrize("move_type", list(CHECKS), ids=lambda t: t.__name__)
def test_every_move_type_has_one_check_that_takes_the_move_and_returns_it(move_type: type) -> None:
    check, act = actions.MOVE_RULES[move_type]
    assert check is getattr(actions, CHECKS[move_type])
    assert check.__name__ in actions.__all__
    assert list(inspect.signature(check).parameters) == ["state", "move"]
    hints = typing.get_type_hints(check)
    assert hints["move"] is move_type and hints["return"] is move_type
    # The table names its functions: no adapter between the move and its check.
    assert "<lambda>" not in (check.__name__, act.__name__)
    assert list(inspect.signature(act).parameters) == ["state", "move"]


@pytest.mark.parametrize("move_type", list(CHECKS), ids=lambda t: t.__name__)
def test_a_check_given_another_kind_of_move_names_what_it_expected(move_type: type) -> None:
    other = TakePile(0) if move_type is not TakePile else EndTurn()
    expected = f"^expected a {move_type.__name__}, got {re.escape(repr(other))}$"
    with pytest.raises(ConfigurationError, match=expected):
        getattr(actions, CHECKS[move_type])(position(hand="trail"), other)
    with pytest.raises(AttributeError, match="has no attribute 'verify_nothing'"):
        getattr(actions, "verify_nothing")  # noqa: B009


@pytest.mark.parametrize("module", [troedler, actions], ids=["troedler", "actions"])
@pytest.mark.parametrize("name", list(actions.DEPRECATED_ACTIONS))
def test_the_action_functions_of_0_3_warn_and_make_their_move(module: object, name: str) -> None:
    move_type = actions.DEPRECATED_ACTIONS[name]
    with pytest.warns(
        DeprecationWarning, match=rf"apply_move\(state, troedler\.{move_type.__name__}"
    ) as warned:
        action = getattr(module, name)
    # The warning points out of troedler, at the caller (under a mutation
    # tester's wrapper, at the wrapper): never at the module that warns.
    assert warned[0].filename not in (actions.__file__, troedler.__file__)
    assert action.__name__ == name
    for players in (2, 3):
        rng = random.Random(players)
        state = new_game(players, seed=players)
        while not state.is_over:
            moves = legal_moves(state)
            for move in moves:
                if type(move) is move_type:
                    fields = [getattr(move, f.name) for f in attrs.fields(move_type) if f.init]
                    assert action(state, *fields) == apply_move(state, move)
                    return
            state = apply_move(state, rng.choice(moves))
    pytest.fail(f"no {move_type.__name__} in two games")


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
        actions.verify_take_pile(state, TakePile(0))
    with pytest.raises(IllegalMoveError) as done:
        apply_move(state, TakePile(0))
    assert str(told.value) == str(done.value)
    assert actions.verify_discard_dealer_pile(state, DiscardPile(0)) == DiscardPile(0)
    assert not is_legal(state, TakePile(0))
    with pytest.raises(IllegalMoveError, match="R4"):
        verify_move(state, TakePile(0))


def test_T4_verify_play_request_states_the_delivery_rules() -> None:
    state = position(cart="Knockando", hand="AA:4 extra", goods="AA", villages={"Knockando": "C"})
    request = RequestCard(goods_of("AA"), 4)
    with pytest.raises(IllegalMoveError, match=r"T4: Knockando still holds 1 goods \(C\)"):
        actions.verify_play_request(state, PlayRequest(request, goods_of("AA")))
    extra = PlayExtraGood(Good.CHAIR)
    assert actions.verify_play_extra_good(state, extra) == extra
    taken = apply_move(state, extra)
    with pytest.raises(IllegalMoveError, match="T3: seat 0 holds no extra card"):
        actions.verify_play_extra_good(taken, extra)  # the card is played
    asked = PlayRequest(request, goods_of("AA"))
    assert actions.verify_play_request(taken, asked) == PlayRequest.exact(request)
    delivered = apply_move(taken, asked)
    assert delivered.goods_in("Knockando") == goods_of("AA")


def test_T2_verify_play_route_passes_for_each_listed_route_and_changes_nothing() -> None:
    state = position(cart="Knockando", hand="bridge")
    before = state
    routes = [move for move in legal_moves(state) if isinstance(move, PlayRoute)]
    assert routes
    for move in routes:
        # The listed move itself: the board's own, built once.
        assert actions.verify_play_route(state, move) is move
        assert actions.verify_play_route(state, PlayRoute(move.kind, move.to, move.take)) is move
    assert state == before
    assert not is_legal(state, PlayRoute(RouteKind.FERRY, routes[0].to))  # no ferry held
    with pytest.raises(IllegalMoveError, match="T2: seat 0 holds no ferry card"):
        actions.verify_play_route(state, PlayRoute(RouteKind.FERRY, routes[0].to))


def test_a_verify_with_a_non_state_names_the_value_not_a_rule() -> None:
    with pytest.raises(ConfigurationError, match="expected a GameState"):
        actions.verify_end_turn("a state", EndTurn())  # type: ignore[arg-type]
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
        actions.verify_discard_dealer_pile(three, DiscardPile(0))
    two = apply_move(new_game(2, seed=1), DiscardPile(0))
    with pytest.raises(IllegalMoveError, match="^R4: the dealer discards a pile only before"):
        actions.verify_discard_dealer_pile(two, DiscardPile(1))
    turn = position(cart="Knockando", hand="AA:4 extra", goods="AA")
    for not_a_request in (EXTRA_GOOD, "AA:4", None):
        with pytest.raises(IllegalMoveError, match="^T4: .* is not a goods request"):
            actions.verify_play_request(
                turn, forged(PlayRequest, request=not_a_request, delivered=goods_of("AA"))
            )
    with pytest.raises(IllegalMoveError, match="^T4: .* is not goods to deliver"):
        actions.verify_play_request(
            turn, forged(PlayRequest, request=RequestCard(goods_of("AA"), 4), delivered="AA")
        )


def test_each_check_and_action_called_directly_makes_the_move_apply_move_makes() -> None:
    # Every legal move of three whole seeded games, checked by its own check
    # and applied by its own action (R2-R5, T2-T7): the check gives back a
    # move equal to the listed one, and the action the state apply_move gives.
    seen: set[type] = set()
    for players in (2, 3, 4):
        rng = random.Random(players)
        state = new_game(players, seed=40 + players)
        while not state.is_over:
            moves = legal_moves(state)
            for move in moves:
                check, act = actions.MOVE_RULES[type(move)]
                checked = check(state, move)
                assert checked == move and type(checked) is type(move)
                assert act(state, checked) == apply_move(state, move)
                seen.add(type(move))
            state = apply_move(state, rng.choice(moves))
    assert seen == set(actions.MOVE_RULES)


def test_T3_T5_a_move_built_past_its_checks_with_what_is_no_good_names_its_rule() -> None:
    turn = position(cart="Knockando", hand="extra feed", goods="", villages={"Knockando": "A"})
    for rule, move in (("T3", PlayExtraGood(Good.ANVIL)), ("T5b", PlayFeedExtraGood(Good.ANVIL))):
        with pytest.raises(IllegalMoveError, match=f"^{rule}: 'A' is not a good$"):
            apply_move(turn, forged(type(move), good="A"))
        check, act = actions.MOVE_RULES[type(move)]
        assert check(turn, move) == move
        assert act(turn, check(turn, move)) == apply_move(turn, move)


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
            apply_move(turn, forged(PlayRequest, request=request, delivered=delivered, feed_cost=0))


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


def test_T2_T5_T7_every_move_says_the_card_it_plays_and_the_feed_it_costs() -> None:
    # Over three whole games: a move's card is the card that leaves the hand
    # (None: no card of the hand), and its feed cost is the special feed
    # played with it, each a point of damage (E2).
    seen: set[type] = set()
    for players in (2, 3, 4):
        rng = random.Random(players)
        state = new_game(players, seed=60 + players)
        while not state.is_over:
            for move in legal_moves(state):
                seen.add(type(move))
                seat = state.current_player
                assert seat is not None
                after = apply_move(state, move)
                if move.card is None:
                    assert type(move) in (TakePile, DiscardPile, EndTurn)
                    assert move.feed_cost == 0
                    continue
                assert move.card in state.players[seat].hand
                if type(move) is DiscardCard:
                    assert move.feed_cost == 0
                    if after.round == state.round:  # else the pile may be shuffled (R3)
                        assert move.card in after.discard_pile.cards[len(state.discard_pile) :]
                    continue
                played = after.turn.played[len(state.turn.played) :]
                assert played[0] == move.card
                assert played.count(SPECIAL_FEED) == move.feed_cost
            state = apply_move(state, rng.choice(legal_moves(state)))
    assert seen == set(actions.MOVE_RULES)


def test_a_moves_card_is_the_engines_shared_card_and_its_cost_a_number() -> None:
    request = RequestCard(goods_of("AAB"), 5)
    for move, card, cost in (
        (TakePile(1), None, 0),
        (DiscardPile(0), None, 0),
        (EndTurn(), None, 0),
        (PlayRoute(RouteKind.FERRY, "Dufftown"), ROUTE_CARDS[RouteKind.FERRY], 0),
        (PlayExtraGood(Good.VASE), EXTRA_GOOD, 0),
        (PlayFeedMove("Dufftown", Good.CUP), SPECIAL_FEED, 1),
        (PlayFeedExtraGood(Good.CUP), SPECIAL_FEED, 1),
        (PlayRequest.exact(request), request, 0),
        (PlayRequest(request, goods_of("ABU")), request, 1),
        (PlayRequest(request, goods_of("CUV")), request, 3),
        (DiscardCard(request), request, 0),
    ):
        assert move.card == card and move.feed_cost == cost and type(move.feed_cost) is int
        if not isinstance(card, RequestCard):  # PlayRequest.exact is shared by equal requests
            assert move.card is card
    # Equal moves stay equal whatever they carry, and evolve keeps the card right.
    ferry = PlayRoute(RouteKind.FERRY, "Dufftown")
    moor = attrs.evolve(ferry, kind=RouteKind.MOOR_PATH)
    assert moor.card is ROUTE_CARDS[RouteKind.MOOR_PATH] and moor == PlayRoute(
        RouteKind.MOOR_PATH, "Dufftown"
    )
    assert repr(ferry) == "PlayRoute(kind=<RouteKind.FERRY: 2>, to='Dufftown', take=None)"


def test_T4_T5c_a_listed_delivery_checks_to_itself_and_a_forged_cost_is_worked_out_again() -> None:
    state = position(cart="Knockando", hand="AA:4 feed", goods="AAB")
    deliveries = [move for move in legal_moves(state) if isinstance(move, PlayRequest)]
    assert {move.feed_cost for move in deliveries} == {0, 1}
    for move in deliveries:
        checked = actions.verify_play_request(state, move)
        # Made of the hand's card and the shared goods, it checks to itself.
        assert actions.verify_play_request(state, checked) is checked
        forged = attrs.evolve(checked)
        object.__setattr__(forged, "feed_cost", 1 - move.feed_cost)  # past its constructor
        again = actions.verify_play_request(state, forged)
        assert again is not forged and again.feed_cost == move.feed_cost
        assert apply_move(state, forged) == apply_move(state, move)
