"""The JAX engine against the core: differential walks, the bridge, pgx, the docs example.

tests/test_jax.py runs this file in a pytest process of its own (see there).

Every walk compiles its programs once (they are kept across tests); the
compiled batch programs run real JAX on the CPU, and every step is checked
against the real core (see :mod:`troedler.jax.differential`).
"""

from __future__ import annotations

import random
from pathlib import Path

import attrs
import pytest

jax = pytest.importorskip("jax")
pgx = pytest.importorskip("pgx")
np = pytest.importorskip("numpy")

import jax.numpy as jnp  # noqa: E402 - after the skip
from pgx.experimental import auto_reset as pgx_auto_reset  # noqa: E402

from tests.jax_broken import no_feed_for_replacing  # noqa: E402
from tests.reachable import reachable_states  # noqa: E402
from tests.test_tutorials import blocks  # noqa: E402
from troedler import (  # noqa: E402
    ConfigurationError,
    Rules,
    TroedlerError,
    check_invariants,
    new_game,
)
from troedler.core.chance import new_explicit_game  # noqa: E402
from troedler.core.rulebook import (  # noqa: E402
    MAX_PLAYERS,
    PILE_SIZE,
    PLAYER_COUNTS,
    VALUE_PILE_TYPES,
    damage,
    dealer_discards_first,
    discard_options,
    discards_owed,
    ends_game,
    goes_to_value_pile,
    most_carried,
    next_to_take,
    pile_count,
    pile_takes,
    reshuffle_due,
    round_cards,
    setup_pile_hidden,
    setup_portion,
    taker,
    totally_damaged,
)
from troedler.encoding.action_ids import action_layout  # noqa: E402
from troedler.encoding.tensors import state_tensor  # noqa: E402
from troedler.jax import (  # noqa: E402
    TroedlerEnv,
    auto_reset,
    from_state,
    make,
    random_legal_action,
    random_play,
    sample_legal_action,
    to_state,
    to_states,
)
from troedler.jax.differential import walk  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]

WALKS = {
    # players: (rules options, max_rounds, games, steps)
    2: ({}, 100, 32, 220),
    3: ({"end_threshold": 2, "reshuffle_mid_forming": False}, 5, 32, 210),
    4: ({"end_threshold": 3, "hand_limit": 5, "setup_feed": 6}, 100, 32, 210),
}
"""The rulebook's two-player game; 3 and 4 players with other options and an
earlier end, so that random walks reach the end of many games (E1) and the
truncation at max_rounds. 20,480 compared steps in all."""


EVENTS = (
    "TakePile", "PlayRoute", "PlayExtraGood", "PlayFeedMove", "PlayFeedExtraGood",
    "PlayRequest", "EndTurn", "DiscardCard", "round end", "reshuffle (R3)",
)  # fmt: skip
"""Moves and events every walk must meet."""


@pytest.mark.parametrize("players", sorted(WALKS))
def test_differential_walk_matches_the_core_at_every_step(players: int) -> None:
    options, max_rounds, games, steps = WALKS[players]
    rules = Rules.for_players(players, **options)
    report = walk(
        players, games=games, steps=steps, seed=players, rules=rules, max_rounds=max_rounds,
        eager=True,
    )  # fmt: skip
    assert report.mismatches == 0, (report.kinds, report.first)
    assert report.steps == games * steps
    # Every phase and every kind of move came up, and games ended.
    assert set(report.phases) == {"take piles", "play turns", "discard to the hand limit"}
    for event in EVENTS:
        assert report.events.get(event, 0) > 0, event
    if players == 2:
        assert report.events["DiscardPile"] > 0
    assert report.games_finished > 0
    if players == 3:
        assert report.games_truncated > 0


def test_a_broken_rule_is_caught() -> None:
    # The negative control: deliveries that replace goods cost no feed (T5c).
    report = walk(2, games=16, steps=60, seed=1, eager=True, changed=no_feed_for_replacing)
    assert report.mismatches > 0
    assert report.kinds.get("mask", 0) > 0


def test_perfect_recall_walk_matches_the_core() -> None:
    # The walks compare both recalls' tensors; this one steps with perfect recall.
    report = walk(2, games=8, steps=40, seed=9, recall="perfect")
    assert report.mismatches == 0, (report.kinds, report.first)


RULES_VARIANTS = (
    {},
    {"two_player_rules": False},
    {"setup_requests": 4, "setup_feed": 11, "hand_limit": 2, "end_threshold": 3},
)
"""Rules options the tables are built for: the rulebook's and others."""


@pytest.mark.parametrize("players", PLAYER_COUNTS)
@pytest.mark.parametrize("options", RULES_VARIANTS)
def test_R2_R4_S5_T6_T7_the_tables_state_the_rulebooks_facts(
    players: int, options: dict[str, object]
) -> None:
    rules = Rules.for_players(players, **options)
    t = make(players, rules=rules).tables
    layout = action_layout()
    assert t.piles == pile_count(players)
    assert t.round_cards == round_cards(players) == PILE_SIZE * t.piles
    assert t.setup_portion == setup_portion(rules)
    assert t.next_taker.shape == (players, t.piles + 1)
    for dealer in range(players):
        for gone in range(t.piles + 1):
            seat = next_to_take(rules, dealer, gone)
            assert t.next_taker[dealer, gone] == (-1 if seat is None else seat)
            if seat is not None and not dealer_discards_first(rules, gone):
                assert seat == taker(dealer, players, pile_takes(rules, gone))
    assert list(t.dealer_discards) == [
        dealer_discards_first(rules, gone) for gone in range(t.piles + 1)
    ]
    for kind, card in enumerate(t.card_list):
        assert (kind >= t.value_pile_from) == goes_to_value_pile(card)
        assert goes_to_value_pile(card) == isinstance(card, VALUE_PILE_TYPES)
        assert t.discardable[kind] == bool(discard_options((card,), 1, None))
    assert t.take_actions == len(layout.section("take pile")) == pile_count(MAX_PLAYERS)
    assert t.discard_pile_actions == len(layout.section("discard pile")) == pile_count(2)
    assert t.max_hand == most_carried(rules) + PILE_SIZE


@pytest.mark.parametrize("players", [2, 3, 4])
def test_from_state_then_to_state_gives_the_state_back(players: int) -> None:
    rng = random.Random(players)
    states = list(reachable_states(players, seed=players, count=600))
    chosen = [states[0], states[-1], *rng.sample(states, 10)]
    chosen += [s for s in states if s.turn.discards_due][:2]
    chosen += [s for s in states if s.is_over][:1]
    for state in chosen:
        twin = from_state(state, recall="table")
        assert to_state(twin, seed=state.seed) == state
        ids = tuple(int(i) for i in np.flatnonzero(twin.legal_action_mask))
        if not state.is_over:
            assert ids == action_layout().legal_action_ids(state)
        seat = state.current_player or 0
        assert np.array_equal(twin.observation, state_tensor(state, seat, "table"))


def test_from_state_refuses_chance_nodes_and_broken_states() -> None:
    with pytest.raises(ConfigurationError, match="chance"):
        from_state(new_explicit_game(3))
    state = new_game(3, seed=1)
    with pytest.raises(ConfigurationError, match="reach"):
        from_state(attrs.evolve(state, round=0))
    with pytest.raises(ConfigurationError):
        from_state("not a state")  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="recall"):
        from_state(state, recall="total")


@pytest.fixture(scope="module")
def one_game() -> tuple[TroedlerEnv, object, object]:
    """A two-player environment with its init and step compiled for one game."""
    env = make(2)
    return env, jax.jit(env.init), jax.jit(env.step)


def test_to_state_needs_an_index_for_a_batch_and_none_for_one_game(one_game: tuple) -> None:
    _env, init, _step = one_game
    one = init(jax.random.PRNGKey(3))
    batch = jax.vmap(init)(jax.random.split(jax.random.PRNGKey(3), 2))
    check_invariants(to_state(one))
    assert to_state(batch, index=1) == to_states(batch)[1]
    for bad in (
        lambda: to_state(one, index=0),
        lambda: to_state(batch),
        lambda: to_state(batch, index=2),
        lambda: to_state(batch, index=True),
        lambda: to_state("a state"),  # type: ignore[arg-type]
        lambda: to_states(one),
        lambda: to_state(one, seed=-1),
    ):
        with pytest.raises(TroedlerError):
            bad()


def test_make_refuses_what_it_does_not_cover() -> None:
    with pytest.raises(ConfigurationError, match="explicit_chance"):
        make(3, rules=Rules.for_players(3, explicit_chance=True))
    with pytest.raises(ConfigurationError, match="S1"):
        make(5)
    with pytest.raises(ConfigurationError, match="S1"):
        make(3, rules=Rules.for_players(4))
    with pytest.raises(ConfigurationError, match="recall"):
        make(2, recall="total")
    with pytest.raises(ConfigurationError, match="max_rounds"):
        make(2, max_rounds=0)
    with pytest.raises(ConfigurationError, match="S3"):
        make(2, starting_dealer=2)


def test_the_environment_is_a_pgx_env_with_the_adapters_sizes() -> None:
    from troedler.encoding.tensors import tensor_layout_for

    for players in (2, 3, 4):
        env = make(players)
        assert isinstance(env, pgx.Env)
        assert env.num_players == players
        assert env.num_actions == action_layout().num_actions
        assert env.observation_shape == (tensor_layout_for(players).size,)
    assert make(3) == make(3) and hash(make(3)) == hash(make(3))
    assert make(3) != make(3, recall="perfect")


def test_init_is_reproducible_and_steps_need_a_key(one_game: tuple) -> None:
    env, init, _step = one_game
    a, b = init(jax.random.PRNGKey(7)), init(jax.random.PRNGKey(7))
    assert to_state(a) == to_state(b)
    assert to_state(a) != to_state(init(jax.random.PRNGKey(8)))
    with pytest.raises(ConfigurationError, match="key"):
        env.step(a, jnp.int32(int(np.flatnonzero(a.legal_action_mask)[0])))


def test_random_play_with_auto_reset_is_reproducible_and_valid() -> None:
    env = make(2, max_rounds=8)
    played = random_play(env, jax.random.PRNGKey(1), games=8, steps=120)
    again = random_play(make(2, max_rounds=8), jax.random.PRNGKey(1), games=8, steps=120)
    assert played.steps == 960
    # Uniform random games last more than 8 rounds: auto_reset restarted them.
    assert played.truncated > 0
    assert to_states(played.state) == to_states(again.state)
    for state in to_states(played.state):
        check_invariants(state)
    with pytest.raises(ConfigurationError):
        random_play(env, jax.random.PRNGKey(1), games=0, steps=1)
    with pytest.raises(ConfigurationError):
        random_play("env", jax.random.PRNGKey(1), games=1, steps=1)  # type: ignore[arg-type]


def test_the_engines_auto_reset_gives_pgx_auto_resets_states() -> None:
    # Batched (the batch rule sets up only the ended games) and for one game.
    env = make(2, max_rounds=3)
    ours = jax.jit(jax.vmap(auto_reset(env)))
    theirs = jax.jit(jax.vmap(pgx_auto_reset(env.step, env.init)))
    state = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.PRNGKey(4), 6))
    a = b = state
    restarts = 0
    for i in range(150):
        key = jax.random.PRNGKey(100 + i)
        action = random_legal_action(key, a.legal_action_mask)
        keys = jax.random.split(key, 6)
        a, b = ours(a, action, keys), theirs(b, action, keys)
        assert jax.tree_util.tree_all(jax.tree_util.tree_map(jnp.array_equal, a, b)), i
        restarts += int((a.terminated | a.truncated).sum())
    assert restarts > 0
    one_ours, one_theirs = jax.jit(auto_reset(env)), jax.jit(pgx_auto_reset(env.step, env.init))
    single = jax.tree_util.tree_map(lambda x: x[0], a)
    action = random_legal_action(jax.random.PRNGKey(0), single.legal_action_mask)
    c = one_ours(single, action, jax.random.PRNGKey(1))
    d = one_theirs(single, action, jax.random.PRNGKey(1))
    assert jax.tree_util.tree_all(jax.tree_util.tree_map(jnp.array_equal, c, d))
    with pytest.raises(ConfigurationError):
        auto_reset("env")  # type: ignore[arg-type]


def _chi_squared_bound(df: int) -> float:
    """The chi-squared value a statistic with ``df`` degrees of freedom passes
    with chance 1e-4 (Wilson-Hilferty): a right sampler fails 1 run in 10,000."""
    z = 3.719
    return float(df * (1 - 2 / (9 * df) + z * (2 / (9 * df)) ** 0.5) ** 3)


def _draws(draw: object, count: int) -> np.ndarray:
    keys = jax.random.split(jax.random.PRNGKey(2024), count)
    return np.asarray(jax.jit(jax.vmap(draw))(keys))  # type: ignore[arg-type]


def test_random_legal_action_is_uniform_over_the_legal_ids() -> None:
    # A mask with legal ids at the edges of the sampler's blocks of 64, and a
    # mid-game mask of the engine.
    edges = np.zeros(2441, bool)
    edges[[0, 1, 63, 64, 127, 128, 700, 2399, 2400, 2440]] = True
    env = make(3)
    played = random_play(env, jax.random.PRNGKey(5), games=1, steps=40)
    game = np.asarray(played.state.legal_action_mask[0])
    for mask in (edges, game):
        legal = np.flatnonzero(mask)
        assert len(legal) >= 5
        on = jnp.asarray(mask)
        draws = _draws(lambda key, on=on: random_legal_action(key, on), 400 * len(legal))
        assert set(np.unique(draws)) <= set(legal.tolist())
        counts = np.array([(draws == i).sum() for i in legal])
        expected = len(draws) / len(legal)
        chi2 = float(((counts - expected) ** 2 / expected).sum())
        assert chi2 < _chi_squared_bound(len(legal) - 1), (chi2, counts)
    # A batch of masks with one key; a mask with one legal id gives that id.
    batch = jnp.asarray(np.stack([edges, game]))
    picked = np.asarray(random_legal_action(jax.random.PRNGKey(0), batch))
    assert edges[picked[0]] and game[picked[1]]
    only = jnp.zeros(2441, bool).at[1234].set(True)
    assert int(random_legal_action(jax.random.PRNGKey(3), only)) == 1234


def test_sample_legal_action_draws_softmax_of_the_legal_logits() -> None:
    rng = np.random.default_rng(7)
    mask = np.zeros(2441, bool)
    legal = np.array([3, 64, 65, 400, 1000, 1001, 2000, 2440])
    mask[legal] = True
    logits = rng.normal(0, 1.5, 2441).astype(np.float32)
    logits[~mask] = 50.0  # illegal ids with the highest logits are never drawn
    draws = _draws(
        lambda key: sample_legal_action(key, jnp.asarray(logits), jnp.asarray(mask)), 40_000
    )
    assert set(np.unique(draws)) <= set(legal.tolist())
    weights = np.exp(logits[legal] - logits[legal].max())
    expected = weights / weights.sum() * len(draws)
    counts = np.array([(draws == i).sum() for i in legal])
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    assert chi2 < _chi_squared_bound(len(legal) - 1), (chi2, counts, expected)
    # The same law as jax.random.categorical over the masked logits.
    theirs = _draws(
        lambda key: jax.random.categorical(key, jnp.where(mask, logits, -jnp.inf)), 40_000
    )
    other = np.array([(theirs == i).sum() for i in legal])
    table = np.stack([counts, other])
    total = table.sum(axis=0, keepdims=True) * table.sum(axis=1, keepdims=True) / table.sum()
    chi2 = float(((table - total) ** 2 / total).sum())
    assert chi2 < _chi_squared_bound(len(legal) - 1), (counts, other)
    # Logits of minus infinity at legal ids are never drawn, and a batch works.
    minus = np.where(np.arange(2441) == 3, -np.inf, logits).astype(np.float32)
    drawn = _draws(lambda key: sample_legal_action(key, jnp.asarray(minus), jnp.asarray(mask)), 500)
    assert 3 not in set(drawn.tolist())
    batch = sample_legal_action(
        jax.random.PRNGKey(1),
        jnp.stack([jnp.asarray(logits)] * 3),
        jnp.stack([jnp.asarray(mask)] * 3),
    )
    assert batch.shape == (3,) and all(mask[int(i)] for i in batch)


def test_pgx_api_test_passes_with_only_its_own_two_relaxations(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from typing import Literal, get_args

    from pgx._src import api_test

    # pgx's own registry of env ids does not know troedler's ...
    monkeypatch.setattr(api_test, "EnvId", Literal[(*get_args(api_test.EnvId), "troedler")])
    # ... and pgx 2.6's act_randomly draws along axis 1, which fails on the
    # unbatched mask of api_test_single for pgx's own games too.
    monkeypatch.setattr(
        api_test,
        "act_randomly",
        jax.jit(
            lambda key, mask: jax.random.categorical(
                key, jnp.log(mask.astype(jnp.float32)), axis=-1
            )
        ),
    )
    monkeypatch.chdir(tmp_path)
    env = make(players=2, max_rounds=None)
    api_test.api_test_single(env, num=1)
    api_test.api_test_batch(env, num=1)


def test_a_state_draws_itself_with_troedlers_pictures(one_game: tuple, tmp_path: Path) -> None:
    _env, init, _step = one_game
    one = init(jax.random.PRNGKey(3))
    batch = jax.vmap(init)(jax.random.split(jax.random.PRNGKey(3), 2))
    one.save_svg(tmp_path / "one.svg")
    text = (tmp_path / "one.svg").read_text()
    assert text.startswith("<svg") and text.count('class="village') == 17
    assert one._repr_html_() == one.to_svg()
    both = batch.to_svg(scale=0.5)
    assert both.startswith("<svg") and both.count('class="village') == 34
    with pytest.raises(ConfigurationError, match=".svg"):
        one.save_svg(tmp_path / "one.png")
    with pytest.raises(ConfigurationError, match="scale"):
        one.to_svg(scale=-1)


def test_the_public_fields_are_pgxs_six_and_the_game_is_private(one_game: tuple) -> None:
    _env, init, _step = one_game
    state = init(jax.random.PRNGKey(3))
    public = {name for name in state.__dict__ if not name.startswith("_")}
    assert public == {
        "current_player", "observation", "rewards", "terminated", "truncated", "legal_action_mask",
    }  # fmt: skip
    assert to_state(state).round == int(state._x.round) == 1


def test_the_docs_example_runs() -> None:
    text = (ROOT / "docs" / "jax.md").read_text()
    code = blocks(text)
    assert code
    namespace: dict[str, object] = {}
    for block in code:
        exec(compile(block, "docs/jax.md", "exec"), namespace)  # noqa: S102 - our own docs


def test_an_illegal_action_ends_the_game_as_pgx_does(one_game: tuple) -> None:
    env, init, step = one_game
    state = init(jax.random.PRNGKey(0))
    illegal = int(np.flatnonzero(~np.asarray(state.legal_action_mask))[0])
    after = step(state, jnp.int32(illegal), jax.random.PRNGKey(1))
    assert bool(after.terminated)
    assert float(after.rewards[int(state.current_player)]) == -1.0
    assert isinstance(env, TroedlerEnv)


def test_E1_E2_E3_E4_I2_R3_T7_the_rulebooks_formulas_hold_for_arrays_as_for_integers() -> None:
    # The JAX engine calls the rulebook's own formulas on arrays: each gives,
    # element by element, what it gives the core for each integer.
    grid = np.array(np.meshgrid(*[np.arange(8)] * 3, indexing="ij")).reshape(3, -1)
    a, b, c = (jnp.asarray(row, jnp.int32) for row in grid)
    x, y, z = (row.tolist() for row in grid)
    other = y[::-1]

    def same(array: object, expected: list[object]) -> None:
        assert np.asarray(array).tolist() == expected

    same(damage(a, b), [damage(*v) for v in zip(x, y, strict=True)])
    for limit in (0, 3):
        owed, feed = discards_owed(a, b, limit)
        expected = [discards_owed(*v, limit) for v in zip(x, y, strict=True)]
        same(owed, [e[0] for e in expected])
        same(feed, [e[1] for e in expected])
    for two in (False, True):
        same(
            totally_damaged(a, b, c, b[::-1], two),
            [totally_damaged(*v, two) for v in zip(x, y, z, other, strict=True)],
        )
    for mid in (False, True):
        same(
            reshuffle_due(a, b, c, 4, mid),
            [reshuffle_due(*v, 4, mid) for v in zip(x, y, z, strict=True)],
        )
    for players in PLAYER_COUNTS:
        rules = Rules.for_players(players)
        same(ends_game(rules, a), [ends_game(rules, v) for v in x])
        same(
            setup_pile_hidden(rules, a, b),
            [setup_pile_hidden(rules, *v) for v in zip(x, y, strict=True)],
        )
