"""Captions to labels: the group a caption names and the objects it mentions."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from biasamp.text._lexicons import COCO_TASK_WORDS, DIRECTIONAL_GROUP_WORDS
from biasamp.text._tokenize import Lexicon, Vocabulary, as_caption_rows, as_lexicon, count_phrases

__all__ = ["CaptionLabels", "caption_labels", "resolve_lexicons"]

#: ``group_status`` values.
STATUS_ONE, STATUS_NONE, STATUS_CONFLICT = "one", "none", "conflict"


@dataclass(frozen=True)
class CaptionLabels:
    """What :func:`caption_labels` read from each row of captions.

    Attributes
    ----------
    groups : pandas.Series of shape (n_rows,), dtype "string"
        The group the row's captions name, ``<NA>`` where they name none or
        more than one.
    group_status : pandas.Series of shape (n_rows,)
        ``"one"``, ``"none"`` (no gendered word) or ``"conflict"`` (words of two
        groups, in one caption or across the row's captions).
    tasks : pandas.DataFrame of shape (n_rows, n_tasks), dtype int8
        1 where a caption of the row mentions the task (the union over the row's
        captions).
    group_hits : pandas.DataFrame of shape (n_rows, n_groups), dtype int8
        1 where a caption of the row holds a word of the group.
    """

    groups: pd.Series
    group_status: pd.Series
    tasks: pd.DataFrame
    group_hits: pd.DataFrame

    @property
    def has_group(self) -> np.ndarray:
        """Boolean mask of shape (n_rows,): the rows whose captions name exactly one group."""
        return (self.group_status == STATUS_ONE).to_numpy()

    def counts(self) -> dict[str, int]:
        """Rows per ``group_status`` value: ``{"one": ..., "none": ..., "conflict": ...}``."""
        found = self.group_status.value_counts()
        return {s: int(found.get(s, 0)) for s in (STATUS_ONE, STATUS_NONE, STATUS_CONFLICT)}


def resolve_lexicons(
    group_words: Mapping[Any, Any] | None, task_words: Mapping[Any, Any] | Sequence[str] | None
) -> tuple[Lexicon, Lexicon]:
    """The group and task lexicons, defaults filled in and checked."""
    groups = as_lexicon(
        DIRECTIONAL_GROUP_WORDS if group_words is None else group_words, arg="group_words"
    )
    tasks = as_lexicon(
        COCO_TASK_WORDS if task_words is None else task_words, arg="task_words", allow_names=True
    )
    return groups, tasks


def caption_labels(
    captions: Any,
    *,
    group_words: Mapping[Any, Any] | None = None,
    task_words: Mapping[Any, Any] | Sequence[str] | None = None,
    mask: bool = False,
) -> CaptionLabels:
    """Read the group and the objects out of each caption (or each row of captions).

    A caption names a group when it holds one of the group's words, and mentions
    a task when it holds one of the task's words or phrases. Matching ignores
    case and punctuation and is by whole words ("cart" is not "car"); where
    phrases overlap the longest wins ("hot dog" is not "dog"). Parsing is
    vectorised: one million captions take about 4 s (``benchmarks/bench_captions.py``).

    Parameters
    ----------
    captions : sequence of str, or of lists of str, shape (n_rows,)
        One caption per row, or several captions of the same image per row (a
        list). For a row of several captions the tasks are the union, and the
        group is ``<NA>`` when the captions name different groups (as the
        directional paper's parser reads the five human captions of an image).
        A pandas Series keeps its index.
    group_words : dict {group: [words]}, optional
        Default: the directional paper's lists, ``{"man": ["man", "boy",
        "gentleman", "male", "men"], "woman": ["woman", "girl", "lady",
        "female", "women"]}``.
    task_words : dict {task: [words or phrases]} or list of names, optional
        Default: the 80 COCO categories with plurals and common synonyms
        (``biasamp.text.COCO_TASK_WORDS``; keys spelt as in the bundled COCO
        labels, ``"hot_dog"``). A plain list of names matches each name as a
        whole-word phrase (an underscore reads as a space) and its plural only.
    mask : bool, default False
        Remove the group words before the tasks are read, so that a group word
        never counts as a task mention (for example when "man" is also a
        synonym of a "person" task).

    Returns
    -------
    CaptionLabels
        ``groups``, ``group_status``, ``tasks`` and ``group_hits``.

    Raises
    ------
    TypeError, ValueError
        Captions that are not strings (or non-empty lists of strings), and
        lexicons with an empty word or a word under two labels; the message
        names the argument and the row.

    Examples
    --------
    >>> from biasamp.text import caption_labels
    >>> labels = caption_labels(
    ...     ["A man eating a hot dog.", "Two women and a dog", "a girl and a boy", "a cart"],
    ...     task_words=["dog", "hot_dog", "car"])
    >>> labels.groups.tolist()
    ['man', 'woman', <NA>, <NA>]
    >>> labels.group_status.tolist()
    ['one', 'one', 'conflict', 'none']
    >>> labels.tasks.to_numpy().tolist()
    [[0, 1, 0], [1, 0, 0], [0, 0, 0], [0, 0, 0]]
    """
    flat, row, index = as_caption_rows(captions, arg="captions")
    groups_lex, tasks_lex = resolve_lexicons(group_words, task_words)
    vocabulary = Vocabulary.build(groups_lex, tasks_lex)
    counts = count_phrases(flat, vocabulary, arg="captions")
    group_map, task_map = vocabulary.maps
    if mask:
        is_group_word = np.asarray(group_map.sum(axis=1)).ravel() > 0
        task_map = sp.diags((~is_group_word).astype(np.int32), dtype=np.int32) @ task_map
    n_rows = len(index)
    if len(row) != n_rows or not np.array_equal(row, np.arange(n_rows)):
        rows = sp.csr_matrix(
            (np.ones(len(row), dtype=np.int32), (row, np.arange(len(row)))),
            shape=(n_rows, len(row)),
        )
        counts = rows @ counts
    hits = ((counts @ group_map).toarray() > 0).astype(np.int8)
    tasks = ((counts @ task_map).toarray() > 0).astype(np.int8)
    n_hit = hits.sum(axis=1)
    status = np.where(n_hit == 1, STATUS_ONE, np.where(n_hit == 0, STATUS_NONE, STATUS_CONFLICT))
    labels = np.array(groups_lex.labels, dtype=object)
    group = np.where(n_hit == 1, labels[hits.argmax(axis=1)], None)
    return CaptionLabels(
        groups=pd.Series(group, index=index, name="group", dtype="string"),
        group_status=pd.Series(status, index=index, name="group_status"),
        tasks=pd.DataFrame(tasks, index=index, columns=list(tasks_lex.labels)),
        group_hits=pd.DataFrame(hits, index=index, columns=list(groups_lex.labels)),
    )
