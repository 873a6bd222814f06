"""BiasAmp_MALS (Zhao et al., 2017) as a Hugging Face ``evaluate`` module, computed by
biasamp. Load it offline with ``evaluate.load(biasamp.evaluate_module_path("mals"))``.
"""

import evaluate

from biasamp.hf_evaluate._compute import mals_outputs
from biasamp.hf_evaluate._module_info import module_description, registry_metric_info

_DESCRIPTION = module_description("mals")  # the metric registry's words

_KWARGS_DESCRIPTION = """
Args:
    predictions: (n, |T|) 0/1 predicted tasks.
    references: (n, |T|) 0/1 ground-truth tasks (the side whose bias is amplified,
        unless a training split is given).
    attributes: (n, |A|) 0/1 ground-truth attributes.
    attribute_predictions: (n, |A|) 0/1 predicted attributes.
    margin: the margin of the violation count (default 0.05).
    train_references, train_attributes: a training split of any length, which
        fixes the training bias (then references and attributes are the
        evaluation rows' ground truth).
    soft: read predictions and attribute_predictions as probabilities in [0, 1].
        Without it every value must be 0 or 1: a probability is refused, never cast.
    n_boot, random_state: a bootstrap interval.
Returns:
    mals: float (the canonical name; "bias_amplification" warns until 0.5.0); metric: "mals";
    violations: int; ci_low, ci_high with n_boot.
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class BiasampMals(evaluate.Metric):
    def _info(self):
        return registry_metric_info(
            "mals",
            inputs_description=_KWARGS_DESCRIPTION,
            columns=["predictions", "references", "attributes", "attribute_predictions"],
        )

    def _compute(self, predictions, references, attributes, attribute_predictions, **options):
        return mals_outputs(predictions, references, attributes, attribute_predictions, **options)
