"""Untrusted text made safe to show: invisible and control characters escaped visibly.

Label names, column names and file paths come from the user's data. A label holding
a bidirectional control character (U+202E RIGHT-TO-LEFT OVERRIDE, for example)
reverses the text after it wherever it is shown, so one label could make the labels
around it read backwards; a zero-width character makes two different labels look
the same. Every place that shows such text (the HTML report, the terminal tables,
plot labels) passes it through :func:`display_text`, which replaces each of these
characters by a visible escape such as ``\\u202e``.

Escaped: the Unicode categories Cc (controls: C0, DEL, C1), Cf (format characters:
bidirectional embeddings, overrides and isolates, zero-width spaces and joiners, the
byte-order mark, tag characters), Zl and Zp (line and paragraph separators), Cs
(lone surrogates, which cannot be encoded) and Co (private use), and the default
ignorable letters that render as nothing (Hangul fillers, U+034F, U+17B4/5). Tab,
line feed and carriage return are shown as ``\\t``, ``\\n``, ``\\r``; every other
character as ``\\uXXXX`` (``\\UXXXXXXXX`` above the BMP). Other text is unchanged.

:func:`distinct_short_texts` shortens labels for plots so that different labels stay
different once shortened.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from typing import Any

__all__ = ["INVISIBLE_CATEGORIES", "display_text", "distinct_short_texts", "short_text"]

#: Unicode categories escaped by :func:`display_text`.
INVISIBLE_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp", "Cs", "Co"})

#: Default-ignorable code points outside those categories (they render as nothing).
_INVISIBLE_LETTERS = frozenset(
    {0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x3164, 0xFFA0, 0x180B, 0x180C, 0x180D, 0x180F}
)

_SHORT = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}

ELLIPSIS = "…"


def _hidden(char: str) -> bool:
    return unicodedata.category(char) in INVISIBLE_CATEGORIES or ord(char) in _INVISIBLE_LETTERS


def _escape(char: str) -> str:
    if char in _SHORT:
        return _SHORT[char]
    code = ord(char)
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def display_text(value: Any, *, keep: str = "") -> str:
    """``str(value)`` with every invisible or control character escaped visibly.

    Parameters
    ----------
    value : any
        A label, column name, path or message (``str()`` is applied).
    keep : str, default ""
        Characters left as they are (``"\\n"`` for a message meant to span lines).

    Returns
    -------
    str
        The text, each character of :data:`INVISIBLE_CATEGORIES` (and the
        invisible default-ignorable letters) replaced by ``\\t``, ``\\n``, ``\\r``
        or ``\\uXXXX`` / ``\\UXXXXXXXX``.

    Examples
    --------
    >>> display_text("man\\u202eevil")
    'man\\\\u202eevil'
    >>> display_text("tab\\there"), display_text("café ☕")
    ('tab\\\\there', 'café ☕')
    """
    text = str(value)
    # fast path: printable text (isprintable is False for every category escaped here)
    if text.isprintable() and not any(ord(c) in _INVISIBLE_LETTERS for c in text):
        return text
    return "".join(_escape(c) if _hidden(c) and c not in keep else c for c in text)


def short_text(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, the last one an ellipsis when cut."""
    return text if len(text) <= limit else text[: max(limit - 1, 0)] + ELLIPSIS


def _middle_cut(text: str, limit: int) -> str:
    """The start and the end of ``text`` around an ellipsis, ``limit`` characters in all."""
    if len(text) <= limit:
        return text
    head = (limit - 1) // 2
    tail = limit - 1 - head
    return text[:head] + ELLIPSIS + (text[-tail:] if tail else "")


def distinct_short_texts(values: Iterable[Any], limit: int) -> list[str]:
    """Labels shown safely (:func:`display_text`) and shortened, different labels kept different.

    Each label is cut to ``limit`` characters with an ellipsis at the end. Labels that
    would then look the same although they differ are shown by their start and
    end around an ellipsis instead (labels often share a long prefix); if that still
    collides, `` #k`` (``k`` the label's position among the distinct labels, from 1)
    ends the shortened text. Equal labels give equal texts.

    Parameters
    ----------
    values : iterable of labels
    limit : int
        Characters per label (a label suffixed ``#k`` may be a few characters longer).

    Returns
    -------
    list of str, one per value

    Examples
    --------
    >>> distinct_short_texts(["man x a rather long object name one",
    ...                       "man x a rather long object name two"], 20)
    ['man x a r…t name one', 'man x a r…t name two']
    """
    values = [str(v) for v in values]
    unique = list(dict.fromkeys(values))
    shown = {v: display_text(v) for v in unique}
    short = {v: short_text(shown[v], limit) for v in unique}
    clashes = _clashes(unique, short)
    if clashes:
        for v in clashes:
            short[v] = _middle_cut(shown[v], limit)
    number = {v: i for i, v in enumerate(unique, start=1)}
    while clashes := _clashes(unique, short):  # ends: the numbers differ between labels
        for v in clashes:
            short[v] = f"{short[v]} #{number[v]}"
    return [short[v] for v in values]


def _clashes(unique: list[str], short: dict[str, str]) -> list[str]:
    """The labels whose shortened text another label also has."""
    seen: dict[str, list[str]] = {}
    for v in unique:
        seen.setdefault(short[v], []).append(v)
    return [v for group in seen.values() if len(group) > 1 for v in group]
