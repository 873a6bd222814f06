"""Saved count tables round-trip without pickle, and an interrupted write leaves the old file."""

from __future__ import annotations

import numpy as np
import pytest

from biasamp import CountTable, atomic_output, load_counts, save_counts
from biasamp.counts._io import ERR_NOT_NPZ
from tests.engines.test_files import assert_tables_equal


def test_round_trip_with_replicates(tmp_path):
    table = CountTable.from_arrays(
        groups=["m", "w", "w"],
        tasks=[[1, 0], [1, 1], [0, 1]],
        replicate_weights=np.array([[1, 0, 2], [0, 1, 1.0]]),
    )
    path = tmp_path / "t.npz"
    save_counts(table, path)
    assert_tables_equal(load_counts(path), table)


def test_interrupted_write_keeps_the_previous_file(tmp_path, monkeypatch):
    path = tmp_path / "t.npz"
    first = CountTable.from_arrays(groups=["m"], tasks=["ski"])
    save_counts(first, path)
    before = path.read_bytes()

    def fail(handle, **arrays):
        handle.write(b"half a file")
        raise KeyboardInterrupt

    monkeypatch.setattr(np, "savez", fail)
    with pytest.raises(KeyboardInterrupt):
        save_counts(CountTable.from_arrays(groups=["w"], tasks=["cook"]), path)
    assert path.read_bytes() == before  # untouched
    assert [p.name for p in tmp_path.iterdir()] == ["t.npz"]  # no temporary file left
    with pytest.raises(ValueError, match="mode"):
        with atomic_output(tmp_path / "x", "a"):
            pass


def test_a_file_that_is_not_an_npz_archive_is_named(tmp_path):
    path = tmp_path / "counts.npz"
    path.write_text("group,task\nm,ski\n", encoding="utf-8")
    with pytest.raises(ValueError) as info:
        load_counts(path)
    assert str(info.value) == ERR_NOT_NPZ.format(path=path)


@pytest.mark.parametrize(
    "content", [b"", b"hello", b"PK\x03\x04not a zip", b"PK\x03\x04" + b"\x00" * 100]
)
def test_load_counts_names_a_file_that_is_not_a_count_table(tmp_path, content):
    path = tmp_path / "broken.npz"
    path.write_bytes(content)
    with pytest.raises(ValueError, match=r"broken\.npz: not a"):
        load_counts(path)


def test_load_counts_names_a_zip_that_is_not_a_count_table(tmp_path):
    import zipfile

    path = tmp_path / "other.npz"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("readme.txt", "hello")
    with pytest.raises(ValueError, match=r"other\.npz: not a biasamp count table"):
        load_counts(path)
