"""The OpenSpiel game python_troedler, run against the real open_spiel package."""

from __future__ import annotations

import base64
import json
import random
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from troedler import (
    ConfigurationError,
    IllegalMoveError,
    Phase,
    apply_move,
    check_invariants,
    determinize,
    legal_moves,
    new_game,
    observe,
)
from troedler.core.cards import ExtraGoodCard, RequestCard, RouteCard, SpecialFeedCard
from troedler.core.chance import chance_probabilities
from troedler.core.goods import Good
from troedler.core.scoring import score, tally

np = pytest.importorskip("numpy")
pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python.algorithms import ismcts as spiel_ismcts  # noqa: E402
from open_spiel.python.algorithms import mcts  # noqa: E402 - after the skip
from open_spiel.python.algorithms.evaluate_bots import evaluate_bots  # noqa: E402
from open_spiel.python.bots.uniform_random import UniformRandomBot  # noqa: E402
from open_spiel.python.observation import make_observation  # noqa: E402
from open_spiel.python.rl_environment import Environment  # noqa: E402

import troedler.adapters.openspiel  # noqa: E402, F401 - registers python_troedler
from troedler.adapters.openspiel import (  # noqa: E402
    ISMCTSBot,
    Resampler,
    TroedlerBot,
    TroedlerState,
    chance_ids,
    win_shares,
)
from troedler.adapters.openspiel.game import Position, max_moves_per_round  # noqa: E402
from troedler.bots import ISMCTSBot as EngineISMCTSBot  # noqa: E402
from troedler.bots import RandomBot  # noqa: E402
from troedler.encoding.action_ids import action_layout  # noqa: E402
from troedler.encoding.tensors import observation_tensor, tensor_layout_for  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
PLAYERS = [2, 3, 4]
GT = pyspiel.GameType


def _load(players: int, **parameters: object) -> Any:
    text = ",".join(f"{k}={v}" for k, v in {"players": players, **parameters}.items())
    return pyspiel.load_game(f"python_troedler({text})")


def _random_step(state: Any, rng: random.Random) -> None:
    if state.is_chance_node():
        ids, probabilities = zip(*state.chance_outcomes(), strict=True)
        state.apply_action(rng.choices(ids, probabilities)[0])
    else:
        actions = state.legal_actions()
        state.apply_action(actions[rng.randrange(len(actions))])


def _check_state(state: TroedlerState) -> None:
    """Every state: sound for the engine, and what OpenSpiel sees agrees with it."""
    game = state.engine_state
    check_invariants(game)
    if state.is_terminal():
        return
    if state.is_chance_node():
        ids = chance_ids()
        outcomes = state.chance_outcomes()
        assert abs(sum(p for _, p in outcomes) - 1.0) < 1e-9
        assert dict(outcomes) == {
            ids.outcome_id(outcome): p for outcome, p in chance_probabilities(game)
        }
        return
    actions = state.legal_actions()
    layout = action_layout()
    moves = legal_moves(game)
    assert actions == sorted(layout.action_id(move) for move in moves)
    assert sorted(state.action_to_string(a) for a in actions) == sorted(str(m) for m in moves)


# --- the game as OpenSpiel knows it -------------------------------------------


def test_importing_the_adapter_registers_python_troedler() -> None:
    assert "python_troedler" in pyspiel.registered_names()
    game = pyspiel.load_game("python_troedler")
    assert game.num_players() == 4
    assert game.get_parameters() == {
        "players": 4,
        "scored_after_rounds": 100,
        "starting_dealer": 0,
        "end_threshold": 0,
        "reshuffle_mid_forming": True,
    }


def test_the_game_type_is_sequential_explicit_chance_imperfect_information() -> None:
    kind = _load(3).get_type()
    assert kind.short_name == "python_troedler"
    assert kind.dynamics == GT.Dynamics.SEQUENTIAL
    assert kind.chance_mode == GT.ChanceMode.EXPLICIT_STOCHASTIC
    assert kind.information == GT.Information.IMPERFECT_INFORMATION
    assert kind.reward_model == GT.RewardModel.TERMINAL
    assert kind.utility == GT.Utility.CONSTANT_SUM
    assert (kind.min_num_players, kind.max_num_players) == (2, 4)
    assert kind.provides_information_state_string and kind.provides_information_state_tensor
    assert kind.provides_observation_string and kind.provides_observation_tensor


@pytest.mark.parametrize("players", PLAYERS)
def test_the_game_info_follows_the_parameters(players: int) -> None:
    game = _load(players, scored_after_rounds=7)
    assert game.num_players() == players
    assert game.num_distinct_actions() == 2441
    assert game.max_chance_outcomes() == 40
    assert (game.min_utility(), game.max_utility(), game.utility_sum()) == (0.0, 1.0, 1.0)
    per_round = {2: 21, 3: 30, 4: 40}[players]
    assert max_moves_per_round(game.table.rules) == per_round
    assert game.max_game_length() == 7 * per_round
    set_up = 48 + {2: 14, 3: 18, 4: 18}[players]
    assert game.max_chance_nodes_in_history() == set_up + 7 * 4 * (players + 1)
    size = tensor_layout_for(players).size
    assert game.information_state_tensor_size() == size
    assert game.observation_tensor_size() == size


def test_the_parameters_reach_the_rules() -> None:
    game = _load(3, starting_dealer=2, end_threshold=2, reshuffle_mid_forming=False)
    rules = game.table.rules
    assert (rules.end_threshold, rules.reshuffle_mid_forming, rules.explicit_chance) == (
        2,
        False,
        True,
    )
    assert game.new_initial_state().engine_state.dealer == 2
    assert _load(3).table.rules.end_threshold == 6  # 0 takes the rulebook's


@pytest.mark.parametrize(
    ("text", "error", "message"),
    [
        ("players=5", ConfigurationError, "S1: 2, 3 or 4 players"),
        ("players=1", ConfigurationError, "S1"),
        ("scored_after_rounds=0", ConfigurationError, "scored_after_rounds must be 1 or more"),
        ("max_rounds=3", pyspiel.SpielError, "Unknown parameter 'max_rounds'"),
        ("players=2,starting_dealer=2", ConfigurationError, "S3"),
        ("end_threshold=99", ConfigurationError, "end_threshold"),
        ("colour=1", pyspiel.SpielError, "Unknown parameter 'colour'"),
    ],
)
def test_bad_parameters_are_refused_naming_them(text: str, error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        pyspiel.load_game(f"python_troedler({text})")


def test_decisions_per_round_stay_within_the_bound_of_max_game_length() -> None:
    """The bound behind max_game_length, against random games of the engine."""
    rng = random.Random(3)
    for players in PLAYERS:
        bound = max_moves_per_round(_load(players).table.rules)
        for seed in range(6):
            state = new_game(players, seed=seed)
            per_round: Counter[int] = Counter()
            while not state.is_over and state.round <= 40:
                moves = legal_moves(state)
                per_round[state.round] += 1
                state = apply_move(state, moves[rng.randrange(len(moves))])
            assert max(per_round.values()) <= bound


# --- OpenSpiel's own tests ------------------------------------------------------


@pytest.mark.parametrize(("players", "sims"), [(2, 2), (3, 1), (4, 1)])
def test_random_sim_test_passes_with_every_state_checked(players: int, sims: int) -> None:
    checked = Counter[str]()

    def checker(state: TroedlerState) -> None:
        _check_state(state)
        checked["chance" if state.is_chance_node() else "other"] += 1

    pyspiel.random_sim_test(
        _load(players), num_sims=sims, serialize=True, verbose=False, state_checker_fn=checker
    )
    # Whole games: the set-up alone has 62 or more chance nodes.
    assert checked["chance"] > 62 * sims and checked["other"] > 100 * sims


def test_random_sim_test_passes_with_a_scored_end_after_two_rounds() -> None:
    pyspiel.random_sim_test(
        _load(2, scored_after_rounds=2),
        num_sims=4,
        serialize=True,
        verbose=False,
        state_checker_fn=_check_state,
    )


# --- chance ---------------------------------------------------------------------


def test_chance_ids_cover_goods_then_card_types_in_hand_order() -> None:
    ids = chance_ids()
    assert [ids.outcome(i) for i in range(6)] == list(Good)
    assert [ids.name(i) for i in (0, 5, 6, 10, 11, 12, 39)] == [
        "good A",
        "good V",
        "card trail",
        "card extra",
        "card feed",
        "card AA:4",
        "card PPPV:7",
    ]
    assert [ids.outcome_id(ids.outcome(i)) for i in range(40)] == list(range(40))
    for bad in (-1, 40, "1", 1.0, True, None):
        with pytest.raises(IllegalMoveError, match="R2: a chance outcome id"):
            ids.outcome(bad)  # type: ignore[arg-type]


def _category(card: object) -> str:
    if isinstance(card, RouteCard):
        return card.kind.code
    if isinstance(card, ExtraGoodCard):
        return "extra"
    if isinstance(card, SpecialFeedCard):
        return "feed"
    assert isinstance(card, RequestCard)
    return "request"


def test_R2_openspiel_chance_outcomes_give_the_seeded_games_first_dealer_pile() -> None:
    """The first card of round 1's first dealer pile, by kind: OpenSpiel's
    chance probabilities against 2,000 seeded games (chi-square, 99.9%)."""
    state = _load(4).new_initial_state()
    rng = random.Random(8)
    while state.engine_state.phase is Phase.SET_UP:
        _random_step(state, rng)
    assert state.is_chance_node()
    ids = chance_ids()
    expected: Counter[str] = Counter()
    for outcome_id, p in state.chance_outcomes():
        expected[_category(ids.outcome(outcome_id))] += p
    assert abs(sum(expected.values()) - 1) < 1e-9
    total = 2000
    seen = Counter(
        _category(new_game(4, seed=seed).dealer_piles[0][0])  # type: ignore[index]
        for seed in range(total)
    )
    chi_square = sum((seen[k] - total * p) ** 2 / (total * p) for k, p in expected.items())
    assert chi_square < 22.46  # 6 degrees of freedom


def test_hidden_set_up_cards_are_logged_as_unknown_and_the_top_card_as_seen() -> None:
    """I2: of the set-up discard pile only its top card is seen."""
    state = _load(2).new_initial_state()
    rng = random.Random(4)
    while state.engine_state.phase is Phase.SET_UP:
        _random_step(state, rng)
    log = state.position.log.splitlines()
    assert len(log) == 48 + 14
    assert all(line.startswith("chance: good ") for line in log[:48])
    assert log[48:61] == ["chance: card ?"] * 13
    top = state.engine_state.discard_pile.cards[-1]
    assert log[61] == f"chance: card {top}"


# --- information states and observations -----------------------------------------


def _decision_states(players: int, seed: int, every: int) -> list[Any]:
    """Every ``every``-th decision state of a random game, first round onward."""
    state = _load(players).new_initial_state()
    rng = random.Random(seed)
    found = []
    decisions = 0
    while not state.is_terminal() and len(found) < 12:
        if not state.is_chance_node():
            decisions += 1
            if decisions % every == 1:
                found.append(state.clone())
        _random_step(state, rng)
    return found


def test_information_states_are_equal_for_states_no_seat_can_tell_apart() -> None:
    """Pairs built with determinize (the resampler): every seat's information
    state string and tensor, and observation, are the same; the pair differs
    in the hidden set-up cards."""
    resampler = Resampler(5)
    different = 0
    for state in _decision_states(3, seed=1, every=9):
        seat = state.current_player()
        other = resampler(state, seat)
        assert other.history() == state.history()
        check_invariants(other.engine_state)
        for q in range(3):
            assert other.information_state_string(q) == state.information_state_string(q)
            assert other.information_state_tensor(q) == state.information_state_tensor(q)
            assert other.observation_string(q) == state.observation_string(q)
        different += other.engine_state.discard_pile != state.engine_state.discard_pile
    assert different > 0


def test_information_states_differ_for_states_a_seat_can_tell_apart() -> None:
    """Negative control: children of one state by different actions differ for
    every seat, unless the actions are cards hidden in the set-up pile (I2)."""
    state = _load(2).new_initial_state()
    rng = random.Random(6)
    siblings = hidden = 0
    while not state.is_terminal() and siblings < 150:
        actions = (
            [a for a, _ in state.chance_outcomes()]
            if state.is_chance_node()
            else state.legal_actions()
        )
        if len(actions) >= 2:
            first, second = state.clone(), state.clone()
            first.apply_action(actions[0])
            second.apply_action(actions[-1])
            laid_hidden = (
                second.engine_state.phase is Phase.SET_UP
                and state.engine_state.village_goods == second.engine_state.village_goods
            )
            for q in range(2):
                same = first.information_state_string(q) == second.information_state_string(q)
                assert same == laid_hidden
            hidden += laid_hidden
            siblings += 1
        _random_step(state, rng)
    # Cards laid into the set-up pile below its top card, where two kinds were left.
    assert 0 < hidden <= 13


def test_perfect_recall_remembers_the_order_of_what_was_seen() -> None:
    """The same engine state reached in two orders (goods dealt A, B or B, A to
    one village) is two information states: perfect recall keeps the order."""
    states = []
    for goods in ((Good.ANVIL, Good.BOTTLE), (Good.BOTTLE, Good.ANVIL)):
        state = _load(2).new_initial_state()
        for good in goods:
            state.apply_action(int(good))
        states.append(state)
    first, second = states
    assert first.engine_state == second.engine_state
    assert first.information_state_string(0) != second.information_state_string(0)
    assert first.information_state_tensor(0) == second.information_state_tensor(0)


def test_observations_are_equal_exactly_when_the_table_views_are() -> None:
    """Pairs dealt anew from one seat's table view: a seat's observation
    string and tensor are equal exactly when its table view is."""
    rng = random.Random(7)
    outcomes = Counter[bool]()
    for state in _decision_states(4, seed=2, every=7):
        game = state.engine_state
        seat = state.current_player()
        dealt = determinize(observe(game, seat, recall="table"), rng)
        other = TroedlerState(state.get_game(), Position(state.position.table, dealt, ""))
        for q in range(4):
            same_view = observe(game, q, recall="table") == observe(dealt, q, recall="table")
            assert (other.observation_string(q) == state.observation_string(q)) == same_view
            if same_view:
                assert other.observation_tensor(q) == state.observation_tensor(q)
            outcomes[same_view] += 1
        assert observe(dealt, seat, recall="table") == observe(game, seat, recall="table")
    assert outcomes[True] and outcomes[False]


def test_tensors_are_the_engine_views_with_named_slices() -> None:
    state = _decision_states(3, seed=3, every=20)[-1]
    game = state.engine_state
    for q in range(3):
        perfect = observation_tensor(observe(game, q, recall="perfect"))
        table = observation_tensor(observe(game, q, recall="table"))
        assert np.array_equal(np.array(state.information_state_tensor(q), np.float32), perfect)
        assert np.array_equal(np.array(state.observation_tensor(q), np.float32), table)
    layout = tensor_layout_for(3)
    for recall in (True, False):
        seen = make_observation(state.get_game(), pyspiel.IIGObservationType(perfect_recall=recall))
        seen.set_from(state, 1)
        assert list(seen.dict) == [s.name for s in layout.slices]
        for piece in layout.slices:
            assert seen.dict[piece.name].shape == piece.shape
        assert seen.dict["recall"][0] == (1.0 if recall else 0.0)
    string = state.information_state_string(2)
    assert string.startswith("seat 2\n") and string.endswith(state.position.log)
    assert state.observation_string(1).startswith(f"Round {game.round}, dealer seat ")


def test_observers_take_the_type_or_parameters_and_refuse_other_views() -> None:
    game = _load(2)
    state = game.new_initial_state()
    # game.make_observer(params) hands the parameters over in place of the type.
    assert game.make_py_observer({}).recall == "table"
    assert game.make_py_observer().recall == "table"
    assert game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=True)).recall == (
        "perfect"
    )
    none = pyspiel.PrivateInfoType.NONE
    public = pyspiel.IIGObservationType(perfect_recall=True, private_info=none)
    assert game.make_py_observer(public).string_from(state, 0) == "seat 0\n"
    with pytest.raises(ConfigurationError, match="take no parameters"):
        game.make_py_observer(None, {"x": 1})
    with pytest.raises(ConfigurationError, match="SINGLE_PLAYER"):
        game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=False, private_info=none))
    with pytest.raises(ConfigurationError, match="public information"):
        game.make_py_observer(pyspiel.IIGObservationType(public_info=False, perfect_recall=True))
    with pytest.raises(ConfigurationError, match="seat must be 0 to 1"):
        game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=True)).string_from(state, 2)


# --- states: clone, serialize, the end ----------------------------------------------


def test_clone_shares_the_immutable_position_and_stays_apart() -> None:
    state = _decision_states(2, seed=4, every=5)[2]
    copy = state.clone()
    assert copy.position is state.position
    before = str(state)
    copy.apply_action(copy.legal_actions()[0])
    assert str(state) == before and copy.position is not state.position
    assert copy.history() == [*state.history(), copy.history()[-1]]


def test_serialize_round_trips_carrying_the_engine_state_as_json() -> None:
    game = _load(3, scored_after_rounds=1)
    state = game.new_initial_state()
    rng = random.Random(9)
    points = {5, 70, 200}
    step = 0
    while True:
        if step in points or state.is_terminal():
            text = state.serialize()
            back = game.deserialize_state(text)
            assert str(back) == str(state) and back.history() == state.history()
            assert back.position.game == state.engine_state
            assert back.position.log == state.position.log
            payload = base64.b64decode(text.split("__dict__=")[1])
            assert b"troedler-state" in payload  # troedler's JSON ...
            assert b"troedler.core.state" not in payload  # ... not pickled engine records
        if state.is_terminal():
            break
        _random_step(state, rng)
        step += 1


def test_E1_a_game_ends_after_scored_after_rounds_scored_as_it_stands() -> None:
    game = _load(2, scored_after_rounds=1)
    state = game.new_initial_state()
    rng = random.Random(10)
    while not state.is_terminal():
        _random_step(state, rng)
    engine = state.engine_state
    assert engine.round == 2 and not engine.is_over
    assert state.current_player() == pyspiel.PlayerId.TERMINAL
    assert state.legal_actions() == []
    tallies = [tally(engine, seat) for seat in range(2)]
    assert state.returns() == win_shares(score(tallies, two_player_rules=True))
    assert sum(state.returns()) == 1.0
    assert "The game ended and was scored after 1 rounds." in str(state)
    with pytest.raises(IllegalMoveError, match="E1: the game is over"):
        state.apply_action(0)


def test_illegal_actions_raise_naming_the_rule() -> None:
    state = _decision_states(2, seed=5, every=100)[0]
    assert state.legal_actions() == [5, 6, 7]  # the two-player dealer discards a pile
    with pytest.raises(IllegalMoveError, match="R4"):
        state.apply_action(0)
    with pytest.raises(IllegalMoveError, match="T1: an action id"):
        state.apply_action(2441)
    assert state.legal_actions() == [5, 6, 7]  # nothing changed


# --- bots -----------------------------------------------------------------------


def test_python_mcts_plays_whole_games_through_evaluate_bots() -> None:
    game = _load(2, scored_after_rounds=2)
    rng = np.random.RandomState(11)
    for seat in range(2):
        rollouts = mcts.RandomRolloutEvaluator(1, np.random.RandomState(seat))
        bot = mcts.MCTSBot(game, 2.0, 10, rollouts, random_state=np.random.RandomState(seat))
        bots = [UniformRandomBot(1 - seat, np.random.RandomState(seat))]
        bots.insert(seat, bot)
        returns = evaluate_bots(game.new_initial_state(), bots, rng)
        assert sum(returns) == 1.0 and all(r in (0.0, 0.5, 1.0) for r in returns)


def test_python_ismcts_plays_whole_games_with_the_resampler() -> None:
    game = _load(3, scored_after_rounds=1)
    rng = np.random.RandomState(12)
    rollouts = mcts.RandomRolloutEvaluator(1, np.random.RandomState(13))
    bots = [
        ISMCTSBot(game, rollouts, 2.0, 8, seed=14),
        UniformRandomBot(1, np.random.RandomState(15)),
        ISMCTSBot(game, rollouts, 2.0, 8, seed=16),
    ]
    returns = evaluate_bots(game.new_initial_state(), bots, rng)
    assert abs(sum(returns) - 1.0) < 1e-9


def test_python_ismcts_without_a_resampler_uses_resample_from_infostate() -> None:
    game = _load(2, scored_after_rounds=1)
    state = _decision_states(2, seed=6, every=4)[3]
    rollouts = mcts.RandomRolloutEvaluator(1, np.random.RandomState(17))
    bot = spiel_ismcts.ISMCTSBot(game, rollouts, 2.0, 6, random_state=np.random.RandomState(18))
    # The search asserts that every resampled root has the root's information state.
    assert bot.step(state) in state.legal_actions()


def test_troedler_bots_play_through_openspiel_seeing_only_their_seat() -> None:
    game = _load(2, scored_after_rounds=2)
    bots = [
        TroedlerBot(EngineISMCTSBot(iterations=10), seed=19),
        TroedlerBot(RandomBot(), recall="table", seed=20),
    ]
    returns = evaluate_bots(game.new_initial_state(), bots, np.random.RandomState(21))
    assert sum(returns) == 1.0
    with pytest.raises(ConfigurationError, match="troedler bot"):
        TroedlerBot(object())  # type: ignore[arg-type]


def test_the_documented_example_runs() -> None:
    text = (ROOT / "docs" / "openspiel.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)
    assert blocks
    for block in blocks:
        exec(compile(block, "docs/openspiel.md", "exec"), {})  # noqa: S102 - our own docs


def test_rl_environment_plays_episodes_with_the_win_shares_as_rewards() -> None:
    environment = Environment(_load(3, scored_after_rounds=1), seed=22)
    rng = random.Random(23)
    spec = environment.action_spec()
    assert spec["num_actions"] == 2441
    for _ in range(2):
        step = environment.reset()
        while not step.last():
            player = step.observations["current_player"]
            legal = step.observations["legal_actions"][player]
            assert len(step.observations["info_state"][player]) == tensor_layout_for(3).size
            step = environment.step([legal[rng.randrange(len(legal))]])
        assert sum(step.rewards) == 1.0


def test_quick_openspiel_benchmark_reports_every_figure() -> None:
    result = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "openspiel.py"), "--quick"],
        capture_output=True,
        text=True,
        check=True,
    )
    figures = json.loads(result.stdout.strip().splitlines()[-1])
    for players in PLAYERS:
        for key in ("random_sim_test_s", "chance_step_us", "decision_step_us", "clone_us"):
            assert figures[f"{key}_{players}p"] > 0
        chance_nodes = figures[f"chance_nodes_{players}p"]
        assert chance_nodes[1] <= chance_nodes[0] <= chance_nodes[2]
    match = figures["ismcts_match"]
    assert match["openspiel_ismcts_win_share"] + match["troedler_ismcts_win_share"] == 1.0
