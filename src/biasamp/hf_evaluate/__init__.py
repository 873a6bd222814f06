"""Hugging Face ``evaluate`` modules computed by biasamp, shipped in the package.

``evaluate.load(biasamp.evaluate_module_path("directional"))`` loads one offline
(no hub, no network). The modules need ``evaluate`` (``pip install
'biasamp[evaluate]'``); this package does not import it.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["EVALUATE_MODULES", "evaluate_module_path"]

#: The shipped modules: name -> folder under ``modules/``.
EVALUATE_MODULES = {
    "directional": "biasamp_directional",
    "mals": "biasamp_mals",
    "multi_attribute": "biasamp_multi_attribute",
}

ERR_MODULE = "name: expected one of {known}, got {got!r}."


def evaluate_module_path(name: str) -> str:
    """The folder of a shipped ``evaluate`` module, for ``evaluate.load(path)``.

    Parameters
    ----------
    name : {"directional", "mals", "multi_attribute"}

    Returns
    -------
    str
        An absolute path inside the installed package.

    Examples
    --------
    >>> from biasamp import evaluate_module_path
    >>> evaluate_module_path("directional").endswith("biasamp_directional")
    True
    """
    if name not in EVALUATE_MODULES:
        raise ValueError(ERR_MODULE.format(known=sorted(EVALUATE_MODULES), got=name))
    return str(Path(__file__).parent / "modules" / EVALUATE_MODULES[name])
