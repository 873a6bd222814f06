"""Directional bias amplification (Wang & Russakovsky, 2021) as a Hugging Face ``evaluate``
module, computed by biasamp: both directions, the sign from a training split, intervals.

Load it offline with ``evaluate.load(biasamp.evaluate_module_path("directional"))``.
``mode="hub"`` accepts and returns what the hub module
``angelina-wang/directional_bias_amplification`` does (see
``biasamp.hf_evaluate._compute`` for where the values can differ, and why).
"""

import evaluate

from biasamp.hf_evaluate._compute import directional_outputs
from biasamp.hf_evaluate._module_info import module_description, registry_metric_info

_DESCRIPTION = module_description("directional")  # the metric registry's words

_KWARGS_DESCRIPTION = """
Args:
    predictions: (n, |T|) 0/1 predicted tasks (A->T), or (n, |A|) 0/1 predicted
        attributes (T->A).
    references: (n, |T|) 0/1 ground-truth tasks.
    attributes: (n, |A|) 0/1 ground-truth attributes.
    direction: "A->T" (default) or "T->A".
    mode: "biasamp" (default) or "hub" (the hub module's definition and output keys).
    train_references, train_attributes: the training split, which fixes the sign.
    soft: read predictions as probabilities in [0, 1] (mode "biasamp"). Without it
        every value must be 0 or 1: a probability is refused, never cast to an integer.
    n_boot, random_state: a bootstrap interval.
Returns:
    directional-a2t or directional-t2a: float (mode "hub": bias_amplification); metric.
    disagg_bias_amplification: (|A|, |T|) y_at * delta_at per pair (NaN: empty group).
    direction, ci_low, ci_high: mode "biasamp" (the interval with n_boot).
"""


@evaluate.utils.file_utils.add_start_docstrings(_DESCRIPTION, _KWARGS_DESCRIPTION)
class BiasampDirectional(evaluate.Metric):
    def _info(self):
        return registry_metric_info(
            "directional",
            inputs_description=_KWARGS_DESCRIPTION,
            columns=["predictions", "references", "attributes"],
        )

    def _compute(self, predictions, references, attributes, **options):
        return directional_outputs(predictions, references, attributes, **options)
