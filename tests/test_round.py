"""R1-R6: forming and taking dealer piles, turn order, passing the horse."""

from __future__ import annotations

import attrs
import pytest

from tests.helpers import cards, play, position
from troedler import (
    DiscardPile,
    EndTurn,
    IllegalMoveError,
    Phase,
    Rules,
    TakePile,
    apply_move,
    check_invariants,
    form_piles,
    from_position_text,
    legal_moves,
    new_game,
    parse_move,
)
from troedler.core.pile import Pile
from troedler.core.rulebook import most_carried, pile_count


def test_R1_three_phases_in_order() -> None:
    state = new_game(3, seed=1)
    assert state.phase is Phase.TAKE_PILES  # forming is done, taking waits
    with pytest.raises(IllegalMoveError, match="T1: cards are played in turns"):
        apply_move(state, EndTurn())
    for _ in range(3):
        state = apply_move(state, legal_moves(state)[0])
    assert state.phase is Phase.PLAY_TURNS
    with pytest.raises(IllegalMoveError, match="R1: the dealer piles of round 1 are gone"):
        apply_move(state, TakePile(0))
    with pytest.raises(IllegalMoveError, match="R1"):
        form_piles(state)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_R2_piles_are_laid_in_layers_of_one_card_each(players: int) -> None:
    state = new_game(players, seed=4)
    before = attrs.evolve(
        state, dealer_piles=(), game_round_pile=state.game_round_pile + _laid(state)
    )
    formed = form_piles(before)
    assert formed == state
    deck = before.game_round_pile
    piles = players + 1
    for pile in range(piles):
        for layer in range(4):
            assert formed.dealer_piles[pile][layer] == deck[-1 - (layer * piles + pile)]  # type: ignore[index]
    assert all(len(pile or ()) == 4 for pile in formed.dealer_piles)
    assert formed.pile_tops() == tuple(pile[-1] for pile in formed.dealer_piles)  # type: ignore[index]


def _laid(state):  # type: ignore[no-untyped-def]
    """The cards of the dealer piles in the order they were turned up."""
    piles = state.dealer_piles
    order = [piles[p][layer] for layer in range(4) for p in range(len(piles))]
    return tuple(reversed(order))


def _between_rounds(state, deck, discard, **rules):  # type: ignore[no-untyped-def]
    return attrs.evolve(
        state,
        rules=attrs.evolve(state.rules, **rules),
        phase=Phase.TAKE_PILES,
        dealer_piles=(),
        game_round_pile=deck,
        discard_pile=Pile.of(discard),
    )


def test_R3_discard_pile_becomes_the_game_round_pile_when_used_up() -> None:
    state = new_game(4, seed=6)
    everything = state.game_round_pile + _laid(state) + state.discard_pile.cards
    empty_deck = _between_rounds(state, (), everything)
    formed = form_piles(empty_deck)
    assert formed.discard_pile.cards == ()
    assert formed.shuffles == state.shuffles + 1
    assert sum(len(p or ()) for p in formed.dealer_piles) == 20
    assert len(formed.game_round_pile) == len(everything) - 20


def test_R3_decision_reshuffle_mid_forming() -> None:
    state = new_game(4, seed=6)
    cards_ = state.game_round_pile + _laid(state) + state.discard_pile.cards
    short = _between_rounds(state, cards_[:7], cards_[7:])
    formed = form_piles(short)
    assert [len(p or ()) for p in formed.dealer_piles] == [4] * 5
    # The first seven cards laid are the old game-round pile's, top first.
    first_layer_and_more = [formed.dealer_piles[p][0] for p in range(5)] + [  # type: ignore[index]
        formed.dealer_piles[0][1],  # type: ignore[index]
        formed.dealer_piles[1][1],  # type: ignore[index]
    ]
    assert first_layer_and_more == list(reversed(cards_[:7]))
    assert formed.discard_pile.cards == ()


def test_R3_option_off_leaves_piles_short_until_next_round() -> None:
    state = new_game(4, seed=6)
    cards_ = state.game_round_pile + _laid(state) + state.discard_pile.cards
    short = _between_rounds(state, cards_[:7], cards_[7:], reshuffle_mid_forming=False)
    formed = form_piles(short)
    assert [len(p or ()) for p in formed.dealer_piles] == [2, 2, 1, 1, 1]
    assert formed.discard_pile.cards == cards_[7:]


def test_R3_both_piles_empty_gives_empty_piles_that_can_be_taken() -> None:
    state = new_game(3, seed=6)
    nothing = _between_rounds(state, (), ())
    formed = form_piles(nothing)
    assert formed.dealer_piles == ((), (), (), ())
    assert legal_moves(formed) == tuple(TakePile(i) for i in range(4))
    after = apply_move(formed, TakePile(2))
    assert after.dealer_piles[2] is None


def test_R4_taking_order_dealer_last_and_leftover_discarded() -> None:
    state = new_game(4, seed=9, starting_dealer=2)
    order = []
    discard_before = state.discard_pile.cards
    piles = state.dealer_piles
    for pile in (4, 0, 3, 1):
        order.append(state.current_player)
        taker = state.current_player
        hand_before = state.players[taker].hand  # type: ignore[index]
        state = apply_move(state, TakePile(pile))
        assert sorted(map(str, state.players[taker].hand)) == sorted(  # type: ignore[index]
            map(str, hand_before + piles[pile])  # type: ignore[operator]
        )
    assert order == [3, 0, 1, 2]
    assert state.discard_pile.cards == discard_before + piles[2]  # type: ignore[operator]
    assert state.phase is Phase.PLAY_TURNS and state.current_player == 2


def test_R4_a_pile_is_taken_once() -> None:
    state = apply_move(new_game(4, seed=9), TakePile(1))
    with pytest.raises(IllegalMoveError, match="R4: dealer pile 1 was taken already"):
        apply_move(state, TakePile(1))
    with pytest.raises(IllegalMoveError, match="R4: there is no dealer pile 5"):
        apply_move(state, TakePile(5))
    with pytest.raises(IllegalMoveError, match="R4: only in the two-player game"):
        apply_move(state, DiscardPile(0))
    with pytest.raises(IllegalMoveError, match="R4: seat 2 is to move, not seat 0"):
        apply_move(state, TakePile(0), seat=0)


def test_R4_a_pile_gone_says_whether_it_was_taken_or_discarded() -> None:
    state = apply_move(new_game(2, seed=9), DiscardPile(2))
    with pytest.raises(IllegalMoveError, match="R4: dealer pile 2 was discarded by the dealer"):
        apply_move(state, TakePile(2))
    state = apply_move(new_game(3, seed=9), TakePile(0))
    for move in (TakePile(0), parse_move("take 0", state)):
        with pytest.raises(IllegalMoveError, match="R4: dealer pile 0 was taken already"):
            apply_move(state, move)


def test_R4_two_players_dealer_discards_first_then_other_then_dealer() -> None:
    state = new_game(2, seed=9, starting_dealer=1)
    assert state.current_player == 1
    assert legal_moves(state) == (DiscardPile(0), DiscardPile(1), DiscardPile(2))
    with pytest.raises(IllegalMoveError, match="R4: seat 1, the dealer, first discards"):
        apply_move(state, TakePile(0))
    piles = state.dealer_piles
    state = apply_move(state, DiscardPile(1))
    assert state.discard_pile.cards[-4:] == piles[1]
    assert state.current_player == 0
    with pytest.raises(IllegalMoveError, match="R4: the dealer discards a pile only before"):
        apply_move(state, DiscardPile(0))
    state = apply_move(state, TakePile(2))
    assert state.current_player == 1
    state = apply_move(state, TakePile(0))
    assert state.phase is Phase.PLAY_TURNS and state.current_player == 1
    check_invariants(state)


def test_R4_two_players_without_two_player_rules_take_like_more_players() -> None:
    rules = Rules.for_players(2, two_player_rules=False)
    state = new_game(2, seed=9, rules=rules)
    assert legal_moves(state) == (TakePile(0), TakePile(1), TakePile(2))
    assert state.current_player == 1


def test_R5_turns_start_with_the_dealer_and_go_clockwise() -> None:
    state = new_game(3, seed=2, starting_dealer=1)
    while state.phase is Phase.TAKE_PILES:
        state = apply_move(state, legal_moves(state)[0])
    seen = []
    while state.round == 1:
        if state.turn.discards_due:  # the same turn, discarding down to the hand limit
            state = apply_move(state, legal_moves(state)[0])
            continue
        seen.append(state.current_player)
        state = apply_move(state, next(m for m in legal_moves(state) if isinstance(m, EndTurn)))
    assert seen == [1, 2, 0]


def test_R5_a_move_out_of_turn_is_refused() -> None:
    state = position(seat=1, hand="bridge")
    with pytest.raises(IllegalMoveError, match="R5: seat 1 is to move, not seat 3"):
        apply_move(state, EndTurn(), seat=3)


LAST_TURN_OF_ROUND_1 = from_position_text(
    "players=3 seed=0 shuffles=5 round=1 phase=play_turns dealer=0 to_move=2 "
    "pile=t12b12f12m11e4s27AA4AB3BB4CC4CU3UU4PP4VV4AAA6AAB5ABC4ACU4ACU4BBC5BCV4CVV5UUP5UPV4"
    "UPV4PPP6PPV5AAAB7ABCU6BBCC6BBVV6CCUU6CUPV6UUVV6PPPV7 piles=- discard=- "
    "villages=ACP/ACP/ACP/ACP/ACP/ACP/ACP/ACP/-/BUV/BUV/BUV/BUV/BUV/BUV/BUV/BUV "
    "seats=Aberlour:-:-:-/Dufftown:-:-:-/Tomintoul:-:-:- turn=-"
)
"""Seat 2, right of the dealer, plays the last turn of round 1 with empty hands all round."""


def test_R6_horse_passes_clockwise_and_new_piles_are_formed() -> None:
    state = LAST_TURN_OF_ROUND_1
    deck_before = len(state.game_round_pile)
    state = play(state, "end")
    assert state.round == 2
    assert state.dealer == 1
    assert state.phase is Phase.TAKE_PILES
    assert state.current_player == 2
    assert len(state.dealer_piles) == 4
    assert len(state.game_round_pile) == deck_before - 16


def test_R6_no_pass_in_the_middle_of_a_round() -> None:
    state = position(players=3, seat=0, hand="bridge")
    state = play(state, "end")
    assert state.round == 1 and state.dealer == 0 and state.current_player == 1
    assert cards("bridge") == state.players[0].hand


@pytest.mark.parametrize("players", [2, 3, 4])
def test_R2_a_round_forms_one_dealer_pile_more_than_the_players(players: int) -> None:
    state = new_game(players, seed=players)
    assert pile_count(players) == players + 1 == len(state.dealer_piles)


def test_T7_a_hand_carries_the_hand_limit_or_the_starting_hand_between_turns() -> None:
    assert most_carried(Rules.for_players(4)) == 4
    assert most_carried(attrs.evolve(Rules.for_players(4), hand_limit=1)) == 3
