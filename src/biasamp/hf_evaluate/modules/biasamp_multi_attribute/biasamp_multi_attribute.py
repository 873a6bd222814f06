"""Multi-attribute bias amplification (Zhao et al., 2023) as a Hugging Face ``evaluate``
module, computed by biasamp. Load it offline with
``evaluate.load(biasamp.evaluate_module_path("multi_attribute"))``.
"""

import evaluate

from biasamp.hf_evaluate._compute import multi_attribute_outputs
from biasamp.hf_evaluate._module_info import module_description, registry_metric_info

_DESCRIPTION = module_description("multi_directional")  # the metric registry's words

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
    multi-a2t or multi-t2a: float; metric; variance: float; direction; ci_low, ci_high
    with n_boot.
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class BiasampMultiAttribute(evaluate.Metric):
    def _info(self):
        return registry_metric_info(
            "multi_directional",
            inputs_description=_KWARGS_DESCRIPTION,
            columns=["predictions", "references", "attributes"],
        )

    def _compute(self, predictions, references, attributes, **options):
        return multi_attribute_outputs(predictions, references, attributes, **options)
