"""The one place where the library's keywords become the command line's flags.

The library's messages name the keywords of :func:`biasamp.audit` and of the
file readers (``pred=``, ``id='image_id'``, ``stream="off"``); the command line
shows them as its flags (``--pred``, ``--id 'image_id'``, ``--stream off``).
:func:`to_flags` rewrites a message; every error and warning the command line
prints passes through it, and :data:`KEYWORD_FLAGS` is the whole dictionary.
"""

from __future__ import annotations

import re

__all__ = ["KEYWORD_FLAGS", "flag_for", "to_flags"]

#: The keywords whose flag is not ``--`` + the keyword with ``-`` for ``_``.
_RENAMED = {"metrics": "--metric", "random_state": "--seed"}

#: Every keyword a library message may name, and its flag.
KEYWORD_FLAGS: dict[str, str] = {
    name: _RENAMED.get(name, "--" + name.replace("_", "-"))
    for name in (
        "group",
        "group_cols",
        "task",
        "task_cols",
        "task_prefix",
        "tasks_long",
        "pred_prefix",
        "pred",
        "pred_tasks_long",
        "id",
        "train",
        "train_tasks_long",
        "long_label",
        "delimiter",
        "chunk_size",
        "missing",
        "metrics",
        "threshold",
        "thresholds",
        "calibrate_on",
        "calibrate_pred",
        "positive_group",
        "ties",
        "n_boot",
        "n_perm",
        "ci",
        "random_state",
        "n_iter",
        "margin",
        "min_cell",
        "min_group_size",
        "engine",
        "stream",
        "structure",
        "sep",
        "truth",
    )
}

# ``name=`` not preceded by a word character, ``-`` or ``.``; a double-quoted value
# (``stream="off"``) loses its quotes on the command line
_KEYWORD = re.compile(
    r"(?<![\w\-.])("
    + "|".join(sorted(map(re.escape, KEYWORD_FLAGS), key=len, reverse=True))
    + r')=(?:"([^"\s]*)")?'
)
_NO_SPACE_BEFORE = set(" \t\n,.;:)]") | {""}


def flag_for(keyword: str) -> str:
    """The flag of a keyword (``"random_state"`` -> ``"--seed"``)."""
    return KEYWORD_FLAGS[keyword]


def to_flags(message: str) -> str:
    """A library message with every ``keyword=`` written as its flag.

    Examples
    --------
    >>> to_flags("pred= needs id= (the column that joins the files).")
    '--pred needs --id (the column that joins the files).'
    >>> to_flags("id='image_id': 2 id(s) are missing; run with stream=\\"off\\"")
    "--id 'image_id': 2 id(s) are missing; run with --stream off"
    >>> to_flags('metrics="mals": needs training ground truth: train=.')
    '--metric mals: needs training ground truth: --train.'
    """

    def replace(match: re.Match[str]) -> str:
        flag = KEYWORD_FLAGS[match[1]]
        if match[2] is not None:
            return f"{flag} {match[2]}"
        following = message[match.end() : match.end() + 1]
        return flag if following in _NO_SPACE_BEFORE else flag + " "

    return _KEYWORD.sub(replace, message)
