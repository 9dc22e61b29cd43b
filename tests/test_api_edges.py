"""Misuse at the edges of the API gets a TroedlerError that says what is wrong."""

from __future__ import annotations

import json

import pytest

from tests.helpers import forged, position
from troedler import (
    DiscardCard,
    DiscardPile,
    EndTurn,
    GameState,
    Goods,
    PlayFeedMove,
    PlayRequest,
    PlayRoute,
    RequestCard,
    RouteKind,
    Rules,
    TakePile,
    apply_move,
    legal_moves,
    new_game,
    observe,
    outcome,
    parse_move,
    svg,
    verify_move,
)
from troedler.bots import RandomBot, play_game
from troedler.core import actions
from troedler.core.errors import ConfigurationError, NotationError, TroedlerError
from troedler.core.scoring import Tally, score, tally
from troedler.simulation import tournament
from troedler.simulation.summary import wilson_interval


def test_goods_in_a_village_the_board_lacks_is_refused_by_name() -> None:
    state = new_game(2, seed=1)
    with pytest.raises(ConfigurationError, match="no village called 'Nowhere'"):
        state.goods_in("Nowhere")
    village = state.board.villages[0].name
    assert state.goods_in(village) == state.village_goods[0]


def test_a_delivery_of_a_request_no_card_shows_is_not_a_move() -> None:
    state = new_game(2, seed=1)
    with pytest.raises(NotationError, match="no goods request 'AAA:0' among this game's cards"):
        parse_move("deliver AAA:0", state)
    real = state.cards.requests[0]
    assert parse_move(f"deliver {real}", state).request == real


@pytest.mark.parametrize(
    ("fields", "named"),
    [
        ({"feed_used": -1, "goods_held": 0}, "feed_used"),
        ({"feed_used": 0, "goods_held": -2}, "goods_held"),
        ({"feed_used": 0, "goods_held": 0, "request_points": (5, -1)}, "request_points"),
        ({"feed_used": 1.5, "goods_held": 0}, "feed_used"),
        ({"feed_used": 0, "goods_held": 0, "request_points": [5]}, "request_points"),
        ({"feed_used": 0, "goods_held": 0, "request_points": ("x",)}, "request_points"),
        ({"feed_used": 0, "goods_held": 0, "request_points": (5, 2.0)}, "request_points"),
        ({"feed_used": 0, "goods_held": 0, "request_points": (True,)}, "request_points"),
        ({"feed_used": True, "goods_held": 0}, "feed_used"),
    ],
)
def test_a_tally_of_negative_counts_is_refused(fields: dict[str, object], named: str) -> None:
    with pytest.raises(ConfigurationError, match=f"Tally: expected .*{named}"):
        Tally(**fields)  # type: ignore[arg-type]


def test_a_valid_tally_still_scores() -> None:
    result = score([Tally(0, 0), Tally(4, 5, (7, 6))])
    assert result.points == (0, 18)
    # A request worth 0 points is a request still (E5): no tally refuses it.
    assert score([Tally(0, 0, (0,)), Tally(0, 0, (0, 3))]).points == (0, 3)


def test_E5_the_tally_of_a_seat_past_the_table_is_refused_by_name() -> None:
    state = position(players=2, seat=0, hand="feed", goods="", cart="Knockando")
    for seat in (2, -1, True):
        with pytest.raises(ConfigurationError, match="seat must be 0 to 1"):
            tally(state, seat)  # type: ignore[arg-type]


def test_tournament_refuses_zero_workers_as_the_command_line_does() -> None:
    with pytest.raises(ConfigurationError, match="workers must be a whole number of at least 1"):
        tournament(["random", "greedy"], games=1, workers=0)


def test_play_game_refuses_a_cap_of_no_rounds() -> None:
    with pytest.raises(ConfigurationError, match="max_rounds must be a whole number"):
        play_game([RandomBot(), RandomBot()], seed=1, max_rounds=0)


def test_play_game_given_bot_names_says_it_wants_bot_objects() -> None:
    with pytest.raises(TroedlerError, match="play_game takes bot objects.*make_bot"):
        play_game(["random", "greedy"], seed=1)  # type: ignore[list-item]


def test_interval_bounds_at_no_wins_and_all_wins_are_exact() -> None:
    assert wilson_interval(0, 3) is not None and wilson_interval(0, 3)[0] == 0.0  # type: ignore[index]
    assert wilson_interval(3, 3)[1] == 1.0  # type: ignore[index]
    summary = tournament(["greedy", "random"], games=2, seed=1)
    text = json.dumps(summary.to_dict())
    assert "e-1" not in text and "e-2" not in text


@pytest.mark.parametrize(
    ("names", "message"),
    [
        ([1, 2], r"names\[0\] must be text, not 1"),
        (["Ada", None], r"names\[1\] must be text, not None"),
        ("ab", "names must be a sequence of 2 seat names, not 'ab'"),
        (7, "names must be a sequence of 2 seat names, not 7"),
        (["Ada", "Bo", "Cy", "Di"], "names: 2 seat names needed, got 4"),
    ],
)
def test_a_board_picture_refuses_seat_names_that_are_not_one_text_a_seat(
    names: object, message: str
) -> None:
    with pytest.raises(ConfigurationError, match=message):
        svg.board(new_game(2, seed=1), names=names)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "size", ["abc", -5, 0, 2.5, True, 10**6, pytest.param(10**5000, id="huge")]
)
def test_a_board_picture_refuses_a_size_that_is_not_a_width_in_pixels(size: object) -> None:
    with pytest.raises(ConfigurationError, match="size must be a whole number of pixels"):
        svg.board(new_game(2, seed=1), size=size)  # type: ignore[arg-type]


def test_a_board_picture_of_a_good_size_and_names_is_drawn_that_wide() -> None:
    picture = svg.board(new_game(2, seed=1), size=640, names=("Ada", "Bo"))
    assert picture.startswith("<svg") and 'width="640"' in picture
    assert "Ada" in picture and "Bo" in picture


def _misuse_cases() -> list[tuple[object, str]]:
    state = position(players=2, seat=0, hand="trail feed", goods="", cart="Knockando")
    return [
        (lambda: score("junk"), r"score needs a sequence of tallies, not 'junk'"),
        (lambda: score([Tally(0, 0), "junk"]), r"tally of seat 1 must be a Tally, got 'junk'"),
        (lambda: score([Tally(0, 0)] * 3, two_player_rules=True), r"^E4: two-player scoring"),
        (lambda: tally("junk", 0), r"tally needs a GameState, not 'junk'"),
        (lambda: tally(state, 7), r"seat must be 0 to 1, not 7"),
        (lambda: outcome("junk"), r"outcome needs a GameState, not 'junk'"),
        (lambda: Tally(-1, 3, (2,)), r"feed_used -1, goods_held 3\) .*request_points \(2,\)"),
        (lambda: legal_moves("junk"), r"expected a GameState, got 'junk'"),
        (lambda: apply_move(state, "end"), r"^T1: 'end' is text, not a move"),
        (lambda: apply_move(state, 7), r"^T1: 7 is not a move"),
        (lambda: verify_move(state, "end"), r"^T1: 'end' is text, not a move"),
        (lambda: actions.verify_game_on("junk"), r"expected a GameState, got 'junk'"),
        (lambda: Rules.for_players(5), r"^S1: 2, 3 or 4 players, not 5$"),
        (lambda: Rules.for_players(3, two_player_rules=True), r"^R4: .* need 2 players, not 3$"),
        (lambda: Rules.for_players(2, zany=1, bogus=2), r"^unknown rules option 'bogus'$"),
        (
            lambda: Rules.for_players(2, reshuffle_mid_forming="x"),
            r"^rules.reshuffle_mid_forming must be True or False, not 'x'$",
        ),
        (
            lambda: Rules.for_players(2, hand_limit="4"),
            r"^rules.hand_limit must be 0 to 20, not '4'$",
        ),
        (
            lambda: apply_move(new_game(3, seed=1), TakePile(9)),
            r"^R4: .* pile 9; piles are 0 to 3$",
        ),
        (
            lambda: apply_move(new_game(2, seed=1), TakePile(0)),
            r"first discards one of the 3 piles$",
        ),
        (
            lambda: apply_move(_piles_gone(), TakePile(1)),
            r"^R4: dealer pile 1 was taken or discarded",
        ),
        (
            lambda: apply_move(_owes_discards(), forged(DiscardCard, card="trail")),
            r"^T7: 'trail' is not a card$",
        ),
        (
            lambda: apply_move(state, forged(PlayRequest, request="AA:4", delivered=Goods())),
            r"^T4: 'AA:4' is not a goods request$",
        ),
        (
            lambda: apply_move(state, forged(PlayRequest, request=_REQUEST, delivered="AA")),
            r"^T4: 'AA' is not goods to deliver$",
        ),
        (
            lambda: apply_move(_owes_discards(), forged(DiscardCard, card=_LookAlike())),
            r"^T7: fake is not a card$",
        ),
        (
            lambda: apply_move(state, PlayRoute(RouteKind.MOUNTAIN_TRAIL, "Tomintoul")),
            r"^T2: no trail leads",
        ),
        (lambda: apply_move(state, PlayFeedMove("Tomintoul")), r"^T5a: no route leads from "),
        (
            lambda: actions.verify_take_pile(new_game(3, seed=1), EndTurn()),  # type: ignore[arg-type]
            r"^expected a TakePile, got EndTurn\(\)$",
        ),
    ]


_REQUEST = RequestCard(Goods.parse("AA"), 4)


class _LookAlike:
    """Not a card, though it has a card's sort key."""

    sort_key = 0

    def __repr__(self) -> str:
        return "fake"


def _piles_gone() -> GameState:
    """Two players: the dealer discarded pile 0 and the next seat took pile 1 (R4)."""
    return apply_move(apply_move(new_game(2, seed=1), DiscardPile(0)), TakePile(1))


def _owes_discards() -> GameState:
    """Seat 0 ended a turn with six cards, two over the hand limit (T7)."""
    return apply_move(position(hand="trail bridge extra AA:4 BB:4 feed"), EndTurn())


@pytest.mark.parametrize("case", range(len(_misuse_cases())))
def test_misuse_names_the_rule_or_field_and_quotes_what_it_got(case: int) -> None:
    call, message = _misuse_cases()[case]
    with pytest.raises(TroedlerError, match=message):
        call()  # type: ignore[operator]


@pytest.mark.parametrize(
    ("option", "low", "high"),
    [("hand_limit", 0, 20), ("end_threshold", 1, 30), ("setup_requests", 0, 26)],
)
def test_a_rules_option_takes_each_value_of_its_range_and_no_other(
    option: str, low: int, high: int
) -> None:
    for value in (low, high):
        assert getattr(Rules.for_players(2, **{option: value}), option) == value
    for value in (low - 1, high + 1):
        with pytest.raises(ConfigurationError, match=f"rules.{option} must be {low} to {high}"):
            Rules.for_players(2, **{option: value})


def test_I3_a_seats_view_tallies_only_the_value_piles_it_knows() -> None:
    state = position(players=2, seat=0, hand="feed", goods="AU", cart="Knockando")
    seen = observe(state, 0, recall="table")
    assert tally(seen, 0) == tally(state, 0) == Tally(0, 2)
    assert not seen.knows_hand(1)
    with pytest.raises(
        ConfigurationError, match=r"the value pile of seat 1 is not known here \(I3\)"
    ):
        tally(seen, 1)
