"""E1-E7: the end of the game and the final scoring."""

from __future__ import annotations

import attrs
import pytest

from tests.helpers import goods_of, hand, play, position
from troedler import (
    ConfigurationError,
    Phase,
    RequestCard,
    Tally,
    TroedlerError,
    from_position_text,
    outcome,
    score,
)
from troedler.core.cards import sort_hand

IVY = Tally(feed_used=4, goods_held=5, request_points=(7, 6, 5, 3))
JACK = Tally(feed_used=5, goods_held=1, request_points=(6, 5, 4, 3, 3))
FREYA = Tally(feed_used=3, goods_held=6, request_points=(5, 5, 4, 4))
SCOTT = Tally(feed_used=6, goods_held=0, request_points=(7, 7, 4, 3, 3))


def _with_fulfilled(state, seat, count):  # type: ignore[no-untyped-def]
    """Move ``count`` requests from the game-round pile onto a value pile."""
    pile = list(state.game_round_pile)
    taken = [card for card in pile if isinstance(card, RequestCard)][:count]
    for card in taken:
        pile.remove(card)
    player = state.players[seat]
    players = list(state.players)
    players[seat] = attrs.evolve(player, value_pile=sort_hand(player.value_pile + tuple(taken)))
    return attrs.evolve(state, game_round_pile=tuple(pile), players=tuple(players))


@pytest.mark.parametrize(("players", "threshold"), [(2, 7), (3, 6), (4, 5)])
def test_E1_game_ends_at_round_end_after_the_threshold(players: int, threshold: int) -> None:
    state = position(
        players=players,
        seat=0,
        hand="AA:4",
        goods="AA",
        villages={"Knockando": ""},
        cart="Knockando",
    )
    state = _with_fulfilled(state, 0, threshold - 1)
    state = play(state, "deliver AA:4", "end")
    assert len(state.players[0].fulfilled_requests) == threshold
    # The round goes on: every other player still has their turn.
    for seat in range(1, players):
        assert not state.is_over
        assert state.current_player == seat
        state = play(state, "end")
    assert state.is_over
    assert state.phase is Phase.GAME_OVER and state.current_player is None
    assert state.round == 1


def test_E1_below_the_threshold_the_game_goes_on() -> None:
    state = _with_fulfilled(position(players=4, seat=3), 0, 4)
    state = attrs.evolve(state, dealer=0)
    state = play(state, "end")
    assert not state.is_over and state.round == 2
    with pytest.raises(TroedlerError, match="E1: the game is not over"):
        outcome(state)


def test_E2_damage_is_feed_used_plus_half_the_goods_rounded_up() -> None:
    assert Tally(4, 5).damage == 7
    assert Tally(0, 1).damage == 1
    assert Tally(3, 6).damage == 6
    assert Tally(2, 0).damage == 2


def test_E2_feed_in_hand_is_no_damage() -> None:
    state = from_position_text(
        "players=4 seed=0 shuffles=5 round=1 phase=game_over dealer=0 to_move=- "
        "pile=t12b12f12m12e4s26AA4AB3BB4CC4CU3UU4PP4VV4AAA6AAB5ABC4ACU4ACU4BBC5BCV4BPV4CVV5UUP5"
        "UPV4UPV4PPP6PPV5AAAB7ABCU6BBCC6BBVV6CCUU6CUPV6UUVV6PPPV7 piles=- discard=- "
        "villages=-/ACP/ACP/ACP/ACP/ACP/BUV/BUV/BUV/BUV/BUV/BUV/BUV/BUV/CP/CP/CP "
        "seats=Aberlour:s2:AAA:-/Dufftown:-:-:-/Tomintoul:-:-:-/Ballindalloch:-:-:- turn=-"
    )
    assert outcome(state).damage[0] == 2  # 0 feed used + 3 goods / 2 rounded up


def test_E3_sole_highest_damage_is_total_damage() -> None:
    result = score([Tally(5, 0), Tally(3, 0), Tally(4, 0)])
    assert result.totally_damaged == frozenset({0})
    shared = score([Tally(5, 0), Tally(5, 0), Tally(4, 0)])
    assert shared.totally_damaged == frozenset()


def test_E4_two_players_total_damage_by_three_or_more() -> None:
    assert score([Tally(5, 0), Tally(3, 0)]).totally_damaged == frozenset()
    result = score([Tally(2, 0, (3,)), Tally(5, 0, (7,))])
    assert result.totally_damaged == frozenset({1})
    assert result.winners == frozenset({0})
    # Under the more-player rule the sole highest would lose at any margin.
    assert score([Tally(5, 0), Tally(4, 0)], two_player_rules=False).totally_damaged == {0}


def test_E5_points_are_requests_plus_goods_even_with_total_damage() -> None:
    result = score([IVY, JACK, FREYA, SCOTT])
    assert result.points == (26, 22, 24, 24)
    assert 0 in result.totally_damaged and 0 not in result.winners


def test_E6_ties_go_to_fewer_goods_then_several_winners() -> None:
    result = score([Tally(0, 2, (10,)), Tally(0, 0, (12,)), Tally(0, 0, (12,))])
    assert result.winners == frozenset({1, 2})
    result = score([Tally(0, 2, (10,)), Tally(0, 1, (11,)), Tally(0, 0, (9,))])
    assert result.winners == frozenset({1})


def test_E7_rulebook_worked_example() -> None:
    result = score([IVY, JACK, FREYA, SCOTT])
    assert result.damage == (7, 6, 6, 6)
    assert result.points == (26, 22, 24, 24)
    assert result.totally_damaged == frozenset({0})
    assert result.winners == frozenset({3})


def test_E7_rulebook_variant_scott_with_seven_damage() -> None:
    scott = attrs.evolve(SCOTT, feed_used=7)
    result = score([IVY, JACK, FREYA, scott])
    assert result.totally_damaged == frozenset()
    assert result.winners == frozenset({0})


def test_E_scoring_refuses_impossible_tallies() -> None:
    with pytest.raises(ConfigurationError, match="S1"):
        score([IVY])
    with pytest.raises(ConfigurationError, match="seat 1"):
        score([IVY, (1, 0)])  # type: ignore[list-item]
    with pytest.raises(ConfigurationError, match="Tally: expected counts of 0 or more"):
        Tally(-1, 0)


def test_E_outcome_of_a_finished_game_reads_the_value_piles() -> None:
    state = position(
        players=2,
        seat=0,
        hand="AA:4 feed",
        goods="AAU",
        villages={"Knockando": ""},
        cart="Knockando",
    )
    state = play(state, "deliver AA:4 with AU")
    state = attrs.evolve(play(state, "end"), phase=Phase.GAME_OVER, current_player=None)
    result = outcome(state)
    assert result.tallies[0] == Tally(feed_used=1, goods_held=1, request_points=(4,))
    assert state.players[0].value_pile == hand("AA:4 feed")
    assert result.tallies[0].goods_held == len(goods_of("A"))


def test_E3_E4_outcome_scores_a_two_player_game_by_its_own_rules() -> None:
    # Damage 2 against 0: the sole highest (E3), but less than the two-player
    # margin of 3 (E4). The state's rules decide which applies.
    state = position(players=2, seat=0, hand="feed feed", goods="", cart="Knockando")
    players = (
        attrs.evolve(state.players[0], hand=(), value_pile=hand("feed feed")),
        attrs.evolve(state.players[1], hand=(), value_pile=()),
    )
    over = attrs.evolve(state, players=players, phase=Phase.GAME_OVER, current_player=None)
    assert over.rules.two_player_rules
    assert outcome(over).totally_damaged == frozenset()
    without = attrs.evolve(over, rules=attrs.evolve(over.rules, two_player_rules=False))
    assert outcome(without).damage == (2, 0)
    assert outcome(without).totally_damaged == frozenset({0})


def test_E5_E6_one_point_more_outweighs_every_good_the_game_has() -> None:
    # 48 goods and 48 points against no goods and 47 request points, the
    # third seat totally damaged: the most points win, whatever the goods.
    result = score([Tally(0, 48), Tally(0, 0, (47,)), Tally(60, 0)])
    assert result.points == (48, 47, 0) and result.totally_damaged == {2}
    assert result.winners == {0}
    assert Tally(0, 48).goods_held == 48
    with pytest.raises(ConfigurationError, match="at most 48 goods"):
        Tally(0, 49)
