"""Loaders for the data files in ``biasamp/datasets/data``."""

from __future__ import annotations

from importlib import resources

import pandas as pd

__all__ = [
    "load_coco_captions",
    "load_coco_gender",
    "load_coco_human_captions",
    "load_imsitu_gender",
    "load_llm_generations",
    "load_mals_coco_results",
]

ERR_SPLIT = "split: expected one of {choices}, got {got!r}."

_COCO_SPLITS = ("val", "test")
_IMSITU_SPLITS = ("train", "val", "test")
_LLM_SETUPS = ("none", "preservation", "accumulation", "overfitting")
ERR_SETUP = "setup: expected one of {choices} or None (all four), got {got!r}."


def _read(name: str, *, index_col: int | None = None) -> pd.DataFrame:
    with (resources.files("biasamp.datasets") / "data" / name).open("rb") as handle:
        return pd.read_csv(
            handle, compression="gzip" if name.endswith(".gz") else None, index_col=index_col
        )


def load_coco_gender(split: str = "val") -> pd.DataFrame:
    """COCO 2014 images of people with a gender and 79 object indicators.

    Parameters
    ----------
    split : {"val", "test"}
        The two halves of COCO 2014 val (5,367 and 5,473 images).

    Returns
    -------
    pandas.DataFrame
        ``image_id``, ``gender`` (``"man"`` / ``"woman"``) and one 0/1 column per object.

    Examples
    --------
    >>> from biasamp.datasets import load_coco_gender
    >>> frame = load_coco_gender("val")
    >>> frame.shape
    (5367, 81)
    """
    if split not in _COCO_SPLITS:
        raise ValueError(ERR_SPLIT.format(choices=_COCO_SPLITS, got=split))
    return _read(f"coco_{split}.csv.gz")


def load_imsitu_gender(split: str = "train") -> pd.DataFrame:
    """imSitu images whose agent is a man or a woman, with the verb (211 activities).

    Parameters
    ----------
    split : {"train", "val", "test"}

    Returns
    -------
    pandas.DataFrame
        ``image_name``, ``gender``, ``verb``.
    """
    if split not in _IMSITU_SPLITS:
        raise ValueError(ERR_SPLIT.format(choices=_IMSITU_SPLITS, got=split))
    return _read(f"imsitu_{split}.csv.gz")


def load_mals_coco_results() -> pd.DataFrame:
    """Per-object results of Zhao et al. (2017) on COCO dev (66 objects).

    Columns: ``object``, ``training_ratio`` (man share among training images
    with the object), ``gender_ratio_before_RBA`` and ``gender_ratio_after_RBA``
    (man share among the dev predictions before and after RBA).
    """
    return _read("mals_coco_dev_gender_ratio.csv", index_col=0).reset_index(drop=True)


def load_coco_captions(split: str = "val") -> pd.DataFrame:
    """Generated captions of six captioning models for the images of :func:`load_coco_gender`.

    The models of Hendricks, Burns et al. (ECCV 2018), whose ``equalizer`` Wang &
    Russakovsky (2021) discuss; same images, same halves and same row order as
    :func:`load_coco_gender`.

    Parameters
    ----------
    split : {"val", "test"}

    Returns
    -------
    pandas.DataFrame
        ``image_id`` and one caption column per model: ``baseline_ft``,
        ``equalizer``, ``confident``, ``upweight``, ``balanced``, ``confusion``.

    Examples
    --------
    >>> from biasamp.datasets import load_coco_captions
    >>> load_coco_captions("test").shape
    (5473, 7)
    """
    if split not in _COCO_SPLITS:
        raise ValueError(ERR_SPLIT.format(choices=_COCO_SPLITS, got=split))
    return _read(f"coco_captions_{split}.csv.gz")


def load_coco_human_captions(split: str = "test") -> pd.DataFrame:
    """COCO 2014 human captions (five per image) for the images that have them.

    The images of :func:`load_coco_gender` / :func:`load_coco_captions` whose
    human captions are available here: 606 (val) and 628 (test). Join on
    ``image_id`` with those tables for the gender, the objects and the six
    models' captions (an inner join keeps every row). The captions are the
    COCO Consortium's (CC BY 4.0); see ``data/PROVENANCE.md``.

    Parameters
    ----------
    split : {"val", "test"}

    Returns
    -------
    pandas.DataFrame
        ``image_id``, then ``human_1`` ... ``human_5``: the first five captions
        of each image, in annotation-id order.

    Examples
    --------
    >>> from biasamp.datasets import load_coco_human_captions
    >>> load_coco_human_captions("test").shape
    (628, 6)
    """
    if split not in _COCO_SPLITS:
        raise ValueError(ERR_SPLIT.format(choices=_COCO_SPLITS, got=split))
    return _read(f"coco_human_captions_{split}.csv.gz")


def load_llm_generations(setup: str | None = "none") -> pd.DataFrame:
    """GPT-2 fine-tuned on its own news articles for ten generations, each article's lean.

    From Wang et al. (IJCNLP-AACL 2025), "Bias Amplification: Large Language Models as
    Increasingly Biased Media" (MIT licence; the notice ships beside the file): 1,518
    generated articles per generation, scored by a political-lean classifier; ``lean``
    is the argmax of its left, center and right scores (the paper's rule).

    Parameters
    ----------
    setup : {"none", "preservation", "accumulation", "overfitting"} or None, default "none"
        The mitigation set-up (``"none"``: the paper's unmitigated runs); ``None``
        gives all four.

    Returns
    -------
    pandas.DataFrame
        ``setup``, ``generation`` (0 .. 10, the paper's numbering), ``article_id``
        and ``lean`` (``"left"``, ``"center"``, ``"right"``).

    Examples
    --------
    >>> from biasamp.datasets import load_llm_generations
    >>> frame = load_llm_generations("none")
    >>> frame.shape
    (16698, 4)
    >>> shares = frame.groupby("generation")["lean"].value_counts(normalize=True)
    >>> [round(float(shares[g]["right"]), 3) for g in (0, 6, 10)]
    [0.544, 0.675, 0.592]
    """
    if setup is not None and setup not in _LLM_SETUPS:
        raise ValueError(ERR_SETUP.format(choices=_LLM_SETUPS, got=setup))
    frame = _read("llm_generations.csv.gz")
    if setup is None:
        return frame
    return frame[frame["setup"] == setup].reset_index(drop=True)
