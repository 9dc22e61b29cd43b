"""The board picture: troedler.svg draws what a position holds, and an
observation's picture holds nothing its seat does not know (I1-I3)."""

from __future__ import annotations

import functools
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import pytest

import troedler.svg
from troedler import (
    UNKNOWN,
    FormatError,
    GameRecord,
    GameState,
    PlayRequest,
    PlayRoute,
    default_board,
    default_cards,
    load_board,
    new_game,
    observe,
    parse_move,
    replay,
    state_from_json,
    state_to_json,
)
from troedler.bots import GreedyBot, RandomBot, play_game
from troedler.io.state_json import fingerprint
from troedler.svg.layout import SPACING_X, SPACING_Y, layout, overlapping

DATA = Path(troedler.svg.__file__).parent.parent / "data"
SVG = "{http://www.w3.org/2000/svg}"


def _tree(text: str) -> ET.Element:
    return ET.fromstring(text)  # noqa: S314 (text the test itself drew)


def _classed(root: ET.Element, word: str) -> list[ET.Element]:
    return [e for e in root.iter() if word in e.get("class", "").split()]


@functools.cache
def _game() -> tuple[GameRecord, tuple[GameState, ...]]:
    played = play_game([GreedyBot(), RandomBot(), GreedyBot(), RandomBot()], seed=3, max_rounds=6)
    return played.record, replay(played.record)


def _first(kind: type) -> int:
    """The index of the first move of ``kind`` in the sample game."""
    record, states = _game()
    for i, text in enumerate(record.moves):
        if isinstance(parse_move(text, states[i]), kind):
            return i
    raise AssertionError(f"no {kind.__name__} in the sample game")


def _unpositioned_board_file(tmp_path: Path) -> Path:
    text = (DATA / "board.toml").read_text()
    path = tmp_path / "plain.toml"
    path.write_text(re.sub(r"(?m)^position = .*\n", "", text))
    return path


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_picture_is_xml_with_one_element_per_village_route_and_cart(players: int) -> None:
    state = new_game(players, seed=5)
    root = _tree(troedler.svg.board(state, size=900))
    assert root.tag == f"{SVG}svg" and root.get("width") == "900"
    board = state.board
    villages = _classed(root, "village")
    assert sorted(v.get("data-village") for v in villages) == sorted(v.name for v in board.villages)
    starts = [v.get("data-village") for v in _classed(root, "start")]
    assert sorted(starts) == sorted(board.start_villages)
    routes = _classed(root, "route")
    assert sorted(int(r.get("data-route", "")) for r in routes) == list(range(len(board.routes)))
    for route in routes:
        kind = board.routes[int(route.get("data-route", ""))].kind.code
        assert kind in route.get("class", "").split()
    carts = _classed(root, "cart")
    assert [(c.get("data-seat"), c.get("data-village")) for c in carts] == [
        (str(seat), player.cart) for seat, player in enumerate(state.players)
    ]
    for village in villages:
        name = village.get("data-village", "")
        goods = "".join(g.get("data-good", "") for g in _classed(village, "good"))
        assert goods == str(state.goods_in(name)).strip("-")


def test_the_four_route_kinds_differ_in_colour_and_in_line_style() -> None:
    styles = list(troedler.svg.ROUTE_STYLES.values())
    assert len({s.colour for s in styles}) == 4
    assert len({(s.dash, s.rails) for s in styles}) == 4


def test_parallel_routes_are_drawn_side_by_side() -> None:
    root = _tree(troedler.svg.board(new_game(4, seed=1)))
    lines: dict[str, list[tuple[str | None, ...]]] = {}
    for route in _classed(root, "route"):
        line = route.find(f"{SVG}line")
        assert line is not None
        ends = route.get("data-ends", "")
        lines.setdefault(" ".join(sorted(ends.split())), []).append(
            tuple(line.get(k) for k in ("x1", "y1", "x2", "y2"))
        )
    doubled = [drawn for drawn in lines.values() if len(drawn) > 1]
    assert doubled, "the default board joins some villages twice"
    for drawn in doubled:
        assert len(set(drawn)) == len(drawn)


def test_the_picture_follows_the_position() -> None:
    record, states = _game()
    i = _first(PlayRoute)
    move = parse_move(record.moves[i], states[i])
    assert isinstance(move, PlayRoute) and move.take is not None
    seat = states[i].current_player
    before = _tree(troedler.svg.board(states[i]))
    after_text = troedler.svg.board(states[i + 1], last_move=move, before=states[i])
    after = _tree(after_text)

    def cart(root: ET.Element) -> str | None:
        return next(c.get("data-village") for c in _classed(root, "cart")
                    if c.get("data-seat") == str(seat))  # fmt: skip

    def goods_in(root: ET.Element, village: str) -> Counter[str]:
        box = next(v for v in _classed(root, "village") if v.get("data-village") == village)
        return Counter(g.get("data-good") for g in _classed(box, "good"))

    assert cart(before) == states[i].players[seat].cart and cart(after) == move.to
    taken = move.take.code
    assert goods_in(before, move.to) - goods_in(after, move.to) == Counter({taken: 1})
    # The last move is marked: the route taken, the village and the good taken.
    marked = _classed(after, "last-move")
    taken_routes = [e.get("data-route") for e in _classed(after, "route-taken")]
    assert len(taken_routes) == 1
    route = next(e for e in _classed(after, "route") if e.get("data-route") == taken_routes[0])
    assert move.kind.code in route.get("class", "").split()
    assert {states[i].players[seat].cart, move.to} == set(route.get("data-ends", "").split())
    assert [e.get("data-village") for e in marked if "village" in e.get("class", "")] == [move.to]
    assert [e.get("data-good") for e in _classed(after, "taken")] == [taken]
    assert str(move) in after_text


def test_a_delivery_is_marked_in_its_village() -> None:
    record, states = _game()
    i = _first(PlayRequest)
    move = parse_move(record.moves[i], states[i])
    assert isinstance(move, PlayRequest)
    root = _tree(troedler.svg.board(states[i + 1], last_move=move, before=states[i]))
    village = states[i].players[states[i].current_player or 0].cart
    marked = [e for e in _classed(root, "village") if "last-move" in e.get("class", "")]
    assert [e.get("data-village") for e in marked] == [village]
    delivered = Counter(e.get("data-good") for e in _classed(root, "delivered"))
    assert delivered == Counter(good.code for good in move.delivered)


def _cards_drawn(text: str) -> Counter[str]:
    return Counter(
        e.get("data-card", "") for e in _classed(_tree(text), "card") if e.get("data-card")
    )


@pytest.mark.parametrize("recall", ["table", "perfect"])
def test_I3_an_observation_draws_no_card_its_seat_does_not_know(recall: str) -> None:
    _, states = _game()
    state = next(s for s in states if s.round == 3 and s.dealer_piles)
    seen = observe(state, 0, recall=recall)  # type: ignore[arg-type]
    known: Counter[str] = Counter()
    for player in seen.players:
        known.update(str(card) for card in player.hand if card is not UNKNOWN)
    for pile in seen.dealer_piles:
        known.update(str(card) for card in pile or () if card is not UNKNOWN)
    known.update(str(card) for card in seen.turn.played)
    known.update(str(card) for card in seen.discard_pile.cards[-1:] if card is not UNKNOWN)
    drawn = _cards_drawn(troedler.svg.board(seen))
    assert drawn - known == Counter(), "cards the seat does not know were drawn"
    everything = _cards_drawn(troedler.svg.board(state))
    if recall == "table":
        text = troedler.svg.board(seen)
        assert everything - drawn, "the whole state shows hands and piles the seat cannot see"
        for seat in (1, 2, 3):
            assert f"{len(seen.players[seat].hand)} cards, not known" in text
            for card in state.players[seat].hand:
                if str(card) not in known:
                    assert str(card) not in text


def test_the_map_alone_leaves_the_panel_out() -> None:
    state = new_game(3, seed=4)
    alone = troedler.svg.board(state, panel=False)
    whole = troedler.svg.board(state)
    assert "game-round-pile" not in alone and "game-round-pile" in whole
    assert alone.count('class="village') == whole.count('class="village') == 17


def test_seat_names_are_text_whatever_they_hold() -> None:
    names = ["<script>alert(1)</script>", "A & B", '"quoted"', "ünïcode"]
    text = troedler.svg.board(new_game(4, seed=1), names=names)
    root = _tree(text)
    assert "<script>" not in text
    shown = {"".join(t.itertext()) for t in root.iter(f"{SVG}text")}
    assert any(t.startswith("<script>alert") for t in shown)
    assert any(t.endswith("A & B") for t in shown)


def test_the_core_does_not_import_the_pictures() -> None:
    code = (
        "import sys, troedler; troedler.new_game(2, seed=1); print('troedler.svg' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


# --- layout -----------------------------------------------------------------------


def test_C4_positions_are_not_rules_the_fingerprint_ignores_them(tmp_path: Path) -> None:
    plain = load_board(_unpositioned_board_file(tmp_path))
    assert all(v.position is None for v in plain.villages)
    assert all(v.position is not None for v in default_board().villages)
    assert plain == default_board()
    assert fingerprint(default_board(), default_cards()) == "2aac7a52af4131b0"
    # A game recorded on the board without positions loads on the default board.
    played = play_game([RandomBot(), RandomBot()], seed=2, max_rounds=2)
    first = new_game(2, seed=2, board=plain)
    states = replay(played.record, board=plain)
    moves = [parse_move(m, s) for m, s in zip(played.record.moves, states, strict=False)]
    record = GameRecord.of_game(first, moves)
    assert GameRecord.from_json(record.to_json()) == record
    assert state_from_json(state_to_json(states[-1])) == states[-1]


def test_the_default_layout_shows_four_fold_symmetry() -> None:
    board = default_board()
    at = {v.name: v.position for v in board.villages}
    centre = at["Macallan"]
    assert centre is not None
    for k in range(4):
        for j in range(4):
            here, there = board.villages[4 * k + j], board.villages[(4 * k + 4 + j) % 16]
            (x, y), (u, v) = here.position or (0, 0), there.position or (0, 0)
            # A quarter turn clockwise about the middle (y grows downwards).
            assert (u - centre[0], v - centre[1]) == (-(y - centre[1]), x - centre[0])
    assert overlapping(list(layout(board).values())) == []


def test_a_board_without_positions_gets_a_computed_layout(tmp_path: Path) -> None:
    plain = load_board(_unpositioned_board_file(tmp_path))
    computed = layout(plain)
    assert computed == layout(load_board(_unpositioned_board_file(tmp_path)))
    points = list(computed.values())
    assert overlapping(points) == []
    assert len(set(points)) == 17
    # Drawn, no two village boxes overlap either.
    root = _tree(troedler.svg.board(new_game(4, seed=1, board=plain)))
    boxes = []
    for village in _classed(root, "village"):
        rect = next(r for r in village.iter(f"{SVG}rect") if r.get("fill") == "#fffaf0")
        x, y = float(rect.get("x", "")), float(rect.get("y", ""))
        boxes.append((x, y, x + float(rect.get("width", "")), y + float(rect.get("height", ""))))
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1], (a, b)
    assert SPACING_X > 128 and SPACING_Y > 0


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("position = [80, 420]\n", "", r"villages\[0\]\.position: missing"),
        ("position = [80, 420]", 'position = ["80", 420]', r"villages\[0\]\.position: expected"),
        ("position = [80, 420]", "position = [80]", r"villages\[0\]\.position: expected"),
        ("position = [80, 420]", "position = [nan, 420]", r"villages\[0\]\.position: expected"),
        ("position = [80, 420]", "position = [-5, 420]", r"villages\[0\]\.position: expected"),
        ("position = [250, 420]", "position = [80, 420]", r"villages\[1\]\.position: the same"),
    ],
)
def test_C4_bad_positions_name_file_and_field(
    tmp_path: Path, old: str, new: str, message: str
) -> None:
    text = (DATA / "board.toml").read_text()
    assert old in text
    path = tmp_path / "myboard.toml"
    path.write_text(text.replace(old, new, 1))
    with pytest.raises(FormatError, match=message):
        load_board(path)


def test_T7_a_pending_hand_limit_discard_is_shown() -> None:
    for seed in range(1, 30):
        played = play_game([GreedyBot(), GreedyBot()], seed=seed, max_rounds=4)
        due = [s for s in replay(played.record) if s.turn.discards_due]
        if due:
            break
    else:
        raise AssertionError("no game of these seeds leaves a discard due")
    state = due[0]
    text = troedler.svg.board(state)
    assert f"seat {state.current_player} discards {state.turn.discards_due} more" in text


def test_jupyter_shows_states_observations_and_records_as_pictures() -> None:
    record, states = _game()
    state = states[40]
    seen = observe(state, 1, recall="table")
    for shown in (state, seen, record):
        picture = shown._repr_svg_()
        assert picture is not None and _tree(picture).tag == f"{SVG}svg"
        assert len(repr(shown)) < 120
    assert repr(state) == f"<GameState: 4 players, round {state.round}, {state.phase.value}, " + (
        f"seat {state.current_player} to move>"
    )
    assert repr(seen).startswith("<Observation of seat 1 (table recall): 4 players")
    assert (
        repr(record) == f"<GameRecord: 4 players, seed 3, {len(record.moves)} moves, not finished>"
    )
    assert _cards_drawn(seen._repr_svg_()) == _cards_drawn(troedler.svg.board(seen))
    final = _classed(_tree(record._repr_svg_() or ""), "cart")
    assert [c.get("data-village") for c in final] == [p.cart for p in states[-1].players]
