"""The numpy engine's one pass: label names found while counting, 0/1 columns as bytes,
and the ragged-row check a complete read makes unnecessary."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from biasamp import counts_from_files
from biasamp.counts._count_table import with_label_names
from biasamp.engines import _file_formats
from biasamp.engines._file_formats import RaggedRowError, check_field_counts
from biasamp.engines._files import ERR_ON_LABELS, _stacked, iter_file_batches

pytest.importorskip("pyarrow")


def _frame(n: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    # the label "x" first shows in the last rows, the predicted label "z" only there
    groups = np.where(rng.random(n) < 0.5, "m", "w").astype(object)
    groups[-3:] = "x"
    said = groups.copy()
    said[-1] = "z"
    return pd.DataFrame(
        {
            "g": groups,
            "pred_g": said,
            "a": rng.integers(0, 2, n),
            "b": rng.integers(0, 2, n),
            "pred_a": rng.integers(0, 2, n),
            "pred_b": rng.integers(0, 2, n),
        }
    )


@pytest.mark.parametrize("chunk_size", [7, 1000])
def test_labels_found_while_counting_give_the_table_of_known_names(tmp_path, chunk_size):
    """Labels that first appear in a late chunk: the table laid out by the names equals the
    table counted under them, and on_labels gets each role's labels."""
    path = tmp_path / "data.csv"
    _frame(60).to_csv(path, index=False)
    roles = {
        "groups": "g",
        "groups_pred": "pred_g",
        "tasks": ["a", "b"],
        "tasks_pred": {"pred_a": "a", "pred_b": "b"},
    }
    found = {}
    table = counts_from_files(
        str(path), **roles, chunk_size=chunk_size, engine="numpy", on_labels=found.update
    )
    assert found == {"groups": ("m", "w", "x"), "groups_pred": ("m", "w", "x", "z")}
    assert table.group_names == ("m", "w", "x", "z")  # truth and predictions together
    names = ("m", "w", "x", "y", "z")
    known = counts_from_files(str(path), **roles, group_names=names, chunk_size=chunk_size)
    laid_out = with_label_names(table, group_names=names)
    for key, counts in known.joint.items():
        np.testing.assert_array_equal(laid_out.joint[key], counts)
    for role, counts in known.totals.items():
        np.testing.assert_array_equal(laid_out.totals[role], counts)
    assert table.n_rows == known.n_rows == 60


def test_on_labels_needs_the_numpy_engine_and_single_label_columns(tmp_path):
    path = tmp_path / "data.csv"
    _frame(20).to_csv(path, index=False)
    with pytest.raises(ValueError) as info:
        counts_from_files(str(path), groups="g", tasks=["a"], engine="duckdb", on_labels=print)
    assert str(info.value) == ERR_ON_LABELS


def test_zero_one_columns_are_stacked_as_bytes_and_other_values_kept():
    ones = np.array([0, 1, 1], dtype=np.int64)
    stacked = _stacked([ones, 1 - ones])
    assert stacked.dtype == np.int8 and stacked.tolist() == [[0, 1], [1, 0], [1, 0]]
    # 2, 256 (0 as a byte) and -1 keep their type, so the count refuses them
    for bad in (2, 256, -1):
        kept = _stacked([ones, np.array([0, bad, 1], dtype=np.int64)])
        assert kept.dtype == np.int64 and kept[1, 1] == bad
    floats = _stacked([ones.astype(float), ones.astype(float)])
    assert floats.dtype == np.float64


def test_a_value_other_than_0_and_1_is_still_refused(tmp_path):
    path = tmp_path / "data.csv"
    frame = _frame(20)
    frame.loc[5, "b"] = 256
    frame.to_csv(path, index=False)
    with pytest.raises(ValueError, match="'b'|b"):
        counts_from_files(str(path), groups="g", tasks=["a", "b"], engine="numpy", chunk_size=8)


def test_a_complete_read_spares_the_ragged_row_check_until_the_file_changes(tmp_path, monkeypatch):
    path = tmp_path / "data.csv"
    path.write_text("g,a\nm,1\nw,0\n")
    reads = []
    real = _file_formats.delimited_source
    monkeypatch.setattr(
        _file_formats, "delimited_source", lambda *a, **k: reads.append(a) or real(*a, **k)
    )
    assert sum(b.num_rows for b in iter_file_batches(str(path), ["g"], chunk_size=10)) == 2
    reads.clear()  # the schema's read
    check_field_counts(path)
    assert reads == []  # the reader parsed every row: no second read
    path.write_text("g,a\nm,1\nw,0,1\n")  # changed: checked again, and refused
    with pytest.raises(RaggedRowError):
        check_field_counts(path)
