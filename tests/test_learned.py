"""The learned bot (``neural``): it starts as greedy, plays its shipped networks,
and refuses weight files that are wrong or altered before any game."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

np = pytest.importorskip("numpy")

from troedler import (  # noqa: E402
    ConfigurationError,
    TroedlerError,
    apply_move,
    determinize,
    legal_moves,
    new_game,
    observe,
    parse_move,
)
from troedler.bots import GreedyBot, ISMCTSBot, RandomBot, play_game  # noqa: E402
from troedler.bots.learned import (  # noqa: E402
    FOLLOW_UPS,
    GUIDED_EXPLORATION,
    SHIPPED_PLAYERS,
    LearnedBot,
    ValueGuide,
    Valuer,
    bot_from_weights,
    shipped_network,
    shipped_path,
)
from troedler.bots.neural import NeuralBot, WeightsError, policy_spec, save_policy  # noqa: E402
from troedler.bots.value import (  # noqa: E402
    TERMS,
    ValueNetwork,
    greedy_network,
    load_value_network,
    save_value_network,
)
from troedler.core.moves import EndTurn  # noqa: E402
from troedler.core.state import Phase  # noqa: E402
from troedler.simulation import game_seed, tournament  # noqa: E402
from troedler.simulation.lineup import bot_from_text  # noqa: E402

from .test_training import network_arrays  # noqa: E402


def decisions(players: int, games: int, seed: int) -> list[tuple[Any, list[Any]]]:
    """Every decision with a choice of greedy games: (observation, legal moves)."""
    found = []
    for game in range(games):
        played = play_game([GreedyBot()] * players, seed=game_seed(seed, game), max_rounds=100)
        state = new_game(players, seed=game_seed(seed, game))
        for text in played.record.moves:
            legal = legal_moves(state)
            if len(legal) > 1:
                found.append((observe(state, state.current_player), legal))
            state = apply_move(state, parse_move(text, state))
    return found


@pytest.mark.parametrize(("players", "games"), [(2, 6), (3, 2), (4, 3)])
def test_a_fresh_network_chooses_every_move_as_greedy_does(players: int, games: int) -> None:
    # Generation 0 is greedy: the same move at every decision of whole
    # games (taking piles, playing, ending the turn, discarding), given the
    # same random generator, with the hidden layers drawn but silent, when
    # the bot looks no further than greedy does.
    bot = LearnedBot(greedy_network(players, seed=5), follow_ups=0)
    greedy = GreedyBot()
    found = decisions(players, games, seed=players)
    assert len(found) > 100 * games
    for k, (seen, legal) in enumerate(found):
        assert bot.choose(seen, legal, random.Random(k)) == greedy.choose(
            seen, legal, random.Random(k)
        ), (k, seen.phase)


@pytest.mark.parametrize("players", SHIPPED_PLAYERS)
def test_the_bot_looks_one_move_past_its_best_moves_of_a_turn(players: int) -> None:
    # Each of the best FOLLOW_UPS card moves of a turn is worth the best
    # option after it in the same turn (ending the turn included); every
    # other option keeps its own value; the bot plays the best of them.
    bot = LearnedBot()
    valuer = Valuer(shipped_network(players))
    changed = looked = 0
    for k, (seen, legal) in enumerate(decisions(players, 2, seed=21)):
        if seen.phase is Phase.TAKE_PILES or seen.turn.discards_due:
            continue
        state = determinize(seen, random.Random(k))
        decision = valuer.decide(state, seen.seat, legal)
        further = valuer.look_further(state, seen.seat, decision, FOLLOW_UPS)
        cards = [i for i, move in enumerate(legal) if type(move) is not EndTurn]
        best = sorted(cards, key=lambda i: -decision.scores[i])[:FOLLOW_UPS]
        for i, after in enumerate(decision.states):
            if i in best:
                assert after.current_player == seen.seat and not after.is_over
                options = valuer.decide(after, seen.seat, legal_moves(after)).scores
                assert further.scores[i] == max(options)
                looked += 1
            else:
                assert further.scores[i] == decision.scores[i]
        chosen = bot.choose(seen, legal, random.Random(k))
        assert chosen == legal[further.best()]
        changed += chosen != legal[decision.best()]
    assert looked > 50 and changed > 0
    one_move = bot_from_text("troedler.bots.learned:one_move_bot")
    assert isinstance(one_move, LearnedBot) and one_move.follow_ups == 0
    assert one_move.name == "neural-1"
    with pytest.raises(ConfigurationError, match="^follow_ups: a whole number"):
        LearnedBot(follow_ups=-1)
    with pytest.raises(ConfigurationError, match="^follow_ups: a whole number"):
        LearnedBot(follow_ups=True)


def test_the_shipped_networks_are_greedy_until_a_generation_is_accepted() -> None:
    # Whatever generation ships, a game between the shipped bot and greedy
    # finishes, and generation 0 plays greedy's own game.
    for players in SHIPPED_PLAYERS:
        network = shipped_network(players)
        assert network.players == players
        bots = [bot_from_text("neural")] + [GreedyBot()] * (players - 1)
        played = play_game(bots, seed=11, max_rounds=100)
        assert played.finished
        if network.generation == 0:
            assert played.record.moves == play_game([GreedyBot()] * players, seed=11).record.moves
    assert sum(shipped_path(n).stat().st_size for n in SHIPPED_PLAYERS) <= 5 * 2**20


def test_three_players_are_refused_before_the_first_game_in_one_line(tmp_path: Path) -> None:
    for start in (
        lambda: tournament(["neural", "greedy", "greedy"], games=2),
        lambda: play_game([LearnedBot(), RandomBot(), RandomBot()], seed=1),
    ):
        with pytest.raises(WeightsError, match="^players: the networks that ship .* not 3"):
            start()
    run = subprocess.run(
        [sys.executable, "-m", "troedler", "simulate", "--bots", "neural,greedy",
         "--players", "3", "--games", "2", "--out", str(tmp_path / "run.jsonl")],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert run.returncode == 2, run.stderr
    assert run.stderr.count("\n") == 1 and "ship with troedler play 2 and 4 players" in run.stderr
    assert not (tmp_path / "run.jsonl").exists()


def test_neural_plays_in_the_command_line_and_a_tournament(tmp_path: Path) -> None:
    summary = tournament(["neural", "greedy"], games=2, seed=3)
    assert summary.games == 2 and summary.forfeited == 0
    run = subprocess.run(
        [sys.executable, "-m", "troedler", "simulate", "--bots", "neural,greedy,greedy,greedy",
         "--games", "1", "--out", str(tmp_path / "run.jsonl")],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "run.jsonl").exists()


def trained(players: int, seed: int = 1) -> ValueNetwork:
    """A network whose hidden layers speak: random output weights."""
    fresh = greedy_network(players, hidden=(16, 8), seed=seed)
    arrays = dict(fresh.arrays)
    rng = np.random.default_rng(seed)
    arrays["output_weight"] = rng.normal(0, 0.3, 8).astype(np.float32)
    arrays["terms_weight"] = fresh.arrays["terms_weight"] + rng.normal(0, 0.01, len(TERMS))
    return ValueNetwork(dict(fresh.spec, generation=3), arrays)


@pytest.fixture(scope="module")
def weights(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("value") / "two.npz"
    line = play_game([GreedyBot()] * 2, seed=4)
    from troedler.encoding.action_ids import action_layout

    state, actions = new_game(2, seed=4), []
    for text in line.record.moves[:60]:
        move = parse_move(text, state)
        actions.append(action_layout().action_id(move))
        state = apply_move(state, move)
    save_value_network(path, trained(2), [(4, actions[:30], 0), (4, actions, 1)])
    return path


def test_a_weight_file_reads_back_to_the_same_scores_and_plays(weights: Path) -> None:
    network = load_value_network(weights)
    assert network.generation == 3 and len(network.spec["checks"]) == 2
    made = trained(2)
    state = new_game(2, seed=9)
    encoder = made.encoder()
    for _ in range(30):
        state = apply_move(state, legal_moves(state)[0])
    scores = network.state_scores([state], 0, network.encoder())
    assert np.allclose(scores, made.state_scores([state], 0, encoder), rtol=1e-12, atol=0)
    assert made.correction(*made.features([state], [0], encoder))[0] != 0
    bot = bot_from_text(f"neural:{weights}")
    assert isinstance(bot, LearnedBot)
    assert play_game([bot, GreedyBot()], seed=2, max_rounds=100).finished
    # The same file with one move of look-ahead, as a generation judged it.
    one_move = bot_from_text(f"troedler.bots.learned:one_move_bot:{weights}")
    assert isinstance(one_move, LearnedBot) and one_move.follow_ups == 0
    assert one_move.network(2).generation == 3
    # A policy file of the same text is the policy bot.
    policy = weights.with_name("policy.npz")
    spec = policy_spec(2, [8])
    save_policy(policy, spec, network_arrays(spec))
    assert isinstance(bot_from_weights(policy), NeuralBot)


def test_the_bot_is_deterministic_given_its_rng_and_explores_with_it(weights: Path) -> None:
    bot = LearnedBot.from_file(weights)
    explorer = LearnedBot.from_file(weights, exploration=1.0, name="explorer")
    (seen, legal), *_ = [d for d in decisions(2, 1, seed=8) if len(d[1]) > 5]
    assert len({bot.choose(seen, legal, random.Random(3)) for _ in range(5)}) == 1
    drawn = [explorer.choose(seen, legal, random.Random(k)) for k in range(40)]
    assert len(set(drawn)) > 1 and all(move in legal for move in drawn)
    assert drawn == [explorer.choose(seen, legal, random.Random(k)) for k in range(40)]
    with pytest.raises(ConfigurationError, match="exploration"):
        LearnedBot(exploration=1.5)


def rewrite(path: Path, target: Path, change: Any) -> Path:
    with np.load(path, allow_pickle=False) as archive:
        arrays = {name: archive[name] for name in archive.files}
    spec = json.loads(str(arrays.pop("spec")))
    change(spec, arrays)
    np.savez(target, spec=np.array(json.dumps(spec)), **arrays)
    return target


@pytest.mark.parametrize(
    ("field", "change"),
    [
        ("format", lambda s, a: s.update(format="troedler-values")),
        ("players", lambda s, a: s.update(players=5)),
        ("tensor_size", lambda s, a: s.update(tensor_size=541)),
        ("tensor_layout_version", lambda s, a: s.update(tensor_layout_version=0)),
        ("fingerprint", lambda s, a: s.update(fingerprint="0" * 16)),
        ("terms", lambda s, a: s.update(terms=list(reversed(TERMS)))),
        ("hidden", lambda s, a: s.update(hidden=[16])),
        ("recall", lambda s, a: s.update(recall="none")),
        ("generation", lambda s, a: s.update(generation=-1)),
        ("output_weight", lambda s, a: a.update(output_weight=a["output_weight"][:4])),
        ("terms_weight", lambda s, a: a.update(terms_weight=a["terms_weight"].astype("f4"))),
        ("hidden_1_bias", lambda s, a: a["hidden_1_bias"].__setitem__(0, np.inf)),
        ("bias", lambda s, a: a.pop("bias")),
        # Altered weights no longer score the saved positions as they did.
        ("checks", lambda s, a: a["hidden_0_bias"].__setitem__(0, 5.0)),
        ("checks", lambda s, a: s["checks"][1].update(score=s["checks"][1]["score"] + 0.01)),
        ("checks", lambda s, a: s["checks"][0].update(actions=[9999])),
    ],
)
def test_a_wrong_or_altered_weight_file_is_refused_naming_the_field(
    weights: Path, tmp_path: Path, field: str, change: Any
) -> None:
    bad = rewrite(weights, tmp_path / "bad.npz", change)
    with pytest.raises(WeightsError, match=f"^{field}") as error:
        bot_from_text(f"neural:{bad}")
    assert isinstance(error.value, TroedlerError) and "\n" not in str(error.value)


def test_a_network_for_two_players_is_refused_at_four_before_any_game(weights: Path) -> None:
    with pytest.raises(WeightsError, match="^players: the network plays 2-player games"):
        tournament([f"neural:{weights}", "greedy"], games=1, players=4)


def test_a_file_that_would_need_pickle_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "pickled.npz"
    np.savez(path, spec=np.array([{"format": "troedler-value"}], dtype=object))
    with pytest.raises(WeightsError, match="path"):
        load_value_network(path)


def test_a_guided_search_is_first_led_by_the_bot_with_its_look_ahead() -> None:
    # The guide's priors are the learned bot's policy over the decision as
    # the bot sees it: looking past its best moves of a turn, not when taking piles.
    judge = ValueGuide().judge(4)
    seen_kinds = set()
    led = 0
    for k, (seen, legal) in enumerate(decisions(4, 1, seed=23)[:120]):
        if seen.turn.discards_due:
            continue
        state = determinize(seen, random.Random(k))
        decision = judge.decide(state, seen.seat, legal)
        piles = seen.phase is Phase.TAKE_PILES
        further = judge.look_further(state, seen.seat, decision, FOLLOW_UPS)
        priors = judge.priors(state, seen.seat, legal)
        assert priors == list(judge.policy(further))
        if piles:
            assert priors == list(judge.policy(decision))
        led += priors != list(judge.policy(decision))
        seen_kinds.add(piles)
    assert seen_kinds == {True, False} and led > 10


def test_a_guided_search_reports_its_root_and_plays_legal_games() -> None:
    guided = ISMCTSBot(iterations=12, guide=ValueGuide(trained(2)), name="guided")
    (seen, legal), *_ = [d for d in decisions(2, 1, seed=5) if len(d[1]) > 3]
    found = guided.search(seen, legal, random.Random(1))
    assert sum(found.visits) == 12 and len(found.choices) == len(legal)
    assert abs(sum(found.priors) - 1) < 1e-9
    for visits, value in zip(found.visits, found.values, strict=True):
        assert (value is None) == (visits == 0)
        assert value is None or 0 <= value <= 1
    assert play_game([guided, GreedyBot()], seed=3, max_rounds=100).finished


def test_a_search_guided_by_the_networks_is_a_bot_text_refusing_three_players(
    weights: Path,
) -> None:
    guided = bot_from_text("ismcts:8:neural")
    assert isinstance(guided, ISMCTSBot) and isinstance(guided.guide, ValueGuide)
    assert guided.guide.networks is None and guided.iterations == 8  # the shipped networks
    # The guided search explores as suits the networks' shares, the plain one as before.
    assert guided.exploration == GUIDED_EXPLORATION != bot_from_text("ismcts:8").exploration
    assert play_game([guided, GreedyBot()], seed=3, max_rounds=100).finished
    with pytest.raises(WeightsError, match="^players: the networks that ship .* not 3"):
        play_game([guided, RandomBot(), RandomBot()], seed=1)
    own = bot_from_text(f"ismcts:8:neural:{weights}")
    assert isinstance(own, ISMCTSBot) and isinstance(own.guide, ValueGuide)
    assert own.guide.network(2).spec == load_value_network(weights).spec
    with pytest.raises(WeightsError, match="^players: the network plays 2-player games"):
        tournament([f"ismcts:8:neural:{weights}", "greedy"], games=1, players=4)
    for text in ("ismcts:8:greedy", "ismcts:0:neural", "ismcts:x:neural"):
        with pytest.raises(ConfigurationError, match="^bad bot"):
            bot_from_text(text)
