"""The page as one self-contained document: its files inlined, with the data
it shows written into it (a replay of a game).

Its content security policy names the hashes of its own script and style
and lets it load nothing at all, so it works offline and from an
attachment.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json

from troedler.client.files import asset

__all__ = ["standalone"]

_STYLE_TAG = '<link rel="stylesheet" href="client/client.css">'
_DRAW_TAG = '<script src="client/draw.js" defer></script>'
_LIVE_TAG = '<script src="client/live.js" defer></script>'


def _script_json(data: object) -> str:
    """JSON safe inside a script element: no ``</script>`` can end it early."""
    text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    return text.replace("</", "<\\/").replace("<!--", "\\u003c!--")


def _hash(text: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode() + "'"


def standalone(data: object, title: str) -> str:
    """The page, titled ``title``, with its style and the scripts that draw
    and step a replay inlined, and ``data`` (JSON data: what
    ``replay.js`` reads) written into it; as HTML text."""
    page = asset("page.html")
    style, draw, stepper = asset("client.css"), asset("draw.js"), asset("replay.js")
    policy = (
        "default-src 'none'; "
        f"script-src {_hash(draw)} {_hash(stepper)}; style-src {_hash(style)}; "
        "img-src data:; base-uri 'none'; form-action 'none'"
    )
    for tag in (_STYLE_TAG, _DRAW_TAG, _LIVE_TAG, "<title>troedler</title>", "</body>"):
        if page.count(tag) != 1:
            raise RuntimeError(f"the page's file lacks {tag}")  # pragma: no cover
    page = page.replace(
        '<meta charset="utf-8">',
        f'<meta charset="utf-8">\n<meta http-equiv="Content-Security-Policy" content="{policy}">',
    )
    page = page.replace("<title>troedler</title>", f"<title>{html.escape(title)}</title>")
    page = page.replace(_STYLE_TAG, f"<style>{style}</style>")
    page = page.replace(_DRAW_TAG, f"<script>{draw}</script>")
    page = page.replace(_LIVE_TAG, "")
    return page.replace(
        "</body>",
        f'<script type="application/json" id="replay-data">{_script_json(data)}</script>\n'
        f"<script>{stepper}</script>\n</body>",
    )
