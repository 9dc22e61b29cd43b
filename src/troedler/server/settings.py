"""A match's settings, as the lobby receives them and the database keeps them.

Everything here comes from a network request, so every field is checked and
every refusal names the field. Bots are the bundled ones (``random``,
``greedy``, ``ismcts:N`` up to :data:`MAX_ISMCTS`, ``neural``, the
learned bot with the networks that ship with troedler, and
``ismcts:N:neural``, the search those networks guide) and, only where the
operator allows it, ``exec:`` program bots; never ``module:Class``, which
would import a module a stranger names, nor ``neural:PATH`` or
``ismcts:N:neural:PATH``, which would read a file a stranger names. A bot
that cannot play the match's player count (``neural`` at 3 players) is
refused when the match is created, in the bot's own words.
"""

from __future__ import annotations

from typing import Any, Literal, cast

import attrs

from troedler.bots.base import check_players
from troedler.core.errors import ConfigurationError, TroedlerError, quote
from troedler.core.limits import seat_name_problem
from troedler.core.rulebook import PLAYER_COUNTS, Rules
from troedler.core.state import RECALLS, Recall
from troedler.simulation.lineup import bot_from_text

__all__ = [
    "MAX_ISMCTS",
    "MAX_REASON",
    "BadRequest",
    "MatchSettings",
    "check_bot_text",
    "check_name",
]

MAX_ISMCTS = 2000
"""The most iterations an ``ismcts:N`` bot may search a move on a server."""
MAX_REASON = 200
"""The most characters of a bot's own reason for refusing a match that a
refusal quotes."""
MAX_SECONDS = 7 * 24 * 3600.0
"""The longest clock a match may set: a week."""
_RULE_OPTIONS = (
    "end_threshold",
    "hand_limit",
    "setup_requests",
    "setup_feed",
    "reshuffle_mid_forming",
)
OnTimeout = Literal["bot", "forfeit"]


class BadRequest(TroedlerError):
    """A request the server refuses and changes nothing for; ``status`` is the
    HTTP status, ``code`` a short word a client can test."""

    def __init__(self, message: str, *, status: int = 400, code: str = "bad_request") -> None:
        super().__init__(message)
        self.status = status
        self.code = code


def check_bot_text(
    text: object,
    *,
    allow_exec: bool,
    field: str,
    any_bot: bool = False,
    players: int | None = None,
) -> str:
    """``text`` if it names a bot this server may run; :class:`BadRequest` otherwise.

    ``any_bot`` (a private server's) takes any bot
    :func:`troedler.bot_from_text` makes, which it makes once now to check it.
    With ``players``, a bot that cannot play games of that many players is
    refused too, with its own reason (:func:`troedler.bots.base.check_players`);
    an ``exec:`` program is not started to be asked."""
    if not isinstance(text, str) or not 0 < len(text) <= 200:
        raise BadRequest(f"{field}: expected a bot's name, not {quote(text)}")
    key, colon, rest = text.strip().partition(":")
    key = key.lower()
    if any_bot and key != "exec":
        _check_made(text.strip(), players, field)
        return text.strip()
    if key in ("random", "greedy", "neural") and not colon:
        named = key
    elif key == "neural":
        raise BadRequest(
            f"{field}: neural plays the networks that ship with troedler; "
            "a server reads no weight file a request names"
        )
    elif key == "ismcts":
        iterations, guided, guide = rest.partition(":")
        if colon and not (
            iterations.isdecimal() and len(iterations) <= 5 and 1 <= int(iterations) <= MAX_ISMCTS
        ):
            raise BadRequest(
                f"{field}: ismcts:N searches 1 to {MAX_ISMCTS} iterations, not {quote(iterations)}"
            )
        guide = guide.strip().lower()
        if guided and guide.startswith("neural:"):
            raise BadRequest(
                f"{field}: ismcts:N:neural is guided by the networks that ship with troedler; "
                "a server reads no weight file a request names"
            )
        if guided and guide != "neural":
            raise BadRequest(f"{field}: a search is guided by neural, as ismcts:N:neural")
        named = key if not colon else f"ismcts:{int(iterations)}" + (":neural" if guided else "")
    elif key == "exec" and rest.strip():
        if not allow_exec:
            raise BadRequest(
                f"{field}: this server does not run program bots", status=403, code="forbidden"
            )
        return text.strip()
    else:
        raise BadRequest(
            f"{field}: the bots are random, greedy, ismcts:N, neural and ismcts:N:neural, "
            f"not {quote(text)}"
        )
    if players is not None:
        _check_made(named, players, field)
    return named


def _check_made(text: str, players: int | None, field: str) -> None:
    """Make the bot ``text`` names, and ask it whether it plays ``players``
    (if given); a :class:`BadRequest` naming ``field`` with its reason if not."""
    try:
        bot = bot_from_text(text)
        if players is not None:
            check_players(bot, players)
    except TroedlerError as error:
        reason = " ".join(str(error).split())
        raise BadRequest(f"{field}: {reason[:MAX_REASON]}") from None


def check_name(name: object) -> str:
    """``name`` if it is a seat name; :class:`BadRequest` otherwise."""
    problem = seat_name_problem(name)
    if problem is not None or not isinstance(name, str):
        raise BadRequest(f"name: {problem}")
    return name


def _seconds(data: dict[str, Any], key: str) -> float | None:
    value = data.get(key)
    if value is None:
        return None
    if type(value) not in (int, float) or not 1 <= value <= MAX_SECONDS:
        raise BadRequest(f"clock.{key}: expected 1 to {MAX_SECONDS:g} seconds, not {quote(value)}")
    return float(value)


@attrs.frozen
class MatchSettings:
    """How a match is played and who may see it."""

    players: int
    """2 to 4 (S1)."""
    bots: tuple[str | None, ...]
    """Each seat's bot, None for a person's seat."""
    rules: dict[str, Any] = attrs.field(factory=dict)
    """Options given to :meth:`troedler.Rules.for_players`."""
    recall: Recall = "perfect"
    """What each seat is shown: see :func:`troedler.observe`."""
    public: bool = True
    """Listed in the lobby; else found only by its invitation link."""
    spectators: bool = True
    """Whether anyone with the link may watch."""
    move_seconds: float | None = None
    """Time for each decision, or None."""
    game_seconds: float | None = None
    """Each seat's time for the whole game, or None."""
    on_timeout: OnTimeout = "bot"
    """When a seat's time runs out: its stand-in bot moves for it, or it forfeits."""
    stand_in: str = "random"
    """The bot that moves for a seat out of time or whose player has left."""

    def make_rules(self) -> Rules:
        """The match's :class:`~troedler.Rules`."""
        return Rules.for_players(self.players, **self.rules)

    @property
    def people(self) -> int:
        """How many seats are for people."""
        return sum(bot is None for bot in self.bots)

    def to_data(self) -> dict[str, Any]:
        """As JSON data, for the database and the lobby."""
        return {
            "players": self.players,
            "bots": list(self.bots),
            "rules": dict(self.rules),
            "recall": self.recall,
            "public": self.public,
            "spectators": self.spectators,
            "clock": {
                "move_seconds": self.move_seconds,
                "game_seconds": self.game_seconds,
                "on_timeout": self.on_timeout,
                "stand_in": self.stand_in,
            },
        }

    @classmethod
    def from_data(cls, data: object, *, allow_exec: bool, any_bot: bool = False) -> MatchSettings:
        """The settings a create request (or the database) gives, all checked
        (``any_bot``: see :func:`check_bot_text`)."""
        if not isinstance(data, dict):
            raise BadRequest("expected a JSON object")
        unknown = set(data) - {
            "players",
            "bots",
            "rules",
            "recall",
            "public",
            "spectators",
            "clock",
        }
        if unknown:
            raise BadRequest(f"unknown field {quote(sorted(map(str, unknown))[0])}")
        players = data.get("players", 2)
        if type(players) is not int or players not in PLAYER_COUNTS:
            raise BadRequest(f"players: S1: 2, 3 or 4 players, not {quote(players)}")
        given = data.get("bots", [])
        if not isinstance(given, list) or len(given) > players:
            raise BadRequest(f"bots: expected a list of at most {players} bots or nulls")
        given = given + [None] * (players - len(given))
        bots = tuple(
            None
            if bot is None
            else check_bot_text(
                bot, allow_exec=allow_exec, field=f"bots[{i}]", any_bot=any_bot, players=players
            )
            for i, bot in enumerate(given)
        )
        if all(bot is not None for bot in bots):
            raise BadRequest("bots: a match needs at least one seat for a person")
        rules = data.get("rules", {})
        if not isinstance(rules, dict) or not set(rules) <= set(_RULE_OPTIONS):
            raise BadRequest(f"rules: the options are {', '.join(_RULE_OPTIONS)}")
        try:
            Rules.for_players(players, **rules)
        except ConfigurationError as error:
            raise BadRequest(f"rules: {error}") from None
        recall = data.get("recall", "perfect")
        if recall not in RECALLS:
            raise BadRequest(f"recall: one of {', '.join(RECALLS)}, not {quote(recall)}")
        flags = {}
        for key in ("public", "spectators"):
            value = data.get(key, True)
            if type(value) is not bool:
                raise BadRequest(f"{key}: true or false, not {quote(value)}")
            flags[key] = value
        clock = data.get("clock", {})
        if not isinstance(clock, dict) or not set(clock) <= {
            "move_seconds",
            "game_seconds",
            "on_timeout",
            "stand_in",
        }:
            raise BadRequest("clock: move_seconds, game_seconds, on_timeout and stand_in")
        on_timeout = clock.get("on_timeout", "bot")
        if on_timeout not in ("bot", "forfeit"):
            raise BadRequest(f"clock.on_timeout: 'bot' or 'forfeit', not {quote(on_timeout)}")
        stand_in = check_bot_text(
            clock.get("stand_in", "random"),
            allow_exec=False,
            field="clock.stand_in",
            players=players,
        )
        return cls(
            players=players,
            bots=bots,
            rules=dict(rules),
            recall=cast(Recall, recall),
            public=flags["public"],
            spectators=flags["spectators"],
            move_seconds=_seconds(clock, "move_seconds"),
            game_seconds=_seconds(clock, "game_seconds"),
            on_timeout=cast(OnTimeout, on_timeout),
            stand_in=stand_in,
        )

    @classmethod
    def stored(cls, data: dict[str, Any]) -> MatchSettings:
        """Settings read back from the database (checked when they were stored)."""
        clock = data["clock"]
        return cls(
            players=data["players"],
            bots=tuple(data["bots"]),
            rules=data["rules"],
            recall=data["recall"],
            public=data["public"],
            spectators=data["spectators"],
            move_seconds=clock["move_seconds"],
            game_seconds=clock["game_seconds"],
            on_timeout=clock["on_timeout"],
            stand_in=clock["stand_in"],
        )
