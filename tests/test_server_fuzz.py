"""A hostile client against a real server: malformed JSON, wrong types, huge
numbers, wrong versions, other matches' tokens and replayed moves get clear
errors, never a crash and never a change to the match."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("sqlalchemy")
pytest.importorskip("websockets")

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.server_support import Client, ConnectionClosed, Served


@pytest.fixture(scope="module")
def arena(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Iterator[dict[str, Any]]:
    folder: Path = tmp_path_factory.mktemp("fuzz")
    served = Served(f"sqlite:///{folder / 'matches.sqlite3'}", folder)
    request.addfinalizer(served.kill)  # also when the set-up below fails
    match = served.create(players=2)
    tokens = [str(served.join(match, name)["token"]) for name in ("ann", "bob")]
    other = served.create(players=2)
    stranger = str(served.join(other, "eve")["token"])
    clients = [Client(served, match, token) for token in tokens]
    mover = 0 if clients[0].welcome["position"]["legal_moves"] else 1
    legal = clients[mover].welcome["position"]["legal_moves"]
    clients[mover].send({"type": "move", "version": 0, "move": legal[0], "id": "first"})
    accepted = clients[mover].until("accepted")
    for client in clients:
        client.close()
    after = served.show(match)
    yield {
        "served": served,
        "match": match,
        "tokens": tokens,
        "stranger": stranger,
        "first": {"type": "move", "version": 0, "move": legal[0], "id": "first"},
        "accepted": accepted,
        "version": after["version"],
    }
    assert served.stop() == 0


scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**80), max_value=2**80),
    st.floats(allow_nan=False),
    st.text(max_size=40),
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


def not_the_version(value: object) -> bool:
    """Anything but the match's version (1): a right version with a legal move
    would be a move, which a hostile client may make like anyone."""
    return not (type(value) is int and value == 1)


moves = st.fixed_dictionaries(
    {
        "type": st.sampled_from(["move", "hello", "ping", "Move", ""]) | st.text(max_size=8),
        "version": (st.integers(min_value=-(2**70), max_value=2**70) | values).filter(
            not_the_version
        ),
        "move": st.sampled_from(["take 1", "take 2", "discard 1", "end", "take 99"]) | values,
        "id": st.text(max_size=80) | values,
    }
)
messages = st.one_of(
    moves.map(json.dumps),
    values.map(json.dumps),
    st.text(max_size=200),
    st.binary(max_size=200),
    st.just("first"),  # the accepted move, sent again
    st.just("[" * 2040 + "]" * 2040),  # deep, within the 4,096 bytes a message may have
    st.just('{"type": "move", "version": 1e999}'),
)
identities = st.sampled_from(["seat 0", "seat 1", "spectator", "stranger", "garbage"])


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(identity=identities, sent=st.lists(messages, min_size=1, max_size=4))
def test_a_hostile_client_gets_clear_errors_and_changes_nothing(
    arena: dict[str, Any], identity: str, sent: list[str | bytes]
) -> None:
    served: Served = arena["served"]
    token = {
        "seat 0": arena["tokens"][0],
        "seat 1": arena["tokens"][1],
        "spectator": None,
        "stranger": arena["stranger"],
        "garbage": "x" * 43,
    }[identity]
    try:
        client = Client(served, arena["match"], token)
    except ConnectionClosed:
        pytest.fail("the server closed the connection before its hello was answered")
    if identity in ("stranger", "garbage"):
        assert client.welcome["type"] == "error" and client.welcome["code"] == "hello"
        with pytest.raises(ConnectionClosed):
            client.next(timeout=10)
        return
    assert client.welcome["type"] == "welcome"
    for message in sent:
        if message == "first":
            client.send(arena["first"])
        elif isinstance(message, bytes):
            client.ws.send(message)
        else:
            client.send(message)
    client.send({"type": "ping"})
    while True:
        answer = client.next(timeout=20)
        if answer["type"] == "pong":
            break
        assert answer["type"] in ("error", "accepted", "status"), answer
        if answer["type"] == "error":
            assert isinstance(answer["code"], str) and isinstance(answer["message"], str)
        if answer["type"] == "accepted":  # only the replay, with its first answer
            assert answer == arena["accepted"]
    client.close()
    assert served.show(arena["match"])["version"] == arena["version"]
