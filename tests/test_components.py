"""C1-C5: goods, cards, the board, and loading them from data files."""

from __future__ import annotations

import itertools
from collections import Counter, deque
from pathlib import Path

import pytest

from troedler import (
    SPECIAL_FEED,
    ConfigurationError,
    FormatError,
    Good,
    RouteKind,
    default_board,
    default_cards,
    load_board,
    load_cards,
    new_game,
)
from troedler.core.board import Board

DATA = Path(__file__).resolve().parents[1] / "src" / "troedler" / "data"


def test_C1_forty_eight_goods_eight_of_each_kind() -> None:
    state = new_game(4, seed=11)
    total = Counter[Good]()
    for goods in state.village_goods:
        total.update(goods)
    assert sum(total.values()) == 48
    assert total == {good: 8 for good in Good}


def test_C2_card_counts_of_the_catalogue() -> None:
    catalogue = default_cards()
    assert Counter(card.kind for card in catalogue.routes) == {kind: 11 for kind in RouteKind}
    assert len(catalogue.requests) == 26
    assert catalogue.special_feed == 24
    assert catalogue.extra_goods == 4
    assert len(catalogue.starting_sets) == 4
    assert catalogue.size == 110


def test_C3_starting_set_is_request_route_feed_leaving_its_village() -> None:
    board, catalogue = default_board(), default_cards()
    assert [s.village for s in catalogue.starting_sets] == list(board.start_villages)
    for starting_set in catalogue.starting_sets:
        request, route, feed = starting_set.cards
        assert request == starting_set.request
        assert feed == SPECIAL_FEED
        assert route.kind in board.route_kinds(starting_set.village)  # type: ignore[union-attr]


def test_C3_a_starting_route_that_cannot_leave_is_refused(tmp_path: Path) -> None:
    # Aberlour is left by trails and bridges only.
    old = 'village = "Aberlour"\nroute = "trail"'
    path = _edited_copy(tmp_path, "cards.toml", old, old.replace("trail", "moor"))
    with pytest.raises(
        ConfigurationError,
        match="^C3: the starting set of Aberlour has a moor card, but no moor leaves Aberlour$",
    ):
        new_game(4, seed=1, cards=load_cards(path))


def _distances(board: Board, start: str) -> dict[str, int]:
    seen = {start: 0}
    queue = deque([start])
    while queue:
        here = queue.popleft()
        for there in board.neighbours(here):
            if there not in seen:
                seen[there] = seen[here] + 1
                queue.append(there)
    return seen


def test_C4_default_board_keeps_the_stated_facts() -> None:
    board = default_board()
    assert len(board.villages) == 17
    assert len(board.start_villages) == 4
    assert sum(village.number for village in board.villages) == 48
    assert {route.kind for route in board.routes} == set(RouteKind)
    for village in board.villages:
        assert len(board.neighbours(village.name)) >= 2, village.name
        assert len(board.route_kinds(village.name)) >= 2, village.name
    assert len(_distances(board, board.villages[0].name)) == 17  # connected
    names = {v.name for v in board.villages}
    assert {"Cragganmore", "Knockando", "Macallan"} <= names
    pairs = Counter(frozenset(route.ends) for route in board.routes)
    assert max(pairs.values()) >= 2  # some villages are joined by more than one route


def test_C4_default_board_is_fair_to_every_seat() -> None:
    board = default_board()
    numbers = {v.name: v.number for v in board.villages}

    def profile(start: str) -> tuple[object, ...]:
        distance = _distances(board, start)
        by_distance = sorted((d, numbers[name]) for name, d in distance.items())
        # Route kinds near the start, up to renaming the kinds.
        kinds = Counter(
            route.kind for route in board.routes if min(distance[e] for e in route.ends) <= 1
        )
        return (tuple(by_distance), tuple(sorted(kinds.values())))

    profiles = {profile(start) for start in board.start_villages}
    assert len(profiles) == 1


def test_C4_start_villages_spread_over_the_seats() -> None:
    board = default_board()
    assert [board.start_village(s, 2) for s in range(2)] == [
        board.start_villages[0],
        board.start_villages[2],
    ]
    assert [board.start_village(s, 4) for s in range(4)] == list(board.start_villages)


def test_C5_default_requests_keep_the_stated_ranges() -> None:
    catalogue = default_cards()
    requests = list(catalogue.requests) + [s.request for s in catalogue.starting_sets]
    assert all(2 <= len(r.goods) <= 4 for r in requests)
    assert all(3 <= r.points <= 7 for r in requests)
    for deck in (catalogue.requests, requests):
        demand = Counter[Good]()
        for request in deck:
            demand.update(request.goods)
        assert len(set(demand.values())) == 1 and set(demand) == set(Good)
    by_size: dict[int, list[int]] = {}
    for request in requests:
        by_size.setdefault(len(request.goods), []).append(request.points)
    sizes = sorted(by_size)
    for small, large in itertools.pairwise(sizes):
        assert max(by_size[small]) <= min(by_size[large])
        assert sum(by_size[small]) / len(by_size[small]) < sum(by_size[large]) / len(by_size[large])


def test_C4_board_file_round_trip_loads_like_the_default() -> None:
    assert load_board(DATA / "board.toml") == default_board()
    assert load_cards(DATA / "cards.toml") == default_cards()


BAD_BOARDS = [
    ('name = "Aberlour"\n', 'name = "Aber lour"\n', r"villages\[0\]\.name"),
    ('name = "Craigellachie"\nnumber = 5', 'name = "Craigellachie"\nnumber = 6', "add up to 49"),
    (
        'name = "Craigellachie"\nnumber = 5',
        'name = "Craigellachie"\nnumber = "5"',
        r"villages\[1\]\.number: expected an integer",
    ),
    ('kind = "trail"', 'kind = "tunnel"', r"routes\[0\]\.kind"),
    (
        'between = ["Aberlour", "Craigellachie"]',
        'between = ["Aberlour", "Atlantis"]',
        r"routes\[0\]\.between: 'Atlantis'",
    ),
    ('between = ["Aberlour", "Craigellachie"]', 'between = ["Aberlour"]', r"routes\[0\]\.between"),
    ("start_villages = [", 'start_villages = ["Macallan", ', "start_villages: expected 4"),
    (
        '[[villages]]\nname = "Macallan"\n',
        '[[villages]]\nname = "Macallan"\ncolour = "red"\n',
        r"villages\[16\]\.colour: unknown field",
    ),
    (
        '[[villages]]\nname = "Macallan"\n',
        '[[villages]]\nname = "aberlour"\n',
        r"villages\[16\]\.name: 'aberlour' repeats villages\[0\]",
    ),
    ("[[routes]]", "[[routes]", "not valid TOML"),
]


def _edited_copy(tmp_path: Path, name: str, old: str, new: str) -> Path:
    """A copy of the default data file ``name`` with ``old`` replaced by ``new``."""
    text = (DATA / name).read_text()
    assert old in text
    path = tmp_path / f"my{name}"
    path.write_text(text.replace(old, new, 1))
    return path


@pytest.mark.parametrize(("old", "new", "message"), BAD_BOARDS)
def test_C4_bad_board_file_names_file_and_field(
    tmp_path: Path, old: str, new: str, message: str
) -> None:
    with pytest.raises(FormatError, match=message) as info:
        load_board(_edited_copy(tmp_path, "board.toml", old, new))
    assert "myboard.toml" in str(info.value)


def test_C4_disconnected_board_is_refused(tmp_path: Path) -> None:
    text = (DATA / "board.toml").read_text()
    # Cut every route touching Macallan but keep one between its neighbours.
    kept = [
        block
        for block in text.split("[[routes]]")
        if "Macallan" not in block or "villages" in block
    ]
    path = tmp_path / "cut.toml"
    path.write_text("[[routes]]".join(kept))
    with pytest.raises(FormatError, match="no route leaves Macallan"):
        load_board(path)


BAD_CARDS = [
    ("trail = 11", "trail = 10", r"routes\.trail: expected 11 to 11"),
    (
        'goods = "AA"\npoints = 4',
        'goods = "AX"\npoints = 4',
        r"requests\[0\]\.goods: expected a good",
    ),
    ('goods = "AA"\npoints = 4', 'goods = "AA"\npoints = -1', r"requests\[0\]\.points"),
    ('goods = "AA"\npoints = 4', 'goods = "AA"', r"requests\[0\]\.points: missing"),
    ("special_feed = 24", "special_feed = 25", "special_feed"),
    ('route = "trail"', 'route = "canal"', r"starting_sets\[0\]\.route"),
    (
        'village = "Dufftown"',
        'village = "Aberlour"',
        r"starting_sets\[1\]\.village: 'Aberlour' already",
    ),
]


@pytest.mark.parametrize(("old", "new", "message"), BAD_CARDS)
def test_C2_bad_cards_file_names_file_and_field(
    tmp_path: Path, old: str, new: str, message: str
) -> None:
    with pytest.raises(FormatError, match=message) as info:
        load_cards(_edited_copy(tmp_path, "cards.toml", old, new))
    assert "mycards.toml" in str(info.value)


def test_C2_unreadable_or_binary_files_are_format_errors(tmp_path: Path) -> None:
    with pytest.raises(FormatError, match="cannot be read"):
        load_cards(tmp_path / "missing.toml")
    binary = tmp_path / "binary.toml"
    binary.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(FormatError, match="not UTF-8"):
        load_board(binary)
