"""S1-S6: setting up a game."""

from __future__ import annotations

from collections import Counter

import pytest

from troedler import (
    SPECIAL_FEED,
    ConfigurationError,
    Phase,
    RequestCard,
    Rules,
    check_invariants,
    default_board,
    default_cards,
    new_game,
)
from troedler.core.invariants import cards_in_state


@pytest.mark.parametrize("players", [2, 3, 4])
def test_S1_two_to_four_players(players: int) -> None:
    state = new_game(players, seed=3)
    assert state.num_players == players
    assert state.rules == Rules.for_players(players)
    check_invariants(state)


@pytest.mark.parametrize("players", [0, 1, 5, "4", 4.0])
def test_S1_other_player_counts_are_refused(players: object) -> None:
    with pytest.raises(ConfigurationError, match="S1"):
        new_game(players, seed=3)  # type: ignore[arg-type]


def test_S1_rules_for_another_player_count_are_refused() -> None:
    with pytest.raises(ConfigurationError, match="S1"):
        new_game(3, seed=3, rules=Rules.for_players(4))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_S2_carts_on_start_villages_and_starting_cards_in_hand(players: int) -> None:
    state = new_game(players, seed=5)
    board, catalogue = default_board(), default_cards()
    for seat, player in enumerate(state.players):
        village = board.start_village(seat, players)
        assert player.cart == village
        starting = Counter(catalogue.starting_set(village).cards)
        # After taking no pile yet, the hand is exactly the starting set.
        assert Counter(player.hand) == starting
        assert len(player.goods) == 0 and player.value_pile == ()
    used = {board.start_village(seat, players) for seat in range(players)}
    unused = [s for s in catalogue.starting_sets if s.village not in used]
    assert sum(cards_in_state(state).values()) == catalogue.size - 3 * len(unused)


def test_S3_starting_dealer_is_a_parameter() -> None:
    for dealer in range(4):
        state = new_game(4, seed=1, starting_dealer=dealer)
        assert state.dealer == dealer
        assert state.current_player == (dealer + 1) % 4  # the dealer's left neighbour takes first
    with pytest.raises(ConfigurationError, match="S3"):
        new_game(4, seed=1, starting_dealer=4)
    with pytest.raises(ConfigurationError, match="S3"):
        new_game(2, seed=1, starting_dealer=-1)


def test_S4_numbered_villages_get_their_number_of_random_goods() -> None:
    board = default_board()
    deals = set()
    for seed in range(5):
        state = new_game(4, seed=seed)
        for village, goods in zip(board.villages, state.village_goods, strict=True):
            assert len(goods) == village.number
        deals.add(state.village_goods)
    assert len(deals) == 5  # the kinds of goods dealt depend on the seed


@pytest.mark.parametrize(("players", "each"), [(2, 7), (3, 9), (4, 9)])
def test_S5_setup_discard_pile_of_requests_and_feed(players: int, each: int) -> None:
    state = new_game(players, seed=8)
    # Round 1's piles come from the game-round pile, so the set-up discard pile is untouched.
    discard = Counter(type(card).__name__ for card in state.discard_pile.cards)
    assert discard == {"RequestCard": each, "SpecialFeedCard": each}
    requests = [card for card in state.discard_pile.cards if isinstance(card, RequestCard)]
    assert Counter(requests) <= Counter(default_cards().requests)
    orders = {new_game(players, seed=s).discard_pile.cards for s in range(6)}
    assert len(orders) == 6  # shuffled: which requests, in which order, depends on the seed


@pytest.mark.parametrize(("players", "size"), [(2, 84), (3, 80), (4, 80)])
def test_S6_game_round_pile_holds_the_other_cards(players: int, size: int) -> None:
    state = new_game(players, seed=2)
    laid = sum(len(pile or ()) for pile in state.dealer_piles)
    assert len(state.game_round_pile) + laid == size
    assert state.phase is Phase.TAKE_PILES
    starting = Counter[object]()
    for player in state.players:
        starting.update(player.hand)
    feed_in_deck = list(state.game_round_pile).count(SPECIAL_FEED) + sum(
        list(pile or ()).count(SPECIAL_FEED) for pile in state.dealer_piles
    )
    setup_feed = 7 if players == 2 else 9
    assert feed_in_deck == 24 - setup_feed
