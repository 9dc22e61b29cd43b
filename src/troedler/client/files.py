"""The page's files, read from the package."""

from __future__ import annotations

import functools
from importlib import resources

__all__ = ["ASSETS", "asset"]

ASSETS = {
    "page.html": "text/html; charset=utf-8",
    "client.css": "text/css; charset=utf-8",
    "draw.js": "text/javascript; charset=utf-8",
    "live.js": "text/javascript; charset=utf-8",
    "replay.js": "text/javascript; charset=utf-8",
}
"""The page's files and their media types."""


@functools.lru_cache(maxsize=8)
def asset(name: str) -> str:
    """The text of one of the page's files (:data:`ASSETS`); KeyError for any other name."""
    if name not in ASSETS:
        raise KeyError(name)
    return resources.files("troedler.client").joinpath(name).read_text(encoding="utf-8")
