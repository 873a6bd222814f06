"""Captioning and other text-output models: captions to labels, bias amplification, LIC.

* :func:`caption_labels`: the group a caption names and the objects it mentions.
* :func:`caption_bias_amplification`, :func:`caption_bias_table`: T->A, A->T and MALS
  of a captioning model (or several side by side) against the image labels.
* :func:`lic`: LIC, leakage of masked model captions beyond human captions.
* :func:`dbac`: DBAC, directional (A->T, T->A) bias amplification of captions.
* :func:`text_groups`: the group a generated text names (gendered nouns and pronouns),
  the route from a language model's outputs to :func:`biasamp.output_amplification`.
* :data:`COCO_TASK_WORDS`, :data:`DIRECTIONAL_GROUP_WORDS`, :data:`LIC_GENDER_WORDS`:
  the default word lists.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from biasamp._lazy import lazy_exports

if TYPE_CHECKING:
    from biasamp.text._caption_bias import (
        CaptionBiasResult,
        caption_bias_amplification,
        caption_bias_table,
    )
    from biasamp.text._caption_labels import CaptionLabels, caption_labels
    from biasamp.text._dbac import DBACResult, dbac, dbac_both
    from biasamp.text._lexicons import COCO_TASK_WORDS, DIRECTIONAL_GROUP_WORDS, LIC_GENDER_WORDS
    from biasamp.text._lic import LICResult, lic
    from biasamp.text._text_groups import text_groups

__all__ = [
    "COCO_TASK_WORDS",
    "DIRECTIONAL_GROUP_WORDS",
    "LIC_GENDER_WORDS",
    "CaptionBiasResult",
    "CaptionLabels",
    "DBACResult",
    "LICResult",
    "caption_bias_amplification",
    "caption_bias_table",
    "caption_labels",
    "dbac",
    "dbac_both",
    "lic",
    "text_groups",
]

if not TYPE_CHECKING:
    __getattr__, __dir__ = lazy_exports(
        __name__,
        {
            "biasamp.text._caption_bias": (
                "CaptionBiasResult",
                "caption_bias_amplification",
                "caption_bias_table",
            ),
            "biasamp.text._caption_labels": (
                "CaptionLabels",
                "caption_labels",
            ),
            "biasamp.text._dbac": (
                "DBACResult",
                "dbac",
                "dbac_both",
            ),
            "biasamp.text._lexicons": (
                "COCO_TASK_WORDS",
                "DIRECTIONAL_GROUP_WORDS",
                "LIC_GENDER_WORDS",
            ),
            "biasamp.text._lic": (
                "LICResult",
                "lic",
            ),
            "biasamp.text._text_groups": ("text_groups",),
        },
    )
