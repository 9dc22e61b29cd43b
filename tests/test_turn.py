"""T1-T8: playing cards in a turn, ending it, the hand limit."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.helpers import cards, forged, goods_of, hand, play, position
from troedler import (
    EXTRA_GOOD,
    SPECIAL_FEED,
    ConfigurationError,
    DiscardCard,
    EndTurn,
    GameState,
    Good,
    IllegalMoveError,
    PlayExtraGood,
    PlayRequest,
    PlayRoute,
    RequestCard,
    RouteKind,
    apply_move,
    check_invariants,
    from_position_text,
    is_legal,
    legal_moves,
    parse_move,
    verify_move,
)
from troedler.core.cards import sort_hand
from troedler.core.rulebook import hand_limit_discards

# On the default board: Craigellachie -moor/bridge- Knockando -trail- Rothes,
# Craigellachie -trail- Aberlour, Knockando -ferry- Dufftown.

OWES_TWO = (
    "players=4 seed=0 shuffles=5 round=1 phase=play_turns dealer=0 to_move=0 pile=t10b11f12"
    "m12e3s27AB3CC4CU3UU4PP4VV4AAA6AAB5ABC4ACU4ACU4BBC5BCV4BPV4CVV5UUP5UPV4UPV4PPP6PPV5"
    "AAAB7ABCU6BBCC6BBVV6CCUU6CUPV6UUVV6PPPV7 piles=- discard=- villages=-/ACP/ACP/ACP/ACP/"
    "ACP/ACP/ACP/ACP/BUV/BUV/BUV/BUV/BUV/BUV/BUV/BUV seats=Aberlour:tbesAA4BB4:-:-/Dufftown"
    ":t:-:-/Tomintoul:-:-:-/Ballindalloch:-:-:- turn=-:-:2:-"
)
"""Seat 0 has ended its turn with six cards, two over the hand limit (T7)."""


def test_T1_several_cards_in_one_turn_carried_out_at_once() -> None:
    state = position(
        cart="Aberlour", hand="trail moor extra", villages={"Craigellachie": "AB", "Knockando": "C"}
    )
    state = play(state, "trail Craigellachie +A")
    assert state.players[0].cart == "Craigellachie"
    assert state.goods_in("Craigellachie") == goods_of("B")
    state = play(state, "moor Knockando")
    state = play(state, "extra +C")
    assert state.players[0].goods == goods_of("AC")
    assert state.turn.played == cards("trail moor extra")
    check_invariants(state)


def test_T1_only_the_current_player_plays() -> None:
    state = position(seat=0, hand="trail", others={1: "trail"})
    move = PlayRoute(RouteKind.MOUNTAIN_TRAIL, "Craigellachie")
    with pytest.raises(IllegalMoveError, match="R5: seat 0 is to move, not seat 1"):
        apply_move(state, move, seat=1)
    assert is_legal(state, move)


def test_T1_starting_cards_once_played_are_ordinary() -> None:
    state = position(cart="Aberlour", hand="trail ABC:4 feed")
    state = play(state, "trail Craigellachie", "end")
    assert state.discard_pile.top == cards("trail")[0]


def test_T1_not_a_move_at_all() -> None:
    state = position(hand="trail")
    for thing in (None, 3, EXTRA_GOOD, object()):
        with pytest.raises(IllegalMoveError, match="T1: .* is not a move"):
            apply_move(state, thing)  # type: ignore[arg-type]


def test_T1_text_is_not_a_move_and_the_error_says_how_to_read_it() -> None:
    state = position(hand="trail")
    for text in ("end", "take 2"):
        with pytest.raises(IllegalMoveError, match=r"T1: .* is text, not a move: .*parse_move"):
            apply_move(state, text)  # type: ignore[arg-type]
        with pytest.raises(IllegalMoveError, match="parse_move"):
            verify_move(state, text)  # type: ignore[arg-type]
    assert apply_move(state, parse_move("end", state)).current_player != state.current_player


def test_T2_route_card_moves_along_a_route_of_its_kind_and_takes_one_good() -> None:
    state = position(cart="Craigellachie", hand="moor bridge", villages={"Knockando": "VV"})
    moves = {str(m) for m in legal_moves(state) if isinstance(m, PlayRoute)}
    assert {"moor Knockando", "moor Knockando +V", "bridge Knockando +V"} <= moves
    assert not any(m.startswith("moor Aberlour") for m in moves)
    after = play(state, "moor Knockando +V")
    assert after.players[0].cart == "Knockando"
    assert after.players[0].goods == goods_of("V")
    assert after.goods_in("Knockando") == goods_of("V")
    assert after.players[0].hand == cards("bridge")


def test_T2_refusals_name_the_rule_and_the_facts() -> None:
    state = position(cart="Craigellachie", hand="moor", villages={"Knockando": "VV"})
    with pytest.raises(IllegalMoveError, match="T2: no moor leads from Craigellachie to Aberlour"):
        apply_move(state, PlayRoute(RouteKind.MOOR_PATH, "Aberlour"))
    with pytest.raises(IllegalMoveError, match="T2: seat 0 holds no ferry card"):
        apply_move(state, PlayRoute(RouteKind.FERRY, "Knockando"))
    with pytest.raises(IllegalMoveError, match="T2: Knockando holds only VV, no anvil"):
        apply_move(state, PlayRoute(RouteKind.MOOR_PATH, "Knockando", Good.ANVIL))
    with pytest.raises(IllegalMoveError, match="T2: 'Atlantis' is not a village"):
        apply_move(state, PlayRoute(RouteKind.MOOR_PATH, "Atlantis"))
    with pytest.raises(IllegalMoveError, match="T2: 'moor' is not a route kind"):
        apply_move(state, forged(PlayRoute, kind="moor", to="Knockando", take=None))


def test_T3_extra_good_anytime_also_after_delivering() -> None:
    state = position(cart="Knockando", hand="extra AA:4", goods="AA", villages={"Knockando": ""})
    assert PlayExtraGood(Good.ANVIL) not in legal_moves(state)
    with pytest.raises(IllegalMoveError, match="T3: Knockando holds no goods, no anvil"):
        play(state, "extra +A")
    state = play(state, "deliver AA:4", "extra +A")
    assert state.goods_in("Knockando") == goods_of("A")
    assert state.players[0].goods == goods_of("A")


def test_T4_deliver_only_where_the_village_holds_no_goods() -> None:
    state = position(cart="Knockando", hand="AA:4 extra", goods="AA", villages={"Knockando": "CC"})
    request = RequestCard(goods_of("AA"), 4)
    with pytest.raises(IllegalMoveError, match=r"T4: Knockando still holds 2 goods \(CC\)"):
        apply_move(state, PlayRequest(request, goods_of("AA")))
    assert not any(isinstance(m, PlayRequest) for m in legal_moves(state))


def test_T4_after_taking_the_last_good_the_village_takes_a_delivery() -> None:
    state = position(cart="Knockando", hand="AA:4 extra", goods="AA", villages={"Knockando": "C"})
    state = play(state, "extra +C")
    assert PlayRequest.exact(RequestCard(goods_of("AA"), 4)) in legal_moves(state)
    state = play(state, "deliver AA:4")
    assert state.goods_in("Knockando") == goods_of("AA")
    assert state.players[0].goods == goods_of("C")


def test_T4_exactly_the_shown_goods_from_the_players_collection() -> None:
    state = position(cart="Knockando", hand="AAB:5", goods="AB", villages={"Knockando": ""})
    request = RequestCard(goods_of("AAB"), 5)
    with pytest.raises(IllegalMoveError, match="T4: seat 0 holds AB, which does not include AAB"):
        apply_move(state, PlayRequest(request, request.goods))
    with pytest.raises(IllegalMoveError, match="T4: goods request AAB:5 takes 3 goods, not 2"):
        apply_move(state, PlayRequest(request, goods_of("AB")))
    with pytest.raises(IllegalMoveError, match="T4: seat 0 holds no AA:4 card"):
        apply_move(state, PlayRequest(RequestCard(goods_of("AA"), 4), goods_of("AA")))


def test_T4_decision_one_request_per_village_per_turn() -> None:
    state = position(
        cart="Knockando", hand="AA:4 BB:4 extra extra", goods="AABB", villages={"Knockando": ""}
    )
    state = play(state, "deliver AA:4", "extra +A", "extra +A")
    assert not state.goods_in("Knockando")
    with pytest.raises(
        IllegalMoveError, match="T4: seat 0 already fulfilled a goods request in Knockando"
    ):
        play(state, "deliver BB:4")
    assert not any(isinstance(m, PlayRequest) for m in legal_moves(state))


def test_T4_deliveries_to_several_villages_in_one_turn() -> None:
    state = position(
        cart="Knockando",
        hand="AA:4 BB:4 moor",
        goods="AABB",
        villages={"Knockando": "", "Craigellachie": ""},
    )
    state = play(state, "deliver AA:4", "moor Craigellachie", "deliver BB:4")
    assert state.turn.delivered_to == ("Knockando", "Craigellachie")
    assert len(state.players[0].goods) == 0


def test_T4_rulebook_delivery_example() -> None:
    # Extra good takes the last vase; deliver 2 anvils; moor path on; take the
    # chair there, emptying it; deliver 2 vases + 1 chair.
    state = position(
        cart="Craigellachie",
        hand="extra AA:4 moor CVV:5",
        goods="AAV",
        villages={"Craigellachie": "V", "Knockando": "C"},
    )
    state = play(state, "extra +V", "deliver AA:4", "moor Knockando +C", "deliver CVV:5")
    player = state.players[0]
    assert player.goods == goods_of("")
    assert player.hand == ()
    assert state.goods_in("Craigellachie") == goods_of("AA")
    assert state.goods_in("Knockando") == goods_of("CVV")
    state = apply_move(state, EndTurn())
    assert [str(c) for c in state.players[0].fulfilled_requests] == ["AA:4", "CVV:5"]
    check_invariants(state)


def test_T5a_special_feed_moves_along_a_route_of_any_kind() -> None:
    state = position(cart="Knockando", hand="feed", villages={"Dufftown": "P", "Rothes": "A"})
    moves = {str(m) for m in legal_moves(state)}
    assert {
        "feed Dufftown",
        "feed Dufftown +P",
        "feed Rothes +A",
        "feed Craigellachie",
        "feed Macallan",
    } <= moves
    state = play(state, "feed Dufftown +P")
    assert state.players[0].cart == "Dufftown"
    assert state.turn.played == (SPECIAL_FEED,)
    with pytest.raises(IllegalMoveError, match="T5a: seat 0 holds no feed card"):
        play(state, "feed Knockando")


def test_T5b_special_feed_takes_an_extra_good() -> None:
    state = position(cart="Knockando", hand="feed", villages={"Knockando": "PU"})
    state = play(state, "feed +U")
    assert state.goods_in("Knockando") == goods_of("P")
    assert state.players[0].goods == goods_of("U")
    with pytest.raises(IllegalMoveError, match="T5b: seat 0 holds no feed card"):
        play(state, "feed +P")


def test_T5c_special_feed_replaces_a_shown_good() -> None:
    state = position(
        cart="Knockando", hand="AAA:6 feed feed", goods="AUP", villages={"Knockando": ""}
    )
    listed = {str(m) for m in legal_moves(state) if isinstance(m, PlayRequest)}
    assert listed == {"deliver AAA:6 with AUP"}  # two replacements, two feed
    after = play(state, "deliver AAA:6 with AUP")
    assert after.players[0].hand == ()
    assert after.turn.played == cards("AAA:6 feed feed")


def test_T5c_replacement_needs_feed_in_hand_and_goods_held() -> None:
    state = position(cart="Knockando", hand="AAA:6 feed", goods="AUP", villages={"Knockando": ""})
    request = RequestCard(goods_of("AAA"), 6)
    with pytest.raises(
        IllegalMoveError,
        match="T5c: delivering AUP for AAA:6 replaces 2 goods and needs 2 special feed; "
        "seat 0 holds 1",
    ):
        apply_move(state, PlayRequest(request, goods_of("AUP")))
    with pytest.raises(IllegalMoveError, match="T4: seat 0 holds AUP, which does not include AAP"):
        apply_move(state, PlayRequest(request, goods_of("AAP")))
    assert not any(isinstance(m, PlayRequest) for m in legal_moves(state))


def test_T5c_decision_delivery_is_the_goods_put_down() -> None:
    # A substitute may be of a type the card shows elsewhere: AAB delivered as ABB.
    state = position(
        cart="Knockando", hand="AAB:5 feed feed", goods="ABB", villages={"Knockando": ""}
    )
    move = parse_move("deliver AAB:5 with ABB", state)
    assert isinstance(move, PlayRequest) and move.feed_cost == 1
    after = apply_move(state, move)
    assert after.players[0].hand == (SPECIAL_FEED,)


def test_T5_rulebook_special_feed_example() -> None:
    # No bridge card: cross the bridge with feed, take a good; feed again for the
    # second good; feed a third time to replace an anvil by a pot for "3 anvils".
    state = position(
        cart="Craigellachie",
        hand="feed feed feed AAA:6 trail",
        goods="A",
        villages={"Knockando": "AP"},
    )
    state = play(state, "feed Knockando +A", "feed +P")
    assert not state.goods_in("Knockando")
    assert state.players[0].goods == goods_of("AAP")
    state = play(state, "deliver AAA:6 with AAP")
    assert state.goods_in("Knockando") == goods_of("AAP")
    state = apply_move(state, EndTurn())
    player = state.players[0]
    assert player.hand == cards("trail")
    assert player.feed_used == 3
    assert [str(c) for c in player.fulfilled_requests] == ["AAA:6"]


def test_T6_played_cards_are_put_away_when_the_turn_ends() -> None:
    state = position(
        cart="Knockando",
        hand="moor extra feed AA:4",
        goods="AA",
        villages={"Knockando": "", "Craigellachie": "B"},
    )
    discard_before = state.discard_pile.cards
    state = play(state, "deliver AA:4", "moor Craigellachie +B", "feed Knockando", "extra +A")
    state = apply_move(state, EndTurn())
    assert state.discard_pile.cards == discard_before + cards("moor extra")
    assert state.players[0].value_pile == hand("AA:4 feed")
    assert state.turn.played == ()


@pytest.mark.parametrize(
    ("held", "discard", "kept", "to_value"),
    [
        ("trail bridge extra AA:4", "", "trail bridge extra AA:4", 0),
        ("trail bridge extra AA:4 BB:4 feed", "trail AA:4", "bridge extra BB:4 feed", 0),
        ("trail bridge extra AA:4 BB:4 feed", "extra BB:4", "trail bridge AA:4 feed", 0),
        ("trail feed feed feed feed", "trail", "feed feed feed feed", 0),
        ("trail extra feed feed feed feed feed feed", "trail extra", "feed feed feed feed", 2),
    ],
)
def test_T7_hand_limit(held: str, discard: str, kept: str, to_value: int) -> None:
    state = position(hand=held, others={1: "trail"})
    after = apply_move(state, EndTurn())
    for card in cards(discard):
        if after.turn.discards_due:
            after = apply_move(after, DiscardCard(card))
    assert after.current_player == 1, "the turn is over once the hand is at the limit"
    assert after.players[0].hand == hand(kept)
    assert after.players[0].feed_used == to_value
    assert after.discard_pile.cards[-len(cards(discard)) or len(after.discard_pile) :] == hand(
        discard
    )
    check_invariants(after)


def test_T7_the_same_player_discards_after_ending_the_turn() -> None:
    state = position(hand="trail bridge extra AA:4 BB:4 feed", others={1: "trail"})
    after = apply_move(state, EndTurn())
    assert after == from_position_text(OWES_TWO)
    assert after.current_player == 0
    assert after.turn.discards_due == 2
    assert after.turn.played == ()
    assert [str(move) for move in legal_moves(after)] == [
        "discard trail",
        "discard bridge",
        "discard extra",
        "discard AA:4",
    ]
    with pytest.raises(IllegalMoveError, match="T7: seat 0 has ended the turn and discards 2 more"):
        apply_move(after, EndTurn())
    once = apply_move(after, DiscardCard(EXTRA_GOOD))
    assert once.current_player == 0
    assert once.turn.discards_due == 1
    assert once.turn.last_discard == EXTRA_GOOD
    assert once.discard_pile.top == EXTRA_GOOD


def test_T7_a_hand_of_4_or_fewer_discards_nothing() -> None:
    for held in ("", "trail", "trail bridge extra AA:4", "feed feed feed feed"):
        state = position(hand=held, others={1: "trail"})
        after = apply_move(state, EndTurn())
        assert after.current_player == 1
        assert after.players[0].hand == hand(held)
        assert not any(isinstance(m, DiscardCard) for m in legal_moves(state))


def test_T7_special_feed_is_never_discarded() -> None:
    state = apply_move(
        position(hand="trail bridge feed feed feed feed", others={1: "trail"}), EndTurn()
    )
    # Four feed stay: every other card must go, and goes without a decision.
    assert state.current_player == 1
    assert state.players[0].hand == hand("feed feed feed feed")
    state = apply_move(
        position(hand="trail bridge extra feed feed feed", others={1: "trail"}), EndTurn()
    )
    assert state.turn.discards_due == 2
    assert DiscardCard(SPECIAL_FEED) not in legal_moves(state)
    with pytest.raises(IllegalMoveError, match="T7: special feed is never discarded"):
        apply_move(state, DiscardCard(SPECIAL_FEED))


def test_T7_a_forced_discard_needs_no_decision() -> None:
    # All the cards that could go are alike: nothing to decide.
    state = apply_move(
        position(hand="ferry ferry ferry feed feed feed", others={1: "trail"}), EndTurn()
    )
    assert state.current_player == 1
    assert state.players[0].hand == hand("ferry feed feed feed")
    # A discard that leaves only one way on makes that one at once, too.
    state = apply_move(
        position(hand="trail bridge ferry moor extra", others={1: "trail"}), EndTurn()
    )
    state = apply_move(state, DiscardCard(cards("moor")[0]))
    assert state.current_player == 1


def test_T7_discards_go_in_hand_order() -> None:
    state = from_position_text(OWES_TWO)
    after_extra = apply_move(state, DiscardCard(EXTRA_GOOD))
    assert [str(m) for m in legal_moves(after_extra)] == ["discard AA:4", "discard BB:4"]
    with pytest.raises(
        IllegalMoveError, match="T7: discards go in hand order: trail comes before extra"
    ):
        apply_move(after_extra, DiscardCard(cards("trail")[0]))
    # Discarding BB:4 first would leave nothing after it for the second discard.
    with pytest.raises(IllegalMoveError, match="T7: after BB:4 too few cards remain for the 2"):
        apply_move(state, DiscardCard(cards("BB:4")[0]))
    with pytest.raises(IllegalMoveError, match="T7: seat 0 holds no ferry card"):
        apply_move(state, DiscardCard(cards("ferry")[0]))


def test_T7_no_discard_outside_the_hand_limit() -> None:
    state = position(hand="trail bridge extra AA:4 BB:4 feed")
    with pytest.raises(IllegalMoveError, match="T7: no discard is due"):
        apply_move(state, DiscardCard(EXTRA_GOOD))
    with pytest.raises(ConfigurationError, match="DiscardCard.card must be a card, not 'trail'"):
        DiscardCard("trail")  # type: ignore[arg-type]


def _finishes(state: GameState) -> list[GameState]:
    """The end of the turn on every path of discards from ``state``."""
    if not state.turn.discards_due:
        return [state]
    moves = legal_moves(state)
    assert len(moves) == len(set(moves)), "equal cards are one move"
    assert all(isinstance(move, DiscardCard) for move in moves)
    assert len(moves) > 1, "a discard that leaves no choice is made at once"
    ends = []
    for move in moves:
        assert is_legal(state, move)
        ends.extend(_finishes(apply_move(state, move)))
    return ends


# How many of each card a hand may hold without running out of the deck.
_MOST_IN_HAND = {"trail": 3, "bridge": 3, "ferry": 3, "extra": 2, "feed": 5, "ACU:4": 2, "BB:4": 1}


@settings(max_examples=150, deadline=None)
@given(
    # At most 8 cards: the hand limit and one dealer pile (R4, T7).
    st.tuples(*(st.integers(0, most) for most in _MOST_IN_HAND.values())).filter(
        lambda counts: sum(counts) <= 8
    )
)
def test_T7_every_choice_of_discards_reachable_once(counts: tuple[int, ...]) -> None:
    words = [word for word, n in zip(_MOST_IN_HAND, counts, strict=True) for _ in range(n)]
    # Hands full of equal cards: each distinct choice of discards is one path.
    state = position(hand=" ".join(words), others={1: "trail"})
    held = state.players[0].hand
    required, overflow = hand_limit_discards(held, 4)
    discardable = [card for card in held if card != SPECIAL_FEED]
    expected = set(itertools.combinations(discardable, required))
    chosen = []
    for end in _finishes(apply_move(state, EndTurn())):
        assert end.current_player == 1
        kept = end.players[0].hand
        assert len(kept) == min(len(held), 4)
        assert kept.count(SPECIAL_FEED) == held.count(SPECIAL_FEED) - overflow
        discarded = end.discard_pile.cards[len(state.discard_pile) :]
        assert sort_hand(kept + discarded + (SPECIAL_FEED,) * overflow) == held
        chosen.append(sort_hand(discarded))
    assert len(chosen) == len(set(chosen)), "each final choice has exactly one path"
    assert set(chosen) == expected


def test_T8_unplayed_cards_stay_in_hand_for_later_rounds() -> None:
    state = position(players=2, seat=0, hand="ferry AB:3")
    state = play(state, "end")
    assert state.players[0].hand == cards("ferry AB:3")
    state = play(state, "end")  # seat 1 ends round 1
    assert state.round == 2
    assert state.players[0].hand == cards("ferry AB:3")
