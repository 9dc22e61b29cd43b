"""Small helpers that write SVG elements with ElementTree, which escapes all text."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from troedler.goods import Good
from troedler.svg.style import GOOD_COLOURS, GOOD_NAMES, INK

__all__ = ["TOKEN", "done", "el", "num", "text", "token"]

TOKEN = 16.0
"""The side of a goods token on the map."""


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


def token(parent: ET.Element, x: float, y: float, good: Good, css: str = "") -> ET.Element:
    """A goods token: a square in the good's colour with its letter."""
    group = el(parent, "g", class_=f"good {GOOD_NAMES[good]}{css}", data_good=good.code)
    el(
        group,
        "rect",
        x=x,
        y=y,
        width=TOKEN,
        height=TOKEN,
        rx=3.0,
        fill=GOOD_COLOURS[good],
        stroke=INK,
        stroke_width=0.8,
    )
    text(
        group,
        x + TOKEN / 2,
        y + 12.2,
        good.code,
        size=11,
        text_anchor="middle",
        font_weight="bold",
        fill=INK if good is Good.CUP else "#ffffff",
    )
    return group
