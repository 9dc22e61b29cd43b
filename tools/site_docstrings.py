"""Read troedler's reStructuredText-flavoured docstrings as Markdown.

The docstrings are written for ``help()`` and doctest, in the conventions of
the standard library: ``:class:`GameState``` roles, ``>>>`` examples and
``text::`` before an indented literal block. mkdocstrings renders docstrings
as Markdown, where a role would show as text and ``>>>`` as nested quotes.
This griffe extension rewrites each docstring once the package is loaded:

- a role becomes a link to the named object when the site documents it, and
  plain code otherwise (an optional cross-reference, so ``--strict`` builds
  do not fail on names the reference leaves out);
- a run of ``>>>`` lines and their output becomes a ``pycon`` code block;
- ``text::`` becomes ``text:``, since the indented block after it is already
  code in Markdown.

It also gives each attrs class the ``__init__`` signature attrs will make
for it (its fields in order, with their types and defaults), which griffe
cannot see in the source.

The source stays as it is: ``help()`` and the doctests read it unchanged.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator

import griffe

ROLE = re.compile(r":(?:class|func|meth|attr|data|exc|mod|obj|const):`(~?)([^`]+)`")


class RestructuredRoles(griffe.Extension):
    """Rewrites every docstring of a loaded package from rST habits to Markdown."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: object) -> None:
        for obj in _walk(pkg):
            if obj.docstring is not None:
                obj.docstring.value = to_markdown(obj.docstring.value, obj)
            if isinstance(obj, griffe.Class) and _is_attrs_class(obj):
                _add_attrs_init(obj)


ATTRS_DECORATORS = ("attrs.frozen", "attrs.define", "attrs.mutable")


def _is_attrs_class(cls: griffe.Class) -> bool:
    return "__init__" not in cls.members and any(
        str(decorator.value).startswith(ATTRS_DECORATORS) for decorator in cls.decorators
    )


def _add_attrs_init(cls: griffe.Class) -> None:
    """Give ``cls`` the ``__init__`` that attrs generates from its fields."""
    parameters = [griffe.Parameter("self", kind=griffe.ParameterKind.positional_or_keyword)]
    for member in cls.members.values():
        if member.is_alias or not isinstance(member, griffe.Attribute):
            continue
        # Fields are annotated names of the class body; griffe labels a
        # ClassVar a class attribute only, and a property a property.
        if "instance-attribute" not in member.labels or "property" in member.labels:
            continue
        default: str | griffe.Expr | None = member.value
        if isinstance(default, griffe.ExprCall) and str(default.function) == "attrs.field":
            keywords = {
                argument.name: argument.value
                for argument in default.arguments
                if isinstance(argument, griffe.ExprKeyword)
            }
            if str(keywords.get("init")) == "False":
                continue
            default = keywords.get("default")
            if "factory" in keywords:
                default = f"{keywords['factory']}()"
        parameters.append(
            griffe.Parameter(
                member.name.lstrip("_"),
                annotation=member.annotation,
                kind=griffe.ParameterKind.positional_or_keyword,
                default=default,
            )
        )
    init = griffe.Function(
        "__init__", parameters=griffe.Parameters(*parameters), returns="None", parent=cls
    )
    cls.set_member("__init__", init)


def _walk(obj: griffe.Object) -> Iterator[griffe.Object]:
    yield obj
    for member in obj.members.values():
        if not member.is_alias and member.parent is obj:
            yield from _walk(member)  # type: ignore[arg-type]


def to_markdown(text: str, scope: griffe.Object | None = None) -> str:
    """The Markdown reading of one docstring written in rST habits."""
    text = ROLE.sub(lambda match: _reference(match, scope), text)
    return "\n".join(_fence_examples(text.split("\n"))).replace("::\n", ":\n")


def _reference(match: re.Match[str], scope: griffe.Object | None) -> str:
    short, name = match.group(1) == "~", match.group(2)
    shown = name.rsplit(".", 1)[-1] if short else name
    target = _resolve(name, scope)
    code = f"<code>{html.escape(shown)}</code>"
    if target is None:
        return code
    return f'<autoref identifier="{html.escape(target)}" optional>{code}</autoref>'


def _resolve(name: str, scope: griffe.Object | None) -> str | None:
    if name.startswith("troedler."):
        return name
    if scope is None:
        return None
    first, dot, rest = name.partition(".")
    try:
        path = scope.resolve(first)
    except (griffe.NameResolutionError, AttributeError, KeyError):
        return None
    return f"{path}{dot}{rest}"


def _fence_examples(lines: list[str]) -> Iterator[str]:
    """Wrap each run of doctest lines (up to the next blank line) in a fence."""
    inside = False
    for line in lines:
        if not inside and line.lstrip().startswith(">>>"):
            inside = True
            yield "```pycon"
        elif inside and not line.strip():
            inside = False
            yield "```"
        yield line
    if inside:
        yield "```"
