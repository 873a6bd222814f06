"""Small real data sets shipped with biasamp (no download, plain gzip CSV).

* COCO 2014 gender x objects: :func:`load_coco_gender` (val 5,367 and test 5,473
  images of people; ``gender`` is ``man`` / ``woman``; 79 object columns).
* Generated captions of six captioning models for the same COCO images:
  :func:`load_coco_captions` (Hendricks, Burns et al. 2018).
* COCO 2014 human captions, five per image, for 606 val and 628 test of those
  images: :func:`load_coco_human_captions`.
* imSitu gender x verbs: :func:`load_imsitu_gender` (train 24,301, val 7,730,
  test 7,669 images; ``gender`` and ``verb``, one of 211 activities).
* GPT-2 fine-tuned on its own outputs for ten generations, each generated article's
  political lean (Wang et al. 2025): :func:`load_llm_generations`.
* Published per-object results of Zhao et al. (2017) on COCO dev:
  :func:`load_mals_coco_results`.

Provenance: ``data/PROVENANCE.md``.
"""

from ._loaders import (
    load_coco_captions,
    load_coco_gender,
    load_coco_human_captions,
    load_imsitu_gender,
    load_llm_generations,
    load_mals_coco_results,
)

__all__ = [
    "load_coco_captions",
    "load_coco_gender",
    "load_coco_human_captions",
    "load_imsitu_gender",
    "load_llm_generations",
    "load_mals_coco_results",
]
