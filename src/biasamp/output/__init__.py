"""Writing output files safely: atomically, in the target's directory."""

from biasamp.output._atomic import atomic_output

__all__ = ["atomic_output"]
