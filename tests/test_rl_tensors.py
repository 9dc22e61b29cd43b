"""Observation tensors: fixed length, finite, and only what the seat may know (I1-I3)."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import attrs
import pytest

from tests.helpers import position
from tests.reachable import reachable_states
from troedler import (
    SPECIAL_FEED,
    UNKNOWN,
    ConfigurationError,
    Observation,
    Phase,
    RequestCard,
    Turn,
    apply_move,
    determinize,
    legal_moves,
    new_game,
    observe,
)
from troedler.core.chance import apply_chance, chance_outcomes, is_chance_node, new_explicit_game
from troedler.seat import Recall

np = pytest.importorskip("numpy")

from troedler.encoding.tensors import (  # noqa: E402 - after the skip without numpy
    TensorEncoder,
    observation_tensor,
    state_tensor,
    tensor_layout_for,
)

RECALLS: tuple[Recall, ...] = ("table", "perfect")
EXPECTED_SIZES = {2: 542, 3: 679, 4: 816}


def test_the_layout_covers_the_tensor_with_named_slices() -> None:
    for players, size in EXPECTED_SIZES.items():
        layout = tensor_layout_for(players)
        assert layout.size == size
        assert layout.slices[0].start == 0 and layout.slices[-1].stop == size
        for before, after in itertools.pairwise(layout.slices):
            assert before.stop == after.start
        for part in layout.slices:
            assert part.size == int(np.prod(part.shape)) and part.description
        assert len({part.name for part in layout.slices}) == len(layout.slices)
        # The seat fields cover one row of the seats slice, once each.
        row = layout.seat_fields
        assert row[0].start == 0 and layout.slice("seats").shape == (players, row[-1].stop)
        for before, after in itertools.pairwise(row):
            assert before.stop == after.start
        assert layout.seat_field("hands").shape == (len(layout.card_types),)
        names = {part.name for part in (*layout.slices, *row)}
        assert len(names) == len(layout.slices) + len(row)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_I3_length_is_constant_and_values_finite_over_reachable_states(players: int) -> None:
    size = EXPECTED_SIZES[players]
    rng = random.Random(players)
    phases: Counter[object] = Counter()
    for state in reachable_states(players, seed=10 + players, count=2500):
        phases[state.phase] += 1
        phases["discards due"] += state.turn.discards_due > 0
        for recall in RECALLS:
            tensor = observation_tensor(observe(state, rng.randrange(players), recall=recall))
            assert tensor.shape == (size,) and tensor.dtype == np.float32
            assert np.isfinite(tensor).all() and (tensor >= 0).all()
    # Every phase came up, the end of the game and pending discards included.
    assert phases[Phase.GAME_OVER] >= 1 and phases[Phase.TAKE_PILES] > 100
    assert phases["discards due"] > 20


@pytest.mark.parametrize("players", [2, 4])
def test_I2_states_of_explicit_chance_give_tensors_of_the_same_length(players: int) -> None:
    """Set-up and forming included; the tensors straight from the state agree."""
    rng = random.Random(players)
    state = new_explicit_game(players)
    phases = set()
    for _ in range(400):
        phases.add(state.phase)
        for seat in range(players):
            for recall in RECALLS:
                seen = observe(state, seat, recall=recall)
                tensor = observation_tensor(seen)
                assert tensor.shape == (EXPECTED_SIZES[players],) and np.isfinite(tensor).all()
                assert np.array_equal(state_tensor(state, seat, recall), tensor)
                _check_slices(seen)
        if is_chance_node(state):
            outcomes, weights = zip(*chance_outcomes(state), strict=True)
            state = apply_chance(state, rng.choices(outcomes, weights)[0])
        else:
            state = apply_move(state, rng.choice(legal_moves(state)))
    assert {Phase.SET_UP, Phase.FORM_PILES, Phase.TAKE_PILES, Phase.PLAY_TURNS} <= phases


def _check_slices(seen: Observation) -> None:
    """Each named slice holds what the observation says, in relative seat order."""
    layout = tensor_layout_for(seen.rules.num_players)
    tensor = observation_tensor(seen)
    views = {**layout.views(tensor), **layout.seat_views(tensor)}
    n = seen.rules.num_players
    types = layout.card_types

    def counts(cards: object) -> list[float]:
        counter = Counter(card for card in cards if card is not UNKNOWN)  # type: ignore[attr-defined]
        return [float(counter[card]) for card in types]

    villages = [v.name for v in seen.board.villages]
    assert views["seat"].tolist() == [float(s == seen.seat) for s in range(n)]
    assert views["round"].tolist() == [seen.round]
    assert views["recall"].tolist() == [float(seen.recall == "perfect")]
    assert views["phase"].tolist() == [float(phase is seen.phase) for phase in Phase]
    assert views["discards_due"].tolist() == [seen.turn.discards_due]
    for row in range(n):
        seat = (seen.seat + row) % n
        player = seen.players[seat]
        assert views["carts"][row].tolist() == [float(v == player.cart) for v in villages]
        assert views["goods"][row].tolist() == list(player.goods.counts)
        assert views["hand_sizes"][row] == len(player.hand)
        known = seen.knows_hand(seat)
        assert views["hands_known"][row] == known
        assert views["hands"][row].tolist() == counts(player.hand)
        pile = player.value_pile
        assert views["value_piles"][row].tolist() == counts(pile)
        if known:
            requests = [card for card in pile if isinstance(card, RequestCard)]
            assert views["requests_fulfilled"][row] == len(requests)
            assert views["request_points"][row] == sum(card.points for card in requests)
            assert views["feed_used"][row] == pile.count(SPECIAL_FEED)
    assert views["dealer"][(seen.dealer - seen.seat) % n] == 1 and views["dealer"].sum() == 1
    for i, goods in enumerate(seen.village_goods):
        assert views["village_goods"][i].tolist() == list(goods.counts)
    assert views["played"].tolist() == counts(seen.turn.played)
    assert views["discard_pile"].tolist() == counts(seen.discard_pile)
    assert views["discard_pile_unknown"][0] == seen.discard_pile.cards.count(UNKNOWN)
    for i, dealer_pile in enumerate(seen.dealer_piles):
        assert views["dealer_piles"][i].tolist() == counts(dealer_pile or ())
        assert views["dealer_piles_present"][i] == (dealer_pile is not None)
    assert views["game_round_pile_size"][0] == len(seen.game_round_pile)


@pytest.mark.parametrize("players", [2, 4])
def test_the_slices_hold_what_the_observation_says(players: int) -> None:
    for i, state in enumerate(reachable_states(players, seed=30 + players, count=300)):
        for recall in RECALLS:
            _check_slices(observe(state, i % players, recall=recall))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_I2_states_a_seat_cannot_tell_apart_give_it_equal_tensors(players: int) -> None:
    rng = random.Random(players)
    differed = 0
    for i, state in enumerate(reachable_states(players, seed=50 + players, count=400)):
        if i % 4 or state.is_over:
            continue
        seat = rng.randrange(players)
        for recall in RECALLS:
            seen = observe(state, seat, recall=recall)
            other = determinize(seen, rng)
            differed += other.players != state.players or other.game_round_pile != (
                state.game_round_pile
            )
            again = observe(other, seat, recall=recall)
            assert np.array_equal(observation_tensor(again), observation_tensor(seen))
    assert differed > 50  # the hidden cards really were dealt differently


@pytest.mark.parametrize("players", [2, 3, 4])
def test_I1_I3_state_tensors_are_the_tensors_of_observations(players: int) -> None:
    """The fast path from a state holds exactly what observe() lets the seat know.

    Seats and recalls are asked of one encoder in turn, so that whatever it
    keeps from call to call is exercised with every mix of them.
    """
    rng = random.Random(players)
    encoder = TensorEncoder(tensor_layout_for(players))
    asked = 0
    for state in reachable_states(players, seed=70 + players, count=1500):
        for _ in range(2):
            seat, recall = rng.randrange(players), rng.choice(RECALLS)
            expected = observation_tensor(observe(state, seat, recall=recall))
            assert np.array_equal(encoder.encode_state(state, seat, recall), expected)
            assert np.array_equal(state_tensor(state, seat, recall), expected)
            asked += 1
    assert asked == 3000


def test_encoders_keep_what_they_remember_to_themselves() -> None:
    # An environment's encoder is its own: another's calls leave it as it was,
    # and the layout, shared by every game of its size, remembers nothing.
    layout = tensor_layout_for(3)
    first, second = TensorEncoder(layout), TensorEncoder(layout)
    state = new_game(3, seed=2)
    first.encode_state(state, 0, "table")
    kept = (dict(first._memo), [dict(rows) for rows in first._rows], list(first._stacks_memo))
    for seat in range(3):
        second.encode_state(apply_move(state, legal_moves(state)[0]), seat, "perfect")
        layout.encode_state(state, seat)
        state_tensor(state, seat)
    assert (dict(first._memo), [dict(rows) for rows in first._rows], first._stacks_memo) == kept
    assert not {"_memo", "_rows", "_stacks_memo", "_last_villages"} & set(vars(layout))


def test_I2_what_is_kept_between_calls_follows_the_set_up_pile() -> None:
    """Two states that share their discard pile, one with the set-up pile still
    hidden under it and one after a reshuffle: the second must not be given
    what was worked out for the first."""
    state = new_game(3, seed=4)
    later = attrs.evolve(state, shuffles=state.shuffles + 1)
    assert later.discard_pile is state.discard_pile
    layout = tensor_layout_for(3)
    discard_unknown = layout.slice("discard_pile_unknown").start
    encoder = TensorEncoder(layout)
    first, second = (encoder.encode_state(s, 0, "perfect") for s in (state, later))
    assert first[discard_unknown] > 0 and second[discard_unknown] == 0
    assert np.array_equal(second, observation_tensor(observe(later, 0, recall="perfect")))


def test_state_tensor_refuses_bad_input() -> None:
    state = new_game(3, seed=1)
    with pytest.raises(ConfigurationError, match="expected a GameState"):
        state_tensor("state", 0)  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="seat must be 0 to 2"):
        state_tensor(state, 3)
    with pytest.raises(ConfigurationError, match="seat must be"):
        state_tensor(state, True)
    with pytest.raises(ConfigurationError, match="recall is"):
        state_tensor(state, 0, "everything")  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="another game"):
        tensor_layout_for(4).encode_state(state, 0)
    lost = attrs.evolve(state.players[0], cart="Nowhere")
    with pytest.raises(ConfigurationError, match="unknown village 'Nowhere'"):
        state_tensor(attrs.evolve(state, players=(lost, *state.players[1:])), 0)


def test_hand_made_observations_no_game_can_give_are_refused() -> None:
    seen = observe(new_game(3, seed=1), 0)
    lost = attrs.evolve(seen.players[1], cart="Nowhere")
    for bad, reason in [
        (attrs.evolve(seen, game_round_pile=(UNKNOWN,) * 300), "more places than unknown cards"),
        (attrs.evolve(seen, players=(seen.players[0], lost, seen.players[2])), "unknown village"),
        (attrs.evolve(seen, turn=Turn(played=("x",))), "played this turn holds 'x'"),  # type: ignore[arg-type]
    ]:
        with pytest.raises(ConfigurationError, match=f"not an observation of a game: .*{reason}"):
            observation_tensor(bad)


def test_what_a_seat_sees_changes_its_tensor() -> None:
    """The negative side: a visible difference is never lost in the tensor."""
    a = position(hand="bridge AAB:5", goods="A", cart="Aberlour")
    b = position(hand="ferry AAB:5", goods="A", cart="Aberlour")
    c = position(hand="bridge AAB:5", goods="B", cart="Aberlour")
    tensors = [observation_tensor(observe(s, 0, recall="table")) for s in (a, b, c)]
    assert not np.array_equal(tensors[0], tensors[1])
    assert not np.array_equal(tensors[0], tensors[2])
    # Another seat does not see seat 0's hand with the table view, but does see its goods.
    others = [observation_tensor(observe(s, 1, recall="table")) for s in (a, b, c)]
    assert np.array_equal(others[0], others[1])
    assert not np.array_equal(others[0], others[2])


def test_the_round_may_pass_255() -> None:
    late = attrs.evolve(new_game(3, seed=1), round=300)
    views = tensor_layout_for(3).views(observation_tensor(observe(late, 0)))
    assert views["round"].tolist() == [300.0]


def test_bad_input_is_refused() -> None:
    with pytest.raises(ConfigurationError, match="expected an Observation"):
        observation_tensor("seen")  # type: ignore[arg-type]
    seen = observe(new_game(3, seed=1), 0)
    with pytest.raises(ConfigurationError, match="another game"):
        tensor_layout_for(4).encode(seen)
    with pytest.raises(ConfigurationError):
        tensor_layout_for(5)
