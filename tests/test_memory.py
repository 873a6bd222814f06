"""Memory estimates: a huge allocation is refused with the estimate, a small one passes."""

from __future__ import annotations

import pytest

from biasamp._memory import available_memory, check_allocation, format_bytes


def test_format_bytes() -> None:
    assert format_bytes(512) == "512 bytes"
    assert format_bytes(1536) == "1.5 KiB"
    assert format_bytes(7 * 1024**4) == "7.0 TiB"


def test_available_memory_is_read() -> None:
    available = available_memory()
    assert available is not None and available > 0


def test_small_allocation_passes() -> None:
    check_allocation(1024, what="a small table", advice="none needed")


def test_huge_allocation_is_refused_with_the_estimate() -> None:
    with pytest.raises(ValueError, match=r"n_boot=10\*\*9 tables would need about 7\.0 TiB") as e:
        check_allocation(7 * 1024**4, what="n_boot=10**9 tables", advice="use fewer replicates")
    assert "use fewer replicates" in str(e.value)
