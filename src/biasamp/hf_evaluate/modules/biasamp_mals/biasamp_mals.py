"""BiasAmp_MALS (Zhao et al., 2017) as a Hugging Face ``evaluate`` module, computed by
biasamp. Load it offline with ``evaluate.load(biasamp.evaluate_module_path("mals"))``.
"""

import evaluate

from biasamp.hf_evaluate._compute import mals_outputs
from biasamp.hf_evaluate._module_info import metric_info

_DESCRIPTION = """BiasAmp_MALS ("Men Also Like Shopping"): the mean increase of the
group bias b(t, g) = P(g | t) from the labels to the predictions, over the pairs
biased in the labels. Computed by biasamp (biasamp.mals)."""

_KWARGS_DESCRIPTION = """
Args:
    predictions: (n, |T|) 0/1 predicted tasks.
    references: (n, |T|) 0/1 ground-truth tasks (the side whose bias is amplified).
    attributes: (n, |A|) 0/1 ground-truth attributes.
    attribute_predictions: (n, |A|) 0/1 predicted attributes.
    margin: the margin of the violation count (default 0.05).
    soft: read predictions and attribute_predictions as probabilities in [0, 1].
        Without it every value must be 0 or 1: a probability is refused, never cast.
    n_boot, random_state: a bootstrap interval.
Returns:
    bias_amplification: float; violations: int; ci_low, ci_high with n_boot.
"""

_CITATION = """@inproceedings{zhao2017men,
  author = {Jieyu Zhao and Tianlu Wang and Mark Yatskar and Vicente Ordonez and Kai-Wei Chang},
  title = {Men Also Like Shopping: Reducing Gender Bias Amplification using Corpus-level Constraints},
  booktitle = {EMNLP},
  year = {2017}
}"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class BiasampMals(evaluate.Metric):
    def _info(self):
        return metric_info(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            columns=["predictions", "references", "attributes", "attribute_predictions"],
            reference_url="https://arxiv.org/abs/1707.09457",
        )

    def _compute(self, predictions, references, attributes, attribute_predictions, **options):
        return mals_outputs(predictions, references, attributes, attribute_predictions, **options)
