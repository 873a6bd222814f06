"""Generated texts to groups: the route from a language model's outputs to ``groups``.

A generated text (a story about "the engineer", a biography) names a group when it
holds one of the group's words; the default words are the caption lexicon's
gender words with pronouns and nouns (:data:`LIC_GENDER_WORDS`: he, his, him,
man, father, ... and she, her, woman, mother, ...). The conflict rule is the
caption parser's (:func:`caption_labels`): a text with words of two groups, or
of none, has no group (``<NA>``), and is counted as ``"conflict"`` or
``"none"``. The groups then go to :func:`biasamp.output_amplification` or
:func:`biasamp.share_trajectory` with the texts that name one group.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from biasamp.text._caption_labels import STATUS_CONFLICT, STATUS_NONE, STATUS_ONE
from biasamp.text._lexicons import LIC_GENDER_WORDS
from biasamp.text._tokenize import Vocabulary, as_caption_rows, as_lexicon, count_phrases

__all__ = ["text_groups"]


def text_groups(texts: Any, *, group_words: Mapping[Any, Any] | None = None) -> pd.DataFrame:
    """The group each generated text names, by its gendered words (pronouns and nouns).

    Parameters
    ----------
    texts : sequence of str, shape (n_texts,)
        One generated text per row (a pandas Series keeps its index). Matching
        ignores case and punctuation and is by whole words ("he" is not "the").
    group_words : dict {group: [words]}, optional
        Default: :data:`biasamp.text.LIC_GENDER_WORDS` (nouns, family and job words
        and the pronouns he / his / him / himself, she / her / hers / herself).

    Returns
    -------
    pandas.DataFrame of shape (n_texts, 2)
        ``group`` (dtype "string": the one group the text names, ``<NA>`` for none
        or two) and ``status`` (``"one"``, ``"none"``, ``"conflict"``).

    Raises
    ------
    TypeError, ValueError
        Texts that are not strings; a lexicon with an empty word or a word under
        two groups (the message names the argument and the row).

    Examples
    --------
    >>> from biasamp.text import text_groups
    >>> read = text_groups(["She fixed the bridge; her design held.",
    ...                     "The engineer said he would check.",
    ...                     "He and his sister built it.",
    ...                     "The engineer checked the design."])
    >>> read["group"].tolist()
    ['woman', 'man', <NA>, <NA>]
    >>> read["status"].tolist()
    ['one', 'one', 'conflict', 'none']
    """
    flat, row, index = as_caption_rows(texts, arg="texts")
    lexicon = as_lexicon(
        LIC_GENDER_WORDS if group_words is None else group_words, arg="group_words"
    )
    vocabulary = Vocabulary.build(lexicon)
    counts = count_phrases(flat, vocabulary, arg="texts")
    n_rows = len(index)
    if len(row) != n_rows or not np.array_equal(row, np.arange(n_rows)):
        import scipy.sparse as sp

        rows = sp.csr_matrix(
            (np.ones(len(row), dtype=np.int32), (row, np.arange(len(row)))),
            shape=(n_rows, len(row)),
        )
        counts = rows @ counts
    hits = (counts @ vocabulary.maps[0]).toarray() > 0
    n_hit = hits.sum(axis=1)
    status = np.where(n_hit == 1, STATUS_ONE, np.where(n_hit == 0, STATUS_NONE, STATUS_CONFLICT))
    labels = np.array(lexicon.labels, dtype=object)
    group = np.where(n_hit == 1, labels[hits.argmax(axis=1)], None)
    return pd.DataFrame(
        {
            "group": pd.Series(group, index=index, dtype="string"),
            "status": pd.Series(status, index=index, dtype=object),
        },
        index=index,
    )
