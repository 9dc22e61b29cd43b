"""Small helpers that write SVG elements with ElementTree, which escapes all text."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from troedler.core.goods import Good
from troedler.svg.style import GOOD_COLOURS, GOOD_NAMES, INK

__all__ = ["SMALL_TOKEN", "TOKEN", "done", "el", "num", "text", "token", "token_defs"]

TOKEN = 16.0
"""The side of a goods token on the map."""
SMALL_TOKEN = 12.0
"""The side of a goods token on a card or in the panel."""


def num(value: float) -> str:
    """A coordinate with at most one decimal: the picture needs no more."""
    text = f"{value:.1f}"
    return text[:-2] if text.endswith(".0") else text


def el(parent: ET.Element | None, tag: str, /, **attributes: object) -> ET.Element:
    """An element with ``attributes`` (``class_`` for class, ``_`` for ``-``)."""
    items = {}
    for key, value in attributes.items():
        if value is None:
            continue
        name = key.rstrip("_").replace("_", "-")
        items[name] = num(value) if isinstance(value, float) else str(value)
    if parent is None:
        return ET.Element(tag, items)
    return ET.SubElement(parent, tag, items)


def text(
    parent: ET.Element, x: float, y: float, text: str, *, size: float = 13, **extra: object
) -> ET.Element:
    """A text element holding ``text`` (escaped when written)."""
    element = el(parent, "text", x=float(x), y=float(y), font_size=size, **extra)
    element.text = text
    return element


def done(element: ET.Element) -> str:
    """The element written out as SVG text."""
    return ET.tostring(element, encoding="unicode")


def token_defs() -> str:
    """The goods tokens, defined once per picture for :func:`token` to use.

    Two sizes: for the map (:data:`TOKEN`) and small, for cards and the panel.
    """
    defs = el(None, "defs")
    for good in Good:
        for suffix, side, font in (("", TOKEN, 11), ("-s", SMALL_TOKEN, 9)):
            group = el(defs, "g", id=f"troedler-good-{good.code}{suffix}")
            el(
                group,
                "rect",
                width=side,
                height=side,
                rx=side / 5,
                fill=GOOD_COLOURS[good],
                stroke=INK if not suffix else None,
                stroke_width=0.8 if not suffix else None,
            )
            text(
                group,
                side / 2,
                side * 0.76,
                good.code,
                size=font,
                text_anchor="middle",
                font_weight="bold",
                fill=INK if good is Good.CUP else "#ffffff",
            )
    return done(defs)


def token(
    parent: ET.Element, x: float, y: float, good: Good, css: str = "", *, small: bool = False
) -> ET.Element:
    """A goods token at (x, y): a square in the good's colour with its letter."""
    return el(
        parent,
        "use",
        href=f"#troedler-good-{good.code}{'-s' if small else ''}",
        x=float(x),
        y=float(y),
        class_=f"good {GOOD_NAMES[good]}{css}",
        data_good=good.code,
    )
