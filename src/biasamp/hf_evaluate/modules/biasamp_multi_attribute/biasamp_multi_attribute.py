"""Multi-attribute bias amplification (Zhao et al., 2023) as a Hugging Face ``evaluate``
module, computed by biasamp. Load it offline with
``evaluate.load(biasamp.evaluate_module_path("multi_attribute"))``.
"""

import evaluate

from biasamp.hf_evaluate._compute import multi_attribute_outputs
from biasamp.hf_evaluate._module_info import metric_info

_DESCRIPTION = """Multi_A->T / Multi_T->A: directional bias amplification over every
combination of the attribute columns, with the variance over the biased pairs.
Computed by biasamp (biasamp.multi_directional)."""

_KWARGS_DESCRIPTION = """
Args:
    predictions: (n, |T|) 0/1 predicted tasks (A->T), or (n, |A|) 0/1 predicted
        attributes (T->A).
    references: (n, |T|) 0/1 ground-truth tasks.
    attributes: (n, |A|) 0/1 ground-truth attributes.
    direction: "A->T" (default) or "T->A".
    train_references, train_attributes: the training split (default: the
        references and attributes given).
    Every value must be 0 or 1: a probability is refused, never cast to an integer.
    n_boot, random_state: a bootstrap interval.
Returns:
    bias_amplification: float; variance: float; direction; ci_low, ci_high with n_boot.
"""

_CITATION = """@inproceedings{zhao2023combating,
  author = {Dora Zhao and Jerone T. A. Andrews and Alice Xiang},
  title = {Men Also Do Laundry: Multi-Attribute Bias Amplification},
  booktitle = {International Conference on Machine Learning (ICML)},
  year = {2023}
}"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class BiasampMultiAttribute(evaluate.Metric):
    def _info(self):
        return metric_info(
            description=_DESCRIPTION,
            citation=_CITATION,
            inputs_description=_KWARGS_DESCRIPTION,
            columns=["predictions", "references", "attributes"],
            reference_url="https://arxiv.org/abs/2210.11924",
        )

    def _compute(self, predictions, references, attributes, **options):
        return multi_attribute_outputs(predictions, references, attributes, **options)
