"""Reading captions: the one place where text becomes tokens, phrases and counts.

Every text function of :mod:`biasamp.text` goes through here, so they all read a
caption the same way:

* **Normalisation** (:func:`normalize_caption`, the one function every caption,
  group word, task word, mask word and vocabulary goes through). Case is folded
  with :meth:`str.casefold`; every ASCII punctuation mark, the underscore, common
  typographic marks (curly quotes, dashes, ellipsis), every control character
  and every character :meth:`str.split` treats as whitespace (tabs, line
  breaks, U+0085, the no-break space U+00A0, the thin space U+2009, U+2028,
  the ideographic space U+3000, ...) become a space. "Man's" reads as
  "man s", "hot-dog" as "hot dog", "hot_dog" and "hot\u00a0dog" as "hot dog".
  The NUL character is biasamp's separator between captions and is refused.
* **Whole words and phrases.** A lexicon entry is a word or a phrase of several
  words; it matches only whole words ("cart" is not "car", "carrot" is not
  "car"). Where phrases overlap, the longest one starting at the leftmost
  position wins ("hot dog" is one mention of hot dog, not of dog).
* **Vectorised.** All captions are joined into one string with a separator
  token, normalised with one ``str.translate``, multi-word phrases are joined by
  one regular expression, the string is split once and the tokens are looked up
  in the fixed vocabulary with one hash pass (:func:`pandas.factorize`, then the few distinct tokens
  looked up in the vocabulary);
  the counts are one sparse matrix. There is no Python loop per caption or word
  (large inputs are processed in chunks of :data:`CHUNK` captions).
"""

from __future__ import annotations

import re
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from biasamp.inputs._keys import key_names
from biasamp.inputs._readers import (
    ERR_CAPTION_EMPTY_LIST,
    ERR_CAPTION_ITEM,
    ERR_CAPTION_ROW,
    ERR_CAPTIONS_TYPE,
)
from biasamp.inputs._readers import ERR_NO_CAPTIONS as ERR_NO_ROWS
from biasamp.inputs._readers import read_captions as as_caption_rows

__all__ = [
    "CHUNK",
    "ERR_CAPTIONS_TYPE",
    "ERR_CAPTION_EMPTY_LIST",
    "ERR_CAPTION_ITEM",
    "ERR_CAPTION_ROW",
    "ERR_NO_ROWS",
    "SEPARATOR",
    "Lexicon",
    "Vocabulary",
    "as_caption_rows",
    "as_lexicon",
    "count_phrases",
    "mask_words",
    "normalize_caption",
    "normalize_phrase",
    "plural",
]

#: Captions processed per chunk (bounds the memory of the token list).
CHUNK = 250_000

ERR_CAPTION_NUL = "{arg}: a caption contains the NUL character '\\x00', which biasamp reserves."
ERR_TEXT_NUL = "{arg}: {text!r} contains the NUL character '\\x00', which biasamp reserves."
ERR_LEXICON_TYPE = "{arg}: expected a dict {{label: [words or phrases]}}{alt}, got {got}."
ERR_LEXICON_WORDS = (
    "{arg}: the words of {label!r} must be a non-empty list of strings, got {got!r}."
)
ERR_LEXICON_EMPTY_WORD = "{arg}: {label!r} has an empty word {word!r} (nothing left to match)."
ERR_LEXICON_TWICE = "{arg}: the word {word!r} is listed under both {first!r} and {second!r}."
ERR_LEXICON_EMPTY = "{arg}: no labels (an empty lexicon)."

#: The separator token between captions in the joined string (never a caption character).
SEPARATOR = "\x00"

_EXTRA_MARKS = "\u2018\u2019\u201c\u201d\u2013\u2014\u2026\u00b4\u0060"
#: Every character ``str.split()`` splits on (the Unicode spaces and line separators):
#: ``"".join(chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace())``, written out
#: (a test checks it against that expression).
UNICODE_SPACES = (
    "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004"
    "\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
_TO_SPACE = str.maketrans(
    {c: " " for c in string.punctuation + UNICODE_SPACES + _EXTRA_MARKS}
    | {chr(c): " " for c in range(1, 32)}
)


def _fold(text: str) -> str:
    """Case folded, punctuation and every Unicode space to " " (the separator is kept)."""
    return text.casefold().translate(_TO_SPACE)


def normalize_caption(text: str, *, arg: str = "caption") -> str:
    """A caption (or a word, a phrase) as biasamp's text functions read it.

    The one normaliser of :mod:`biasamp.text`: captions, group words, task
    words, mask words and vocabularies all go through it, so that one caption
    is read the same way by every function.

    Parameters
    ----------
    text : str
        A caption, a word or a phrase.
    arg : str, default "caption"
        The argument named by the error.

    Returns
    -------
    str
        ``text`` with its case folded (:meth:`str.casefold`) and every
        punctuation mark, control character and Unicode space (everything
        :meth:`str.split` splits on) replaced by one ``" "`` each.

    Raises
    ------
    ValueError
        ``text`` holds the NUL character (biasamp's separator between captions).

    Examples
    --------
    >>> from biasamp.text._tokenize import normalize_caption
    >>> normalize_caption("A\u00a0Hot-Dog\u3000STRASSE!").split()
    ['a', 'hot', 'dog', 'strasse']
    """
    if SEPARATOR in text:
        raise ValueError(ERR_TEXT_NUL.format(arg=arg, text=text))
    return _fold(text)


def normalize_phrase(phrase: str, *, arg: str = "words") -> str:
    """A lexicon entry as words separated by single spaces ("Hot_Dog!" -> "hot dog")."""
    return " ".join(normalize_caption(phrase, arg=arg).split())


_ES_ENDINGS = ("s", "x", "z", "ch", "sh")
_IRREGULAR = {"man": "men", "woman": "women", "person": "people", "child": "children",
              "mouse": "mice", "knife": "knives", "sheep": "sheep", "skis": "skis",
              "scissors": "scissors", "broccoli": "broccoli", "foot": "feet"}  # fmt: skip


def plural(phrase: str) -> str:
    """The English plural of a phrase's last word ("hot dog" -> "hot dogs", "bus" -> "buses").

    A small table of irregular nouns, then: ``-y`` after a consonant -> ``-ies``;
    ``-s``, ``-x``, ``-z``, ``-ch``, ``-sh`` -> ``+es``; otherwise ``+s``.
    """
    *head, last = phrase.split(" ")
    if last in _IRREGULAR:
        last = _IRREGULAR[last]
    elif last.endswith("y") and len(last) > 1 and last[-2] not in "aeiou":
        last = last[:-1] + "ies"
    elif last.endswith(_ES_ENDINGS):
        last += "es"
    else:
        last += "s"
    return " ".join([*head, last])


@dataclass(frozen=True)
class Lexicon:
    """Labels and the normalised phrases that name each label."""

    labels: tuple[str, ...]
    phrases: dict[str, tuple[str, ...]]


def as_lexicon(
    words: Mapping[Any, Any] | Sequence[str], *, arg: str, allow_names: bool = False
) -> Lexicon:
    """Check a lexicon and normalise its phrases.

    ``words`` is ``{label: [words or phrases]}``; with ``allow_names`` also a plain
    list of names, each matching itself (an underscore reads as a space) and its
    plural. A phrase under two labels raises a ValueError naming ``arg``.
    """
    alt = " or a list of names" if allow_names else ""
    if isinstance(words, Mapping):
        items = list(zip(key_names(words, arg=arg), words.values(), strict=True))
    elif allow_names and isinstance(words, (list, tuple)) and not isinstance(words, str):
        for name in words:
            if not isinstance(name, str):
                raise ValueError(ERR_LEXICON_WORDS.format(arg=arg, label=name, got=name))
        items = [(name, [name, plural(normalize_phrase(name, arg=arg))]) for name in words]
    else:
        raise TypeError(ERR_LEXICON_TYPE.format(arg=arg, alt=alt, got=type(words).__name__))
    if not items:
        raise ValueError(ERR_LEXICON_EMPTY.format(arg=arg))
    owner: dict[str, str] = {}
    phrases: dict[str, tuple[str, ...]] = {}
    for label, entries in items:
        if isinstance(entries, str) or not isinstance(entries, (list, tuple)) or not entries:
            raise ValueError(ERR_LEXICON_WORDS.format(arg=arg, label=label, got=entries))
        if not all(isinstance(e, str) for e in entries):
            raise ValueError(ERR_LEXICON_WORDS.format(arg=arg, label=label, got=entries))
        normal = []
        for entry in entries:
            phrase = normalize_phrase(entry, arg=arg)
            if not phrase:
                raise ValueError(ERR_LEXICON_EMPTY_WORD.format(arg=arg, label=label, word=entry))
            if owner.get(phrase, label) != label:
                raise ValueError(
                    ERR_LEXICON_TWICE.format(
                        arg=arg, word=phrase, first=owner[phrase], second=label
                    )
                )
            owner[phrase] = label
            if phrase not in normal:
                normal.append(phrase)
        phrases[str(label)] = tuple(normal)
    return Lexicon(labels=tuple(phrases), phrases=phrases)


@dataclass(frozen=True)
class Vocabulary:
    """A fixed phrase vocabulary and, per lexicon, which label each phrase names.

    ``tokens`` are the phrases with their words joined by ``_`` (after
    normalisation no caption token holds an underscore); ``maps[k]`` is a sparse
    (n_tokens, n_labels_k) 0/1 matrix for the k-th lexicon.
    """

    tokens: tuple[str, ...]
    maps: tuple[sp.csr_matrix, ...]
    pattern: re.Pattern[str] | None
    index: pd.Index

    @classmethod
    def build(cls, *lexicons: Lexicon) -> Vocabulary:
        phrases = sorted({p for lex in lexicons for ps in lex.phrases.values() for p in ps})
        tokens = tuple(p.replace(" ", "_") for p in phrases)
        position = {p: i for i, p in enumerate(phrases)}
        maps = []
        for lex in lexicons:
            rows = [position[p] for label in lex.labels for p in lex.phrases[label]]
            cols = [j for j, label in enumerate(lex.labels) for _ in lex.phrases[label]]
            maps.append(
                sp.csr_matrix(
                    (np.ones(len(rows), dtype=np.int32), (rows, cols)),
                    shape=(len(phrases), len(lex.labels)),
                )
            )
        multi = sorted((p for p in phrases if " " in p), key=lambda p: (-p.count(" "), -len(p)))
        pattern = None
        if multi:
            body = "|".join(" +".join(map(re.escape, p.split(" "))) for p in multi)
            pattern = re.compile(f"(?<![^ {SEPARATOR}])(?:{body})(?![^ {SEPARATOR}])")
        return cls(tokens, tuple(maps), pattern, pd.Index([*tokens, SEPARATOR]))


def _join_phrase(match: re.Match[str]) -> str:
    return "_".join(match.group(0).split())


def _joined(captions: Sequence[str], arg: str) -> str:
    text = f" {SEPARATOR} ".join(captions)
    if text.count(SEPARATOR) != len(captions) - 1:
        raise ValueError(ERR_CAPTION_NUL.format(arg=arg))
    return _fold(text)


def count_phrases(captions: Sequence[str], vocabulary: Vocabulary, *, arg: str) -> sp.csr_matrix:
    """(n_captions, n_tokens) counts of each vocabulary phrase in each caption."""
    parts = []
    n_tokens = len(vocabulary.tokens)
    for start in range(0, len(captions), CHUNK):
        chunk = captions[start : start + CHUNK]
        text = _joined(chunk, arg)
        if vocabulary.pattern is not None:
            text = vocabulary.pattern.sub(_join_phrase, text)
        codes, uniques = pd.factorize(np.array(text.split(), dtype=object))
        ids = vocabulary.index.get_indexer(pd.Index(uniques))[codes]
        is_sep = ids == n_tokens
        doc = np.cumsum(is_sep)
        keep = (ids >= 0) & ~is_sep
        parts.append(
            sp.csr_matrix(
                (np.ones(int(keep.sum()), dtype=np.int32), (doc[keep], ids[keep])),
                shape=(len(chunk), n_tokens),
            )
        )
    return sp.vstack(parts, format="csr") if parts else sp.csr_matrix((0, n_tokens))


def mask_words(
    captions: Sequence[str],
    words: Sequence[str],
    *,
    token: str,
    arg: str,
    words_arg: str = "mask_words",
) -> list[str]:
    """Normalised captions with every whole-word occurrence of ``words`` replaced by ``token``.

    The output words are separated by single spaces.
    """
    phrases = sorted(
        {normalize_phrase(w, arg=words_arg) for w in words},
        key=lambda p: (-p.count(" "), -len(p)),
    )
    body = "|".join(" +".join(map(re.escape, p.split(" "))) for p in phrases if p)
    out: list[str] = []
    for start in range(0, len(captions), CHUNK):
        text = _joined(captions[start : start + CHUNK], arg)
        if body:
            text = re.sub(f"(?<![^ {SEPARATOR}])(?:{body})(?![^ {SEPARATOR}])", token, text)
        text = " ".join(text.split())
        out.extend(part.strip() for part in text.split(SEPARATOR))
    return out
