"""Replicate weights too large for memory are refused with the estimate, before allocating."""

from __future__ import annotations

import re

import pytest

from biasamp import replicate_weights
from biasamp._memory import MEMORY_ERROR


def test_replicate_weights_of_a_trillion_cells_are_refused_with_the_estimate() -> None:
    fixed = re.escape(MEMORY_ERROR.split("{needed}")[1].split("{available}")[0])
    with pytest.raises(ValueError, match=fixed) as info:
        replicate_weights(10**6, 10**6)
    message = str(info.value)
    assert "1000000 x 1000000" in message
    assert "7.3 TiB" in message  # 8 bytes x 10^12 cells
    assert "PoissonReplicates" in message


def test_small_replicate_weights_still_work() -> None:
    w = replicate_weights(5, 3, random_state=0)
    assert w.shape == (3, 5)
