"""biasamp metrics as torchmetrics classes, for training and evaluation loops.

Install with ``pip install "biasamp[torch]"``. This module imports torch and
torchmetrics; ``import biasamp`` never does (nothing else in biasamp imports
this module).

:class:`DirectionalBiasAmplification` (BiasAmp->, both directions) and
:class:`MALSBiasAmplification` (BiasAmp_MALS) are ``torchmetrics.Metric``
subclasses: ``update(groups=..., tasks=..., tasks_pred=...)`` per batch,
``compute()`` for the value as a 0-d tensor, ``compute_result()`` for the full
biasamp result (per-pair table, top pairs, interval with ``n_boot``). States are
count tables reduced by summation, so values are exact across batches and
processes (``torch.distributed``). :class:`MultiAttributeBiasAmplification`
(Multi-> in either direction, or Multi_MALS) keeps the evaluation rows' pattern
counts in list states concatenated across processes and builds M in
``compute()``. See ``docs/training_loop.md``.
"""

ERR_TORCH = (
    "biasamp.torchmetrics needs torch and torchmetrics ({missing} is missing): "
    'pip install "biasamp[torch]".'
)

try:
    import torch  # noqa: F401
    import torchmetrics  # noqa: F401
except ImportError as error:  # the install command, not a bare ModuleNotFoundError
    raise ImportError(ERR_TORCH.format(missing=error.name or "torch"), name=error.name) from error

from biasamp.torchmetrics._metrics import (  # noqa: E402
    DirectionalBiasAmplification,
    MALSBiasAmplification,
)
from biasamp.torchmetrics._multi_attribute import MultiAttributeBiasAmplification  # noqa: E402

__all__ = [
    "DirectionalBiasAmplification",
    "MALSBiasAmplification",
    "MultiAttributeBiasAmplification",
]
