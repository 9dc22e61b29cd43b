"""The bots of a tournament: bundled names, ``module:Class`` texts, factories, objects.

Every game gets bots of its own, made in the process that plays it, so no
game sees what a bot kept from another and the results do not depend on
which process played which game. What makes them must therefore travel to
worker processes: a text is resolved again there (its module imported by
name), a class or function is sent by reference (it must be importable, as
for :mod:`pickle`), and a bot object is copied for every game.
"""

from __future__ import annotations

import copy
import importlib
import pickle
import re
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

import attrs

from troedler.bots import BOTS, Bot, ISMCTSBot
from troedler.bots.base import check_bot, check_players, describe_error
from troedler.bots.program import program_bot
from troedler.core.errors import ConfigurationError

if TYPE_CHECKING:
    from troedler.bots.learned import ValueGuide

__all__ = ["BotLike", "Entrant", "bot_from_text", "entrant", "line_up"]

BotLike = Bot | Callable[[], Bot] | str
"""What a tournament accepts as a bot: an object, a factory, or a text
(``greedy``, ``ismcts:50``, ``neural:two.npz``, ``mybots:MyBot``,
``mybots:MyBot:ARG`` or ``exec:./mybot``)."""

_DOTTED = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*\Z")
MAX_TEXT = 200


@attrs.frozen
class Entrant:
    """One bot of a line-up: the name its figures are kept under, and its factory."""

    label: str
    """A text's own spelling (``ismcts:50``), else the bot's ``name``."""
    make: Callable[[], Bot]
    """Makes a new bot for a game; can be sent to worker processes."""


@attrs.frozen
class FromText:
    """Makes the bot a text names; the text is resolved in each process once."""

    text: str

    def __call__(self) -> Bot:
        return bot_from_text(self.text)


@attrs.frozen(eq=False)
class Copying:
    """Makes a fresh copy of one bot object for every game."""

    bot: Bot

    def __call__(self) -> Bot:
        return copy.deepcopy(self.bot)


_factories: dict[str, Callable[..., Any]] = {}


def bot_from_text(text: str) -> Bot:
    """A new bot from its text: a bundled name or ``module:Factory[:ARG]``.

    Bundled names are ``random``, ``greedy`` and ``ismcts`` (``ismcts:N``
    searches ``N`` iterations a move, ``ismcts:N:neural`` guided by the
    learned networks, ``ismcts:N:neural:PATH`` by a weight file's);
    ``exec:COMMAND`` runs a program
    (:func:`troedler.bots.program.program_bot`); ``neural`` is the learned
    bot with the networks that ship with troedler
    (``troedler.bots.learned.LearnedBot``, 2 and 4 players, with numpy) and
    ``neural:PATH`` plays a weight file of your own (a value network, or a
    policy for ``troedler.bots.neural.NeuralBot``). Anything else is
    ``module:Factory``:
    ``Factory`` (a class or function in the importable module ``module``) is
    called with no argument, or with the text ``ARG`` after a second colon.
    Raises :class:`ConfigurationError` saying what is wrong.
    """
    shown = repr(text[:MAX_TEXT] + ("..." if len(text) > MAX_TEXT else ""))
    key, _, rest = text.strip().partition(":")
    if not key:
        raise ConfigurationError("a bot needs a name: empty text given")
    if key.lower() in BOTS:
        return _bundled(key.lower(), rest, shown)
    if key.lower() == "exec":  # a program speaking docs/protocol.md
        return program_bot(rest)
    if key.lower() == "neural":
        return _neural(rest, shown)
    if not rest:
        raise ConfigurationError(
            f"no bot called {shown}; the bundled bots are {', '.join(BOTS)}, "
            "or name your own as module:Class"
        )
    attribute, _, argument = rest.partition(":")
    if not _DOTTED.match(key) or not _DOTTED.match(attribute):
        raise ConfigurationError(f"bad bot {shown}: expected module:Class or module:Class:ARG")
    bot = _call(_factory(key, attribute, shown), argument if ":" in rest else None, shown)
    check_bot(bot, text.strip())
    return bot


def _neural(path: str, shown: str) -> Bot:
    """The learned bot with the shipped networks, or the weight file at ``path``."""
    try:
        from troedler.bots.learned import LearnedBot, bot_from_weights  # noqa: PLC0415 - numpy
    except ImportError:
        raise ConfigurationError(f"bot {shown} needs numpy: pip install -e '.[rl]'") from None
    return LearnedBot() if not path else bot_from_weights(path)


def _bundled(key: str, parameter: str, shown: str) -> Bot:
    if key != "ismcts":
        if parameter:
            raise ConfigurationError(f"bad bot {shown}: {key} takes no parameter")
        return BOTS[key]()  # type: ignore[no-any-return]
    if not parameter:
        return ISMCTSBot()
    iterations, colon, guide = parameter.partition(":")
    if not iterations.strip().isdigit() or int(iterations) < 1:
        raise ConfigurationError(
            f"bad bot {shown}: the iterations of ismcts:N must be a whole number of at least 1"
        )
    if not colon:
        return ISMCTSBot(iterations=int(iterations))
    return _guide(guide, shown).search(int(iterations))


def _guide(text: str, shown: str) -> ValueGuide:
    """The learned value networks that guide a search: ``neural`` (the
    shipped ones) or ``neural:PATH`` (a value network's weight file)."""
    key, _, path = text.partition(":")
    if key.strip().lower() != "neural":
        raise ConfigurationError(
            f"bad bot {shown}: a search is guided by neural or neural:PATH, as ismcts:N:neural"
        )
    try:
        from troedler.bots.learned import ValueGuide  # noqa: PLC0415 - numpy
        from troedler.bots.value import load_value_network  # noqa: PLC0415 - numpy
    except ImportError:
        raise ConfigurationError(f"bot {shown} needs numpy: pip install -e '.[rl]'") from None
    return ValueGuide(load_value_network(path) if path else None)


def _factory(module: str, attribute: str, shown: str) -> Callable[..., Any]:
    key = f"{module}:{attribute}"
    if key in _factories:
        return _factories[key]
    try:
        found: Any = importlib.import_module(module)
    except ModuleNotFoundError as error:
        if error.name != module.partition(".")[0] and error.name != module:
            raise ConfigurationError(
                f"bot {shown}: module {module!r} needs {error.name!r}, which is not installed"
            ) from None
        raise ConfigurationError(
            f"bot {shown}: there is no module {module!r} on the Python path"
        ) from None
    except Exception as error:  # any failure to import is the user's module's
        raise ConfigurationError(
            f"bot {shown}: cannot import module {module!r} ({describe_error(error)})"
        ) from None
    for part in attribute.split("."):
        if not hasattr(found, part):
            raise ConfigurationError(f"bot {shown}: module {module!r} has no {attribute!r}")
        found = getattr(found, part)
    if not callable(found):
        raise ConfigurationError(f"bot {shown}: {attribute!r} is not a class or function")
    _factories[key] = found
    return found  # type: ignore[no-any-return]


def _call(factory: Callable[..., Any], argument: str | None, shown: str) -> Bot:
    try:
        bot = factory() if argument is None else factory(argument)
    except Exception as error:  # the user's constructor's own failure
        raise ConfigurationError(
            f"bot {shown} could not be made: {describe_error(error)}"
        ) from None
    return bot  # type: ignore[no-any-return]


def entrant(bot: BotLike, players: int | None = None) -> Entrant:
    """``bot`` as an entrant, made once here to check it: a bot without a
    name, a text that names no bot, or a bot that cannot play games of
    ``players`` (if given), is refused before any game."""
    if isinstance(bot, str):
        text = bot.strip()
        key, colon, rest = text.partition(":")
        if key.lower() in BOTS:
            text = key.lower() + colon + rest
        _checked(bot_from_text(text), players)
        return Entrant(text, FromText(text))
    if not isinstance(bot, type) and hasattr(bot, "choose"):
        return Entrant(_checked(bot, players), Copying(cast(Bot, bot)))
    if callable(bot):
        try:
            made = bot()
        except Exception as error:  # the user's factory's own failure
            raise ConfigurationError(
                f"bot factory {bot!r:.60} failed: {describe_error(error)}"
            ) from None
        return Entrant(_checked(made, players), bot)
    raise ConfigurationError(
        f"expected a bot, a bot factory or a bot's text, got {type(bot).__name__}"
    )


def _checked(bot: object, players: int | None) -> str:
    name = check_bot(bot)
    if players is not None:
        check_players(bot, players)
    return name


def line_up(
    bots: Sequence[BotLike], players: int | None = None
) -> tuple[tuple[str, ...], Mapping[str, Callable[[], Bot]]]:
    """The labels of ``bots`` in order, and the factory of each label.

    Entrants with the same label are one bot (their figures are counted
    together); two different bots under one label are refused, and so is
    a bot that cannot play games of ``players``, if given.
    """
    if isinstance(bots, str):
        raise ConfigurationError("bots must be a sequence of bots, not one text")
    labels: list[str] = []
    makers: dict[str, Callable[[], Bot]] = {}
    for bot in bots:
        one = entrant(bot, players)
        if one.label in makers and not _same(makers[one.label], one.make):
            raise ConfigurationError(
                f"two different bots are called {one.label!r}: give them different names"
            )
        makers.setdefault(one.label, one.make)
        labels.append(one.label)
    return tuple(labels), makers


def _same(one: Callable[[], Bot], other: Callable[[], Bot]) -> bool:
    if isinstance(one, Copying) and isinstance(other, Copying):
        if one.bot is other.bot:
            return True
        try:
            return bool(one.bot == other.bot) or (
                type(one.bot) is type(other.bot)
                and pickle.dumps(one.bot) == pickle.dumps(other.bot)
            )
        except Exception:  # a bot that cannot be compared or pickled is its own
            return False
    return one == other
