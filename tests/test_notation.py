"""Move notation: str(move) and parse_move are inverses; bad text is refused."""

from __future__ import annotations

import pytest

from tests.helpers import cards, goods_of
from troedler import (
    DiscardCard,
    DiscardPile,
    EndTurn,
    Good,
    NotationError,
    PlayExtraGood,
    PlayFeedExtraGood,
    PlayFeedMove,
    PlayRequest,
    PlayRoute,
    RequestCard,
    RouteKind,
    TakePile,
    new_game,
    parse_move,
)

STATE = new_game(4, seed=1)
AAA6 = RequestCard(goods_of("AAA"), 6)

EXAMPLES = [
    ("take 2", TakePile(2)),
    ("discard 0", DiscardPile(0)),
    ("bridge Knockando +V", PlayRoute(RouteKind.BRIDGE, "Knockando", Good.VASE)),
    ("trail Aberlour", PlayRoute(RouteKind.MOUNTAIN_TRAIL, "Aberlour")),
    ("moor Rothes +U", PlayRoute(RouteKind.MOOR_PATH, "Rothes", Good.CUP)),
    ("feed Macallan", PlayFeedMove("Macallan")),
    ("feed Macallan +P", PlayFeedMove("Macallan", Good.POT)),
    ("extra +A", PlayExtraGood(Good.ANVIL)),
    ("feed +C", PlayFeedExtraGood(Good.CHAIR)),
    ("deliver AAA:6", PlayRequest(AAA6, goods_of("AAA"))),
    ("deliver AAA:6 with AAP", PlayRequest(AAA6, goods_of("AAP"))),
    ("end", EndTurn()),
    ("discard ferry", DiscardCard(cards("ferry")[0])),
    ("discard extra", DiscardCard(cards("extra")[0])),
    ("discard AB:3", DiscardCard(cards("AB:3")[0])),
]


@pytest.mark.parametrize(("text", "move"), EXAMPLES)
def test_notation_examples_round_trip(text: str, move: object) -> None:
    assert parse_move(text, STATE) == move
    assert str(move) == text


def test_notation_is_forgiving_about_case_and_spaces() -> None:
    assert parse_move("  BRIDGE   knockando  +v ", STATE) == PlayRoute(
        RouteKind.BRIDGE, "Knockando", Good.VASE
    )
    assert parse_move("Deliver aaa:6 WITH aap", STATE) == PlayRequest(AAA6, goods_of("AAP"))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", "expected a move such as"),
        ("jump Knockando", "expected a move such as"),
        ("take", "expected 'take N'"),
        ("take two", "expected 'take N'"),
        ("bridge Atlantis", "expected a village of the board"),
        ("bridge Knockando V", r"expected one good to take, like \+V"),
        ("bridge Knockando +X", "expected a good"),
        ("extra", "expected one good to take"),
        ("deliver", "expected 'deliver AAB:5'"),
        ("deliver AAA:6 using AAP", "expected 'deliver AAB:5'"),
        ("deliver bridge", "expected a goods request"),
        ("end now", "expected 'end' alone"),
        ("end discard ferry", "discarded one at a time afterwards, as 'discard CARD'"),
        ("discard wagon", "expected a card"),
        ("discard", "expected 'discard N' with a pile number or a card"),
        ("deliver AAAAAAAAAAAAAAAAA:5", "at most 16 of a kind"),
        ("take 1" * 100, "at most 200 characters"),
    ],
)
def test_text_that_is_not_a_move_says_what_was_expected(text: str, expected: str) -> None:
    with pytest.raises(NotationError, match=expected) as info:
        parse_move(text, STATE)
    assert isinstance(info.value, ValueError)


def test_not_text_at_all() -> None:
    with pytest.raises(NotationError, match="expected move text"):
        parse_move(b"end", STATE)  # type: ignore[arg-type]
