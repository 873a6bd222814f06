"""The metric registry: every metric's vocabulary, declared once.

Each :class:`MetricCard` holds a metric's canonical name (the one every surface
prints: Python results, ``compare`` tables, command-line options, JSON keys, the
HTML report, the ``evaluate`` modules and the docs), its display title, its paper
and citation, its direction, every other spelling that is accepted for it, the
result type it returns, and one or two sentences on what its value means and how
to read its sign.

Canonical names are lower case with ``-`` between words and ``a2t`` / ``t2a`` for
directions, so that they need no quoting in a shell (``T->A`` makes a shell write
a file named ``A``); the paper's spellings (``T->A``, ``BiasAmp T->A``, ``G->M``)
are accepted as aliases wherever a metric is named.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType

__all__ = [
    "DIRECTIONS",
    "DIRECTION_SPELLINGS",
    "ERR_DIRECTION",
    "ERR_UNKNOWN_METRIC",
    "INPUT_KINDS",
    "KNOBS",
    "METRICS",
    "MetricCard",
    "card_for",
    "contract_table",
    "find_card",
    "metric_card",
    "metric_cards",
    "metric_name",
    "metric_table",
    "normalize_direction",
]

#: The two directions of the directional metrics, canonical spellings.
DIRECTIONS = ("A->T", "T->A")

#: Every accepted spelling of each direction (compared after upper-casing, removing
#: spaces and mapping ``→`` to ``->``). ``G->M`` / ``M->G`` are the multi-attribute
#: paper's names (group -> multi-attribute combination).
DIRECTION_SPELLINGS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {
        "A->T": ("A->T", "A→T", "AT", "A2T", "G->M", "G->T"),
        "T->A": ("T->A", "T→A", "TA", "T2A", "M->G", "T->G"),
    }
)

#: The kinds of data argument a metric may declare on its card; the boundary layer
#: (``biasamp.inputs``) has one reader per kind.
INPUT_KINDS: Mapping[str, str] = MappingProxyType(
    {
        "labels": "one label per row (a group or class vector)",
        "label_matrix": "rows x tasks of 0/1 labels (or one label vector, one-hot encoded)",
        "scores": "rows x columns of real scores (retrieval scores, classifier scores)",
        "posteriors": "rows x classes of probabilities that sum to 1 per row",
        "captions": "one text per row (a caption or a generated text)",
        "weights": "one non-negative weight per row",
        "row_offsets": "the first global row of a chunk of a stream",
        "count_table": "a concept x group table of counts or shares",
    }
)

#: The knobs a metric may declare on its card: sizes set by a user's number and
#: the randomness that goes with them.
KNOBS = ("n_boot", "n_iter", "n_perm", "k", "n_bins", "random_state", "ci", "min_count")

ERR_DIRECTION = "{argument}: expected one of {choices} (case and spaces ignored), got {got!r}."
ERR_UNKNOWN_METRIC = "{argument}: unknown metric {got!r}; choose from {choices}."

_SLUG = {"A->T": "a2t", "T->A": "t2a"}


def _direction_key(direction: object) -> str:
    return str(direction).strip().upper().replace("→", "->").replace(" ", "")


_DIRECTION_OF = {
    _direction_key(spelling): canonical
    for canonical, spellings in DIRECTION_SPELLINGS.items()
    for spelling in spellings
}


def normalize_direction(direction: object, *, argument: str = "direction") -> str:
    """The canonical direction, ``"A->T"`` or ``"T->A"``, of any accepted spelling.

    Parameters
    ----------
    direction : str
        ``"A->T"`` / ``"T->A"`` in any case, with or without spaces, with ``→``,
        or ``"AT"``, ``"A2T"``, ``"G->M"``, ``"G->T"`` (and their T->A twins).
    argument : str, default "direction"
        The argument name the error message names.

    Returns
    -------
    str
        ``"A->T"`` or ``"T->A"``.

    Raises
    ------
    ValueError
        For any other value; the message lists every accepted spelling.

    Examples
    --------
    >>> from biasamp.registry import normalize_direction
    >>> normalize_direction("m->g"), normalize_direction("A2T")
    ('T->A', 'A->T')
    """
    key = _direction_key(direction)
    if key not in _DIRECTION_OF:
        choices = ", ".join(
            repr(s) for spellings in DIRECTION_SPELLINGS.values() for s in spellings
        )
        raise ValueError(ERR_DIRECTION.format(argument=argument, choices=choices, got=direction))
    return _DIRECTION_OF[key]


@dataclass(frozen=True)
class MetricCard:
    """One metric's vocabulary: its names, paper, meaning and result type.

    Attributes
    ----------
    name : str
        The canonical name, printed by every surface (``"directional-t2a"``).
    title : str
        The display title (``"BiasAmp T->A"``).
    family : str
        The library function's family (``"directional"``); the metrics of one
        family differ only by their direction.
    function : str
        The public function that computes it (``"directional"``, in ``biasamp``).
    direction : str or None
        ``"A->T"``, ``"T->A"`` or ``None``.
    paper : str
        Authors, year and title.
    citation : str
        A BibTeX entry.
    meaning : str
        What the value measures, in one or two sentences.
    sign : str
        How to read the value's sign (which sign is amplification).
    result_type : str
        The registered result type it returns (``results._persist`` names).
    value_range : str
        The range of the value.
    aliases : tuple of str
        Other accepted spellings of ``name`` (the paper's, older releases').
    url : str
        Where the paper can be read.
    inputs : mapping of str to str
        The public function's data arguments and the kind of input each one is, from
        :data:`INPUT_KINDS` (``{"groups": "labels", "tasks": "label_matrix"}``). The
        boundary layer has one reader per kind, and the common tests generated from
        the registry feed every declared argument the hostile catalogue of its kind.
    knobs : tuple of str
        The function's size and randomness knobs, from :data:`KNOBS` (``n_boot``,
        ``random_state``, ...). Every size derived from a knob is checked against
        memory before allocating; the common tests try absurd values.
    xfail_checks : mapping of str to str
        Common checks this metric cannot satisfy, each with the reason (as
        scikit-learn's ``_xfail_checks``); the docs show them.
    null : str
        The null hypothesis its significance test draws from (``"paired-swap"``,
        ``"random-ranking"``), or ``""`` with the reason in ``null_reason``.
    null_reason : str
        Why the metric has no null, when ``null`` is empty.
    alternative : str
        The alternative of its p-value: ``"greater"`` (one-sided: larger values
        are amplification, the p-value counts the null values at least as large)
        or ``"two-sided"`` (a metric whose sign is not amplification); ``""``
        without a null.
    """

    name: str
    title: str
    family: str
    function: str
    paper: str
    citation: str
    meaning: str
    sign: str
    result_type: str
    value_range: str = "(-inf, inf)"
    direction: str | None = None
    aliases: tuple[str, ...] = field(default=())
    url: str = ""
    inputs: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    knobs: tuple[str, ...] = field(default=())
    xfail_checks: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    null: str = ""
    null_reason: str = ""
    alternative: str = ""

    @property
    def spellings(self) -> tuple[str, ...]:
        """The canonical name, the title and every alias."""
        return (self.name, self.title, *self.aliases)


_ZHAO_2017 = """@inproceedings{zhao2017men,
  title={Men Also Like Shopping: Reducing Gender Bias Amplification using Corpus-level Constraints},
  author={Zhao, Jieyu and Wang, Tianlu and Yatskar, Mark and Ordonez, Vicente and Chang, Kai-Wei},
  booktitle={Proceedings of EMNLP},
  year={2017}
}"""
_WANG_2021 = """@inproceedings{wang2021directional,
  title={Directional Bias Amplification},
  author={Wang, Angelina and Russakovsky, Olga},
  booktitle={Proceedings of ICML},
  year={2021}
}"""
_ZHAO_2023 = """@inproceedings{zhao2023combating,
  title={Men Also Do Laundry: Multi-Attribute Bias Amplification},
  author={Zhao, Dora and Andrews, Jerone T. A. and Xiang, Alice},
  booktitle={Proceedings of ICML},
  year={2023}
}"""
_TOKAS_2025 = """@article{tokas2025dpa,
  title={Making Bias Amplification in Balanced Datasets Directional and Interpretable},
  author={Tokas, Bhanu and Nair, Rahul and Kerner, Hannah},
  journal={arXiv preprint arXiv:2412.11060},
  year={2025}
}"""
_WANG_2019 = """@inproceedings{wang2019balanced,
  title={Balanced Datasets Are Not Enough: Estimating and Mitigating Gender Bias in Deep Image Representations},
  author={Wang, Tianlu and Zhao, Jieyu and Yatskar, Mark and Chang, Kai-Wei and Ordonez, Vicente},
  booktitle={Proceedings of ICCV},
  year={2019}
}"""
_FOULDS_2020 = """@inproceedings{foulds2020intersectional,
  title={An Intersectional Definition of Fairness},
  author={Foulds, James R. and Islam, Rashidul and Keya, Kamrun Naher and Pan, Shimei},
  booktitle={Proceedings of ICDE},
  year={2020}
}"""
_HIROTA_2022 = """@inproceedings{hirota2022quantifying,
  title={Quantifying Societal Bias Amplification in Image Captioning},
  author={Hirota, Yusuke and Nakashima, Yuta and Garcia, Noa},
  booktitle={Proceedings of CVPR},
  year={2022}
}"""
_NAIR_2025 = """@article{nair2025woman,
  title={A Woman with a Knife or A Knife with a Woman? Measuring Directional Bias Amplification in Image Captions},
  author={Nair, Rahul and Tokas, Bhanu and Kerner, Hannah},
  journal={arXiv preprint arXiv:2503.07878},
  year={2025}
}"""
_GEYIK_2019 = """@inproceedings{geyik2019fairness,
  title={Fairness-Aware Ranking in Search and Recommendation Systems with Application to LinkedIn Talent Search},
  author={Geyik, Sahin Cem and Ambler, Stuart and Kenthapadi, Krishnaram},
  booktitle={Proceedings of KDD},
  year={2019}
}"""
_SESHADRI_2023 = """@article{seshadri2023paradox,
  title={The Bias Amplification Paradox in Text-to-Image Generation},
  author={Seshadri, Preethi and Singh, Sameer and Elazar, Yanai},
  journal={arXiv preprint arXiv:2308.00755},
  year={2023}
}"""
_GIRRBACH_2025 = """@inproceedings{girrbach2026person,
  title={Person-Centric Annotations of LAION-400M: Auditing Bias and Its Transfer to Models},
  author={Girrbach, Leander and Alaniz, Stephan and Smith, Genevieve and Darrell, Trevor and Akata, Zeynep},
  booktitle={Proceedings of ICLR},
  year={2026},
  note={arXiv:2510.03721}
}"""
_WANG_2025 = """@inproceedings{wang2025amplification,
  title={Bias Amplification: Large Language Models as Increasingly Biased Media},
  author={Wang, Ze and Wu, Zekun and Zhang, Yichi and Guan, Xin and Jain, Navya and Lu, Qinyang and Gupta, Saloni and Koshiyama, Adriano},
  booktitle={Proceedings of IJCNLP-AACL},
  year={2025}
}"""
_JIA_2020 = """@inproceedings{jia2020mitigating,
  title={Mitigating Gender Bias Amplification in Distribution by Posterior Regularization},
  author={Jia, Shengyu and Meng, Tao and Zhao, Jieyu and Chang, Kai-Wei},
  booktitle={Proceedings of ACL},
  year={2020}
}"""


#: The prediction a direction does not read (A->T compares the tasks predicted for each
#: true group, T->A the groups predicted for each true task); its card does not declare it.
_UNREAD = {"A->T": "groups_pred", "T->A": "tasks_pred"}


def _directional_pair(
    *,
    family: str,
    prefix: str,
    title: str,
    function: str,
    paper: str,
    citation: str,
    meaning: Mapping[str, str],
    sign: Mapping[str, str],
    result_type: str,
    value_range: str = "(-inf, inf)",
    aliases: Mapping[str, tuple[str, ...]] = MappingProxyType({}),
    url: str = "",
    inputs: Mapping[str, str] = MappingProxyType({}),
    knobs: tuple[str, ...] = (),
    xfail_checks: Mapping[str, str] = MappingProxyType({}),
) -> list[MetricCard]:
    """The A->T and T->A cards of one family."""
    return [
        MetricCard(
            name=f"{prefix}-{_SLUG[direction]}",
            title=f"{title} {direction}",
            family=family,
            function=function,
            paper=paper,
            citation=citation,
            meaning=meaning[direction],
            sign=sign[direction],
            result_type=result_type,
            value_range=value_range,
            direction=direction,
            aliases=aliases.get(direction, ()),
            url=url,
            inputs=MappingProxyType(
                {arg: kind for arg, kind in inputs.items() if arg != _UNREAD[direction]}
            ),
            knobs=knobs,
            xfail_checks=xfail_checks,
        )
        for direction in DIRECTIONS
    ]


def _declared(**kinds: str) -> Mapping[str, str]:
    """A card's ``inputs``: argument -> kind, every kind one of :data:`INPUT_KINDS`."""
    unknown = sorted(set(kinds.values()) - set(INPUT_KINDS))
    if unknown:  # pragma: no cover - checked by the tests
        raise RuntimeError(f"unknown input kinds {unknown}")
    return MappingProxyType(kinds)


#: The arguments of the co-occurrence metrics (the splits of mals and directional).
_SPLITS = _declared(
    groups_train="labels",
    tasks_train="label_matrix",
    groups="labels",
    tasks="label_matrix",
    groups_pred="labels",
    tasks_pred="label_matrix",
    sample_weight="weights",
    sample_weight_train="weights",
    counts_train="count_table",
)
#: The arguments of the multi-attribute metrics (no training table: combinations need rows).
_MULTI_SPLITS = _declared(**{k: v for k, v in _SPLITS.items() if k != "counts_train"})
#: The attackers draw their train/test splits by row position.
_RANDOM_SPLITS = (
    "its attackers are trained and scored on random train/test splits drawn by row "
    "position, so permuting the rows draws other splits (the value moves within its "
    "interval; with one seed, the same rows give the same value)"
)
_BOOT = ("n_boot", "ci", "random_state")
_ATTACKER_KNOBS = ("n_iter", "ci", "random_state")
_ATTACKER_XFAIL = MappingProxyType({"row_order": _RANDOM_SPLITS})
_CARDS: list[MetricCard] = [
    MetricCard(
        name="mals",
        title="BiasAmp_MALS",
        family="mals",
        function="mals",
        paper='Zhao, Wang, Yatskar, Ordonez & Chang (EMNLP 2017), "Men Also Like Shopping"',
        citation=_ZHAO_2017,
        meaning=(
            "The mean, over tasks, of how far the predicted share of each task's "
            "training-majority group, b(t, g) = P(g | t), rises above its training share."
        ),
        sign=(
            "Positive: the predictions favour the groups the training data already "
            "favoured even more (amplification); negative: less; 0: the same shares."
        ),
        result_type="pairwise",
        aliases=("BiasAmp MALS", "biasamp_mals"),
        url="https://arxiv.org/abs/1707.09457",
        inputs=_SPLITS,
        knobs=_BOOT,
    ),
    *_directional_pair(
        family="directional",
        prefix="directional",
        title="BiasAmp",
        function="directional",
        paper='Wang & Russakovsky (ICML 2021), "Directional Bias Amplification"',
        citation=_WANG_2021,
        meaning={
            "A->T": (
                "Does the group drive the task predictions: the mean change from the "
                "labels' P(task | group) to the predictions', each pair signed by the "
                "training correlation of its group and task."
            ),
            "T->A": (
                "Does the task drive the group predictions: the mean change from the "
                "labels' P(group | task) to the predictions', each pair signed by the "
                "training correlation of its group and task."
            ),
        },
        sign={
            "A->T": (
                "Positive: the model predicts tasks from the group more than the labels "
                "warrant (amplification); negative: less (deamplification)."
            ),
            "T->A": (
                "Positive: the model predicts the group from the task more than the labels "
                "warrant (amplification); negative: less (deamplification)."
            ),
        },
        result_type="pairwise",
        aliases={
            "A->T": ("a2t", "A->T", "directional-A->T"),
            "T->A": ("t2a", "T->A", "directional-T->A"),
        },
        url="https://arxiv.org/abs/2102.12594",
        inputs=_SPLITS,
        knobs=_BOOT,
    ),
    MetricCard(
        name="multi-mals",
        title="Multi_MALS",
        family="multi_mals",
        function="multi_mals",
        paper='Zhao, Andrews & Xiang (ICML 2023), "Men Also Do Laundry"',
        citation=_ZHAO_2023,
        meaning=(
            "BiasAmp_MALS over combinations of tasks ({computer, keyboard}): the mean "
            "change of each combination's group shares from the labels to the predictions."
        ),
        sign=(
            "With absolute differences (the paper) it is at least 0 and measures how much "
            "the combinations' group shares move; raw differences are positive for amplification."
        ),
        result_type="multi_attribute",
        aliases=("multi_mals", "Multi-MALS"),
        url="https://arxiv.org/abs/2210.11924",
        inputs=_MULTI_SPLITS,
        knobs=(*_BOOT, "min_count"),
    ),
    *_directional_pair(
        family="multi_directional",
        prefix="multi",
        title="Multi",
        function="multi_directional",
        paper='Zhao, Andrews & Xiang (ICML 2023), "Men Also Do Laundry"',
        citation=_ZHAO_2023,
        meaning={
            "A->T": (
                "Multi G->M: does the group change which task combinations are "
                "predicted, over every frequent combination of tasks."
            ),
            "T->A": (
                "Multi M->G: does a task combination change which group is predicted, "
                "over every frequent combination of tasks."
            ),
        },
        sign={
            "A->T": (
                "With absolute differences (the paper) it is at least 0; raw differences "
                "are positive for amplification."
            ),
            "T->A": (
                "With absolute differences (the paper) it is at least 0; raw differences "
                "are positive for amplification."
            ),
        },
        result_type="multi_attribute",
        aliases={
            "A->T": ("multi-directional-a2t", "multi-G->M", "Multi G->M", "Multi A->T"),
            "T->A": ("multi-directional-t2a", "multi-M->G", "Multi M->G", "Multi T->A"),
        },
        url="https://arxiv.org/abs/2210.11924",
        inputs=_MULTI_SPLITS,
        knobs=(*_BOOT, "min_count"),
    ),
    *_directional_pair(
        family="dpa",
        prefix="dpa",
        title="DPA",
        function="dpa",
        paper=(
            'Tokas, Nair & Kerner (2025), "Making Bias Amplification in Balanced '
            'Datasets Directional and Interpretable"'
        ),
        citation=_TOKAS_2025,
        meaning={
            "A->T": (
                "The relative change in how well an attacker predicts the tasks from the "
                "group, from the ground truth to the model's outputs."
            ),
            "T->A": (
                "The relative change in how well an attacker predicts the group from the "
                "tasks, from the ground truth to the model's outputs."
            ),
        },
        sign={
            "A->T": "Positive: the outputs reveal the tasks from the group more than the data do.",
            "T->A": "Positive: the outputs reveal the group from the tasks more than the data do.",
        },
        result_type="predictability",
        value_range="[-1, 1]",
        aliases={"A->T": ("dpa-A->T", "DPA A->T"), "T->A": ("dpa-T->A", "DPA T->A")},
        url="https://arxiv.org/abs/2412.11060",
        inputs=_declared(
            groups="labels", tasks="label_matrix", groups_pred="labels", tasks_pred="label_matrix"
        ),
        knobs=_ATTACKER_KNOBS,
        xfail_checks=_ATTACKER_XFAIL,
    ),
    MetricCard(
        name="leakage",
        title="Leakage amplification",
        family="leakage_amplification",
        function="leakage_amplification",
        paper='Wang, Zhao, Yatskar, Chang & Ordonez (ICCV 2019), "Balanced Datasets Are Not Enough"',
        citation=_WANG_2019,
        meaning=(
            "How much better an attacker predicts the group from the model's task outputs "
            "than from the task labels perturbed to the model's accuracy."
        ),
        sign="Positive: the outputs leak more about the group than the labels do.",
        result_type="predictability",
        aliases=("leakage-amplification", "la", "leakage_amplification"),
        url="https://arxiv.org/abs/1811.08489",
        inputs=_declared(groups="labels", tasks="label_matrix", tasks_pred="label_matrix"),
        knobs=_ATTACKER_KNOBS,
        xfail_checks=_ATTACKER_XFAIL,
    ),
    MetricCard(
        name="differential-fairness",
        title="Differential fairness",
        family="differential_fairness",
        function="differential_fairness",
        paper='Foulds, Islam, Keya & Pan (ICDE 2020), "An Intersectional Definition of Fairness"',
        citation=_FOULDS_2020,
        meaning=(
            "epsilon: the largest log-ratio of a class's (smoothed) rate between any two "
            "(intersectional) groups."
        ),
        sign="At least 0; 0 means every group has the same rates, larger is less fair.",
        result_type="differential_fairness",
        value_range="[0, inf)",
        aliases=("differential_fairness", "df", "epsilon"),
        url="https://arxiv.org/abs/1807.08362",
        inputs=_declared(groups="labels", labels="labels", sample_weight="weights"),
        knobs=_BOOT,
    ),
    MetricCard(
        name="df-amplification",
        title="Differential fairness amplification",
        family="differential_fairness_amplification",
        function="differential_fairness_amplification",
        paper='Foulds, Islam, Keya & Pan (ICDE 2020), "An Intersectional Definition of Fairness"',
        citation=_FOULDS_2020,
        meaning=(
            "epsilon of the predictions minus epsilon of the labels: how much more the "
            "predicted class rates differ between (intersectional) groups than the labels' do."
        ),
        sign="Positive: the predictions are less fair between groups than the labels (amplification).",
        result_type="differential_fairness",
        aliases=(
            "differential-fairness-amplification",
            "differential_fairness_amplification",
            "dfa",
        ),
        url="https://arxiv.org/abs/1807.08362",
        inputs=_declared(
            groups="labels", labels="labels", labels_pred="labels", sample_weight="weights"
        ),
        knobs=_BOOT,
    ),
    MetricCard(
        name="lic",
        title="LIC",
        family="lic",
        function="lic",
        paper=(
            'Hirota, Nakashima & Garcia (CVPR 2022), "Quantifying Societal Bias '
            'Amplification in Image Captioning"'
        ),
        citation=_HIROTA_2022,
        meaning=(
            "Leakage in captions: how much better a classifier predicts the gender from "
            "the model's gender-masked captions (LIC_M) than from human captions (LIC_D)."
        ),
        sign="Positive: the model's captions reveal the gender more than human captions do.",
        result_type="lic",
        aliases=("LIC", "leakage-in-captioning"),
        url="https://arxiv.org/abs/2203.15395",
        inputs=_declared(captions_human="captions", captions_model="captions", groups="labels"),
        knobs=_ATTACKER_KNOBS,
        xfail_checks=_ATTACKER_XFAIL,
    ),
    *_directional_pair(
        family="dbac",
        prefix="dbac",
        title="DBAC",
        function="dbac",
        paper=(
            'Nair, Tokas & Kerner (2025), "A Woman with a Knife or A Knife with a Woman? '
            'Measuring Directional Bias Amplification in Image Captions"'
        ),
        citation=_NAIR_2025,
        meaning={
            "A->T": (
                "Directional bias amplification in captions: the relative change, from "
                "human captions to the model's, of P(objects | gender) obtained by Bayes' "
                "rule from an attacker that predicts the gender from gender-masked captions "
                "(fixed priors: each side's share of the caption's object set over the "
                "gender's share)."
            ),
            "T->A": (
                "Directional bias amplification in captions: the relative change, from "
                "human captions to the model's, of an attacker's probability of the true "
                "gender given the gender-masked caption."
            ),
        },
        sign={
            "A->T": "Positive: the model's captions tie objects to gender more than human captions.",
            "T->A": "Positive: the model's captions reveal the gender more than human captions.",
        },
        result_type="dbac",
        value_range="[-1, 1]",
        aliases={"A->T": ("DBAC A->T", "dbac-A->T"), "T->A": ("DBAC T->A", "dbac-T->A")},
        url="https://arxiv.org/abs/2503.07878",
        inputs=_declared(captions_human="captions", captions_model="captions", groups="labels"),
        knobs=_ATTACKER_KNOBS,
        xfail_checks=_ATTACKER_XFAIL,
    ),
    MetricCard(
        name="retrieval-bias",
        title="MaxSkew",
        family="retrieval_bias",
        function="retrieval_bias",
        paper=(
            'Geyik, Ambler & Kenthapadi (KDD 2019), "Fairness-Aware Ranking in Search and '
            'Recommendation Systems"'
        ),
        citation=_GEYIK_2019,
        meaning=(
            "The mean, over queries, of MaxSkew@k: the largest log-ratio of a group's share "
            "among the top k results to its reference share (the pool's by default)."
        ),
        sign=(
            "At least 0 (some group always reaches its reference share in the top k); 0 "
            "means every group has exactly its reference share, larger means the top k "
            "over-represent some group more. NDKL (also reported) is 0 for a ranking "
            "whose every prefix matches the reference."
        ),
        result_type="retrieval_bias",
        value_range="[0, inf)",
        aliases=("retrieval_bias", "max-skew", "maxskew@k", "skew"),
        url="https://arxiv.org/abs/1905.01989",
        # groups labels the items (the columns of scores), one per item
        inputs=_declared(scores="scores", groups="labels"),
        knobs=("k", *_BOOT),
        xfail_checks=MappingProxyType(
            {
                "inf_in_scores": (
                    "an infinite score is a valid relevance: -inf is the usual mark of an "
                    "item that may never be retrieved and +inf of one always ranked first; "
                    "the ranking, and so the value, is well defined (NaN is refused)"
                )
            }
        ),
    ),
    MetricCard(
        name="distribution-mals",
        title="BiasAmp_MALS in distribution",
        family="distribution_mals",
        function="distribution_mals",
        paper=(
            'Jia, Meng, Zhao & Chang (ACL 2020), "Mitigating Gender Bias Amplification in '
            'Distribution by Posterior Regularization"'
        ),
        citation=_JIA_2020,
        meaning=(
            "BiasAmp_MALS computed from the model's posterior mass of every (task, group) "
            "pair instead of its top-1 predictions."
        ),
        sign=(
            "Positive: the posterior distribution favours the training data's majority "
            "groups even more (amplification); negative: less."
        ),
        result_type="pairwise",
        aliases=("distribution_mals", "mals-in-distribution", "posterior-mals"),
        url="https://arxiv.org/abs/2005.06251",
        inputs=_declared(
            joint_proba="posteriors",
            groups_train="labels",
            tasks_train="label_matrix",
            sample_weight="weights",
            sample_weight_train="weights",
            counts_train="count_table",
        ),
        knobs=_BOOT,
    ),
    MetricCard(
        name="output-amplification",
        title="Output amplification",
        family="output_amplification",
        function="output_amplification",
        paper=(
            'Seshadri, Singh & Elazar (2023), "The Bias Amplification Paradox in '
            'Text-to-Image Generation"'
        ),
        citation=_SESHADRI_2023,
        meaning=(
            "The mean, over concepts (prompts), of the generated outputs' share of the "
            "group the reference (training captions, a matched subset, labour statistics) "
            "favours minus its reference share; output shares optionally corrected for the "
            "group classifier's errors (CLEAM, Teo et al. 2023)."
        ),
        sign=(
            "Positive: the outputs push each concept further toward the group its "
            "reference already favours (amplification); negative: toward balance."
        ),
        result_type="output_amplification",
        value_range="[-1, 1]",
        aliases=("output_amplification", "generated-amplification"),
        url="https://arxiv.org/abs/2308.00755",
        inputs=_declared(
            concepts="labels",
            groups="labels",
            reference="count_table",
            reference_concepts="labels",
            reference_groups="labels",
            attribute_confusion="count_table",
        ),
        knobs=_BOOT,
        null="",
        null_reason=(
            "No null distribution: the reference is a different population (training "
            "captions, statistics), so no exchangeable resampling gives the value under "
            "no amplification; the bootstrap interval is the uncertainty reported."
        ),
    ),
    MetricCard(
        name="bias-transfer",
        title="Bias transfer",
        family="bias_transfer",
        function="bias_transfer",
        paper=('Girrbach et al. (ICLR 2026), "Person-Centric Annotations of LAION-400M"'),
        citation=_GIRRBACH_2025,
        meaning=(
            "The least-squares slope of the outputs' bias per concept on the reference's, "
            "each (n_group - n_rest) / (n_group + n_rest), over concepts with at least "
            "min_count reference rows; with the intercept, Pearson r and R^2."
        ),
        sign=(
            "Above 1: the outputs exaggerate the reference's differences between concepts "
            "(amplifying transfer); 1: they follow them; below 1: they damp them."
        ),
        result_type="bias_transfer",
        aliases=("bias_transfer", "data-bias-transfer"),
        url="https://arxiv.org/abs/2510.03721",
        inputs=_declared(reference="count_table", outputs="count_table"),
        knobs=("min_count",),
        null="",
        null_reason=(
            "No null distribution: the slope is a descriptive fit over concepts, "
            "reported with r and R^2."
        ),
    ),
    MetricCard(
        name="share-trajectory",
        title="Share trajectory",
        family="share_trajectory",
        function="share_trajectory",
        paper=(
            'Wang et al. (IJCNLP-AACL 2025), "Bias Amplification: Large Language Models '
            'as Increasingly Biased Media"'
        ),
        citation=_WANG_2025,
        meaning=(
            "The least-squares slope, over steps (model generations, checkpoints), of the "
            "share of the outputs in the group that was the majority at the first step; "
            "the per-step shares of every group come with it."
        ),
        sign=(
            "Positive: the first step's majority group gains share step after step "
            "(amplification across generations); negative: it loses share."
        ),
        result_type="share_trajectory",
        aliases=("share_trajectory", "generation-shares"),
        url="https://arxiv.org/abs/2410.15234",
        inputs=_declared(groups="labels", steps="labels"),
        knobs=_BOOT,
        null="",
        null_reason=(
            "No null distribution: the outputs of different steps come from different "
            "models; the bootstrap interval of the slope is the trend test."
        ),
    ),
]

#: The null hypothesis of each metric's significance test against chance (``n_perm``):
#: ``"paired-swap"`` (each row's label and the model's output swap with probability 1/2,
#: the human and the model caption of an image for the caption metrics), ``"random-ranking"``
#: (rankings drawn uniformly from the same pool at the same k), or the reason there is none.
_NULLS: Mapping[str, tuple[str, str]] = MappingProxyType(
    {
        "mals": ("paired-swap", ""),
        "directional-a2t": ("paired-swap", ""),
        "directional-t2a": ("paired-swap", ""),
        "multi-mals": ("paired-swap", ""),
        "multi-a2t": ("paired-swap", ""),
        "multi-t2a": ("paired-swap", ""),
        "dpa-a2t": ("paired-swap", ""),
        "dpa-t2a": ("paired-swap", ""),
        "leakage": ("paired-swap", ""),
        "differential-fairness": (
            "",
            "epsilon describes one set of labels or outputs and compares nothing with "
            "labels on the same rows, so there is nothing to swap; df-amplification, "
            "the outputs' epsilon against the labels', has the swap test.",
        ),
        "df-amplification": ("paired-swap", ""),
        "lic": ("paired-swap", ""),
        "dbac-a2t": ("paired-swap", ""),
        "dbac-t2a": ("paired-swap", ""),
        "retrieval-bias": ("random-ranking", ""),
        "distribution-mals": (
            "",
            "the model's posteriors are compared with the training labels, not with "
            "labels on the same rows, and a posterior is not exchangeable with a one-hot "
            "label under a model that amplifies nothing, so no swap is a null.",
        ),
    }
)


def _with_null(card: MetricCard) -> MetricCard:
    """The card with its ``null`` (and ``n_perm`` and ``random_state`` among its knobs)."""
    if card.name not in _NULLS:  # a card that declares its own null (or why none)
        return replace(card, alternative="greater" if card.null else "")
    null, reason = _NULLS[card.name]
    knobs = card.knobs
    if null:
        knobs = tuple(dict.fromkeys((*knobs, "n_perm", "random_state")))
    # every metric with a null reads larger values as amplification (or, for the
    # multi-attribute metrics with absolute differences and MaxSkew@k, as more change
    # or skew than chance gives): the p-value is one-sided
    alternative = "greater" if null else ""
    return replace(card, null=null, null_reason=reason, knobs=knobs, alternative=alternative)


_CARDS = [_with_null(card) for card in _CARDS]

#: Every registered metric, by canonical name, in the order of the docs' table.
METRICS: Mapping[str, MetricCard] = MappingProxyType({card.name: card for card in _CARDS})


def _spelling_key(name: object) -> str:
    return str(name).strip().casefold().replace("→", "->").replace(" ", "").replace("_", "-")


_CARD_OF: dict[str, MetricCard] = {}
for _card in _CARDS:
    for _spelling in _card.spellings:
        _key = _spelling_key(_spelling)
        if _CARD_OF.get(_key, _card) is not _card:  # pragma: no cover - checked by the tests
            raise RuntimeError(f"the metric spelling {_spelling!r} names two metrics")
        _CARD_OF[_key] = _card


def metric_cards(*, family: str | None = None) -> list[MetricCard]:
    """Every registered metric's card, in the registry's order (or one family's).

    Examples
    --------
    >>> from biasamp.registry import metric_cards
    >>> [card.name for card in metric_cards(family="directional")]
    ['directional-a2t', 'directional-t2a']
    """
    return [card for card in _CARDS if family is None or card.family == family]


def metric_card(
    name: object, *, among: Iterable[str] | None = None, argument: str = "metric"
) -> MetricCard:
    """The card of a metric named by its canonical name, title or any alias.

    Parameters
    ----------
    name : str
        Any accepted spelling (case, spaces, ``_`` / ``-`` and ``→`` / ``->`` ignored).
    among : iterable of str, optional
        Canonical names the caller offers (a command that computes only some metrics);
        a name outside them is refused with them listed.
    argument : str, default "metric"
        The argument name the error message names.

    Raises
    ------
    ValueError
        For an unknown name; the message lists the canonical names to choose from.

    Examples
    --------
    >>> from biasamp.registry import metric_card
    >>> card = metric_card("BiasAmp T->A")
    >>> card.name, card.function, card.direction
    ('directional-t2a', 'directional', 'T->A')
    """
    allowed = list(METRICS) if among is None else list(among)
    card = _CARD_OF.get(_spelling_key(name))
    if card is None or card.name not in allowed:
        raise ValueError(
            ERR_UNKNOWN_METRIC.format(argument=argument, got=name, choices=", ".join(allowed))
        )
    return card


def metric_name(
    name: object, *, among: Iterable[str] | None = None, argument: str = "metric"
) -> str:
    """The canonical name of a metric named by any accepted spelling (see :func:`metric_card`).

    Examples
    --------
    >>> from biasamp.registry import metric_name
    >>> metric_name("T->A"), metric_name("Multi_MALS")
    ('directional-t2a', 'multi-mals')
    """
    return metric_card(name, among=among, argument=argument).name


def card_for(family: str, direction: object = None) -> MetricCard:
    """The card of a family's metric in a direction (``None`` for undirected families).

    Examples
    --------
    >>> from biasamp.registry import card_for
    >>> card_for("dpa", "t->a").name, card_for("mals").name
    ('dpa-t2a', 'mals')
    """
    canonical = None if direction is None else normalize_direction(direction)
    for card in _CARDS:
        if card.family == family and card.direction == canonical:
            return card
    raise ValueError(
        ERR_UNKNOWN_METRIC.format(
            argument="family",
            got=family if direction is None else f"{family} {direction}",
            choices=", ".join(sorted({card.family for card in _CARDS})),
        )
    )


def find_card(family: object, direction: object = None) -> MetricCard | None:
    """The card of a result's ``metric`` (a family, ``"directional"``) and ``direction``,
    or of any spelling of a metric's name; ``None`` when no card matches.

    Results store their family and direction; this is how a result finds its
    canonical name and title (:attr:`MetricCard.name`, :attr:`MetricCard.title`).

    Examples
    --------
    >>> from biasamp.registry import find_card
    >>> find_card("directional", "T->A").name, find_card("multi_mals").name
    ('directional-t2a', 'multi-mals')
    >>> find_card("my_metric") is None
    True
    """
    if not isinstance(family, str):
        return None
    try:
        canonical = None if direction is None else normalize_direction(direction)
    except ValueError:
        return None
    for card in _CARDS:
        if card.family == family and card.direction == canonical:
            return card
    found = _CARD_OF.get(_spelling_key(family))
    if found is not None and (canonical is None or found.direction in (None, canonical)):
        return found
    return None


def metric_table() -> str:
    """The docs' metric table (Markdown), one row per card in the registry's order.

    README.md holds this table between the markers ``<!-- metric table -->`` and
    ``<!-- end metric table -->``; a test checks that it is the same text.

    Examples
    --------
    >>> from biasamp.registry import metric_table
    >>> metric_table().splitlines()[0]
    '| metric | title | function | what its value means | paper |'
    """

    def cell(text: str) -> str:
        return " ".join(text.split()).replace("|", "\\|")

    lines = [
        "| metric | title | function | what its value means | paper |",
        "|---|---|---|---|---|",
    ]
    for card in _CARDS:
        call = f'{card.function}(direction="{card.direction}")' if card.direction else card.function
        lines.append(
            f"| `{card.name}` | {cell(card.title)} | `{call}` | "
            f"{cell(card.meaning)} {cell(card.sign)} | {cell(card.paper)} |"
        )
    return "\n".join(lines) + "\n"


def contract_table() -> str:
    """The docs' table of every card's contract (Markdown): the data arguments it declares
    by kind, its knobs, and the common checks it cannot satisfy, each with its reason.

    ``docs/architecture.md`` holds this table between the markers
    ``<!-- contract table -->`` and ``<!-- end contract table -->``; a test checks that it
    is the same text.

    Examples
    --------
    >>> from biasamp.registry import contract_table
    >>> contract_table().splitlines()[0]
    '| metric | inputs (argument: kind) | knobs | checks it cannot satisfy, and why |'
    """
    lines = [
        "| metric | inputs (argument: kind) | knobs | checks it cannot satisfy, and why |",
        "|---|---|---|---|",
    ]
    for card in _CARDS:
        inputs = ", ".join(f"`{arg}`: {kind}" for arg, kind in card.inputs.items())
        knobs = ", ".join(f"`{knob}`" for knob in card.knobs)
        xfail = "; ".join(
            f"`{check}`: {' '.join(reason.split())}" for check, reason in card.xfail_checks.items()
        )
        lines.append(f"| `{card.name}` | {inputs} | {knobs} | {xfail or 'none'} |")
    return "\n".join(lines) + "\n"
