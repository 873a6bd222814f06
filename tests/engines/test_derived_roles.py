"""Score thresholds and intersected label columns counted by the engines equal the in-memory
library: threshold (or ``biasamp.intersect``) in memory, then ``CountTable.from_arrays``."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import biasamp
from biasamp import (
    ColumnRoles,
    CountTable,
    IntersectedColumns,
    ScoreColumns,
    counts_from_files,
    pattern_counts_from_files,
)
from biasamp.counts._pattern_counts import PatternCountTable
from biasamp.engines import _duckdb
from biasamp.engines._derived_roles import (
    ERR_INTERSECTED_MISSING,
    ERR_SCORE_VALUE,
    FIRST_IN_FILE,
)
from biasamp.engines._duckdb import ERR_FIRST_BAD_ROW
from biasamp.engines._exclusive_groups import exclusive_group_predictions
from biasamp.engines._files import ERR_CHUNK
from biasamp.engines._group_sums import ALLOWED_SCORES, ERR_BAD_VALUES
from biasamp.inputs._column_roles import (
    ERR_EXCLUSIVE,
    ERR_INTERSECTED_COLUMNS,
    ERR_SCORES_ROLE,
    ERR_THRESHOLD_LABELS,
    ERR_THRESHOLD_VALUE,
)
from biasamp.inputs._intersect import ERR_SEP_COLLISION
from biasamp.metrics._directional import directional_from_counts
from tests.engines.test_files import assert_tables_equal

pytest.importorskip("pyarrow")
pytest.importorskip("duckdb")

TASKS = ["ski", "cook", "surf"]
#: numpy chunks; DuckDB's SQL aggregate; DuckDB's Arrow batches summed in numpy
ENGINES = ["numpy", "duckdb-sql", "duckdb-arrow"]


def make_frame(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "race": rng.choice(["b", "a", "c"], n),
            "age": rng.choice([10, 2, 33], n),  # "10" sorts before "2" as a label
            "sex": rng.choice(["f", "m"], n),
            "m": rng.integers(0, 2, n),
        }
    )
    frame["w"] = 1 - frame["m"]
    # scores on a 0.1 grid: many equal a threshold, so "score > threshold" is strict here
    frame["score_m"] = rng.integers(0, 11, n) / 10
    frame["score_w"] = rng.integers(0, 11, n) / 10
    for t in TASKS:
        frame[t] = rng.integers(0, 2, n)
        frame[f"p_{t}"] = rng.integers(0, 11, n) / 10
    return frame


@pytest.fixture(params=ENGINES)
def engine(request, monkeypatch):
    if request.param == "duckdb-arrow":
        monkeypatch.setattr(_duckdb, "SQL_COLUMNS", 0)
    return request.param.split("-")[0]


@pytest.fixture(params=["parquet", "csv"])
def files(request, tmp_path):
    frames = [make_frame(n, seed) for seed, n in enumerate([57, 1, 140])]
    paths = []
    for i, frame in enumerate(frames):
        path = tmp_path / f"part{i}.{request.param}"
        if request.param == "csv":
            frame.to_csv(path, index=False)
        else:
            frame.to_parquet(path, index=False)
        paths.append(path)
    return paths, pd.concat(frames, ignore_index=True)


def thresholded(frame: pd.DataFrame, columns: dict[str, str], cut: dict[str, float]):
    """In memory: score > threshold per label, as 0/1 columns named by label."""
    return pd.DataFrame(
        {label: (frame[column] > cut[label]).astype(np.uint8) for column, label in columns.items()}
    )


def test_task_thresholds_per_label_equal_thresholding_in_memory(files, engine):
    paths, frame = files
    cut = {"ski": 0.3, "cook": 0.5, "surf": 0.7}
    table = counts_from_files(
        paths,
        groups="sex",
        tasks=TASKS,
        tasks_pred=ScoreColumns(prefix="p_", threshold=cut),
        engine=engine,
        chunk_size=23,
    )
    expected = CountTable.from_arrays(
        groups=frame["sex"],
        tasks=frame[TASKS],
        tasks_pred=thresholded(frame, {f"p_{t}": t for t in TASKS}, cut),
    )
    assert_tables_equal(table, expected)
    got = directional_from_counts(table, direction="A->T", min_group_size=None)
    want = directional_from_counts(expected, direction="A->T", min_group_size=None)
    assert got.value == want.value  # the metric from the counts: identical too


def test_group_scores_with_one_threshold_equal_thresholding_in_memory(files, engine):
    paths, frame = files
    table = counts_from_files(
        paths,
        groups=["m", "w"],
        groups_pred=ScoreColumns({"score_w": "w", "score_m": "m"}, threshold=0.4),
        tasks=TASKS,
        sample_weight=None,
        engine=engine,
        chunk_size=50,
    )
    expected = CountTable.from_arrays(
        groups=frame[["m", "w"]],
        groups_pred=thresholded(frame, {"score_m": "m", "score_w": "w"}, {"m": 0.4, "w": 0.4}),
        tasks=frame[TASKS],
    )
    assert_tables_equal(table, expected)


def test_intersected_groups_equal_intersect_then_counting(files, engine):
    paths, frame = files
    table = counts_from_files(
        paths,
        groups=IntersectedColumns(["race", "age", "sex"]),
        tasks=TASKS,
        tasks_pred=ScoreColumns(prefix="p_", threshold=0.5),
        engine=engine,
        chunk_size=31,
    )
    groups = biasamp.intersect(frame[["race", "age", "sex"]])
    expected = CountTable.from_arrays(
        groups=groups,
        tasks=frame[TASKS],
        tasks_pred=thresholded(frame, {f"p_{t}": t for t in TASKS}, dict.fromkeys(TASKS, 0.5)),
    )
    assert "a x 10 x f" in table.group_names  # str() of each part, joined by " x "
    assert_tables_equal(table, expected)


def test_intersected_predicted_groups_and_given_names(tmp_path, engine):
    frame = make_frame(80, 3)
    frame["race_pred"] = np.roll(frame["race"].to_numpy(), 1)
    frame["sex_pred"] = frame["sex"]
    path = tmp_path / "x.parquet"
    frame.to_parquet(path, index=False)
    names = sorted(biasamp.intersect(frame[["race", "sex"]]).cat.categories) + ["z x z"]
    table = counts_from_files(
        path,
        groups=IntersectedColumns(["race", "sex"]),
        groups_pred=IntersectedColumns(["race_pred", "sex_pred"]),
        tasks=TASKS,
        group_names=names,
        engine=engine,
    )
    expected = CountTable.from_arrays(
        groups=biasamp.intersect(frame[["race", "sex"]]),
        groups_pred=biasamp.intersect(frame[["race_pred", "sex_pred"]]),
        tasks=frame[TASKS],
        group_names=names,
    )
    assert_tables_equal(table, expected)


def test_pattern_counts_with_scores_equal_in_memory(files):
    paths, frame = files
    kwargs = dict(
        groups=["m", "w"],
        groups_pred=ScoreColumns({"score_m": "m", "score_w": "w"}, threshold={"m": 0.2, "w": 0.6}),
        tasks=TASKS,
        tasks_pred=ScoreColumns(prefix="p_", threshold=0.5),
    )
    expected = PatternCountTable.from_arrays(
        groups=frame[["m", "w"]],
        groups_pred=thresholded(frame, {"score_m": "m", "score_w": "w"}, {"m": 0.2, "w": 0.6}),
        tasks=frame[TASKS],
        tasks_pred=thresholded(frame, {f"p_{t}": t for t in TASKS}, dict.fromkeys(TASKS, 0.5)),
    )
    for engine in ("numpy", "duckdb"):
        table = pattern_counts_from_files(paths, **kwargs, engine=engine, chunk_size=40)
        assert table.n_rows == len(frame)
        for role in ("tasks", "tasks_pred"):
            np.testing.assert_array_equal(table.patterns[role], expected.patterns[role])
            np.testing.assert_array_equal(table.pattern_totals[role], expected.pattern_totals[role])
        for key in expected.joint:
            np.testing.assert_array_equal(table.joint[key], expected.joint[key])


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_pattern_counts_of_intersections(tmp_path, fmt):
    """Both engines: DuckDB keeps the parts as keys of its distinct rows, then joins them."""
    frame = make_frame(60, 4)
    path = tmp_path / f"x.{fmt}"
    frame.to_parquet(path, index=False) if fmt == "parquet" else frame.to_csv(path, index=False)
    roles = dict(groups=IntersectedColumns(["race", "age"]), tasks=TASKS)
    expected = PatternCountTable.from_arrays(
        groups=biasamp.intersect(frame[["race", "age"]]), tasks=frame[TASKS]
    )
    for engine in ("numpy", "duckdb"):
        table = pattern_counts_from_files(path, **roles, chunk_size=7, engine=engine)
        assert table.group_names == expected.group_names
        for key in expected.joint:
            np.testing.assert_array_equal(table.joint[key], expected.joint[key])
    missing = frame.astype({"race": object})
    missing.loc[[3, 8], "race"] = None
    missing.to_parquet(tmp_path / "m.parquet", index=False)
    with pytest.raises(ValueError) as info:
        pattern_counts_from_files(tmp_path / "m.parquet", **roles, engine="duckdb")
    assert str(info.value) == f"{tmp_path / 'm.parquet'}: " + ERR_INTERSECTED_MISSING.format(
        role="groups", column="race", count=2, first=""
    )


@pytest.mark.parametrize("bad", [np.inf, -np.inf, None])
def test_infinite_or_missing_scores_are_refused(tmp_path, bad):
    frame = make_frame(30, 5)
    frame.loc[12, "p_cook"] = np.nan if bad is None else bad  # NaN is written as missing
    path = tmp_path / "bad.parquet"
    frame.to_parquet(path, index=False)
    roles = dict(groups="sex", tasks=TASKS, tasks_pred=ScoreColumns(prefix="p_", threshold=0.5))
    with pytest.raises(ValueError) as info:
        counts_from_files(path, **roles, chunk_size=10)
    shown = ERR_SCORE_VALUE.format(role="tasks_pred", column="p_cook", value=bad, row=3)
    assert str(info.value) == ERR_CHUNK.format(path=path, chunk=1, start=10, stop=19, message=shown)
    with pytest.raises(ValueError) as info:
        counts_from_files(path, **roles, engine="duckdb")
    assert str(info.value) == f"{path}: " + ERR_BAD_VALUES.format(
        where="", role="tasks_pred", count=1, column="p_cook", allowed=ALLOWED_SCORES
    ) + ERR_FIRST_BAD_ROW.format(row=13, value=bad)


def test_logit_scores_count_as_thresholded_in_memory(tmp_path, engine):
    """Scores are any finite numbers: logits outside [0, 1] with a threshold on their scale
    give the in-memory ``score > threshold`` on every engine."""
    frame = make_frame(40, 13)
    for task in TASKS:
        frame[f"p_{task}"] = (frame[f"p_{task}"] - 0.5) * 8.0  # logits, mostly outside [0, 1]
    assert (frame[[f"p_{t}" for t in TASKS]].abs() > 1).any().all()
    path = tmp_path / "logits.parquet"
    frame.to_parquet(path, index=False)
    cuts = dict(zip(TASKS, [-1.5, 0.0, 2.0], strict=True))
    table = counts_from_files(
        path,
        groups="sex",
        tasks=list(TASKS),
        tasks_pred=ScoreColumns(prefix="p_", threshold=cuts),
        engine=engine,
    )
    decided = pd.DataFrame({t: (frame[f"p_{t}"] > cuts[t]).astype(np.uint8) for t in TASKS})
    expected = CountTable.from_arrays(
        groups=frame["sex"].to_numpy(), tasks=frame[list(TASKS)], tasks_pred=decided
    )
    for key in expected.joint:
        np.testing.assert_array_equal(table.joint[key], expected.joint[key])


def test_duckdb_names_the_file_and_first_row_of_a_bad_value(tmp_path):
    good, bad = make_frame(20, 8), make_frame(30, 9)
    bad.loc[[21, 25], "p_ski"] = np.inf
    bad.loc[4, "ski"] = 2
    paths = [tmp_path / "a.csv", tmp_path / "b.csv"]
    good.to_csv(paths[0], index=False)
    bad.to_csv(paths[1], index=False)
    roles = dict(groups="sex", tasks=TASKS, tasks_pred=ScoreColumns(prefix="p_"))
    with pytest.raises(ValueError) as info:
        counts_from_files(paths, **roles, engine="duckdb")
    assert str(info.value) == f"{paths[1]}: " + ERR_BAD_VALUES.format(
        where="", role="tasks", count=1, column="ski", allowed="0 or 1"
    ) + ERR_FIRST_BAD_ROW.format(row=5, value=2)
    bad.loc[4, "ski"] = 1
    bad.to_csv(paths[1], index=False)
    with pytest.raises(ValueError) as info:
        counts_from_files(paths, **roles, engine="duckdb")
    assert str(info.value) == f"{paths[1]}: " + ERR_BAD_VALUES.format(
        where="", role="tasks_pred", count=2, column="p_ski", allowed=ALLOWED_SCORES
    ) + ERR_FIRST_BAD_ROW.format(row=22, value=np.inf)


def test_a_missing_group_score_is_refused_by_every_engine(tmp_path, engine):
    frame = make_frame(30, 6)
    frame.loc[4, "score_w"] = np.inf
    path = tmp_path / "bad.parquet"
    frame.to_parquet(path, index=False)
    with pytest.raises(ValueError, match=r"groups_pred: .*'score_w'") as info:
        counts_from_files(
            path,
            groups=["m", "w"],
            groups_pred=ScoreColumns({"score_m": "m", "score_w": "w"}),
            tasks=TASKS,
            engine=engine,
        )
    assert str(path) in str(info.value)


def test_missing_intersection_parts_are_refused_with_file_column_and_row(tmp_path, engine):
    frame = make_frame(30, 7).astype({"sex": object})
    frame.loc[[17, 21], "sex"] = None
    path = tmp_path / "missing.parquet"
    frame.to_parquet(path, index=False)
    with pytest.raises(ValueError) as info:
        counts_from_files(
            path, groups=IntersectedColumns(["race", "sex"]), tasks=TASKS, engine=engine
        )
    if engine == "numpy":  # the label names are read first, over the whole file
        first = FIRST_IN_FILE.format(row=18)
    else:
        first = ""
    assert str(info.value) == f"{path}: " + ERR_INTERSECTED_MISSING.format(
        role="groups", column="sex", count=2, first=first
    )


def test_an_intersection_label_made_twice_is_refused(tmp_path, engine):
    frame = pd.DataFrame(
        {"a": ["x y", "x", "x"], "b": ["z", "y z", "y z"], "ski": [1, 0, 1]}
    )  # ("x y", "z") and ("x", "y z") both read "x y z" with sep " "
    path = tmp_path / "x.csv"
    frame.to_csv(path, index=False)
    with pytest.raises(ValueError) as info:
        counts_from_files(
            path, groups=IntersectedColumns(["a", "b"], sep=" "), tasks=["ski"], engine=engine
        )
    assert str(info.value).endswith(ERR_SEP_COLLISION.format(sep=" ", label="x y z"))


def test_role_spec_errors():
    columns = ["g", "ski", "p_ski", "a", "b"]
    with pytest.raises(ValueError) as info:
        ColumnRoles.resolve(columns, groups=ScoreColumns(["g"]), tasks=["ski"])
    assert str(info.value) == ERR_SCORES_ROLE.format(role="groups")
    with pytest.raises(ValueError) as info:
        ColumnRoles.resolve(
            columns,
            groups="g",
            tasks=["ski"],
            tasks_pred=ScoreColumns({"p_ski": "ski"}, threshold=np.inf),
        )
    assert str(info.value) == ERR_THRESHOLD_VALUE.format(
        role="tasks_pred", label="ski", value=np.inf
    )
    with pytest.raises(ValueError) as info:
        ColumnRoles.resolve(
            columns,
            groups="g",
            tasks=["ski"],
            tasks_pred=ScoreColumns({"p_ski": "ski"}, threshold={"cook": 0.5}),
        )
    assert str(info.value) == ERR_THRESHOLD_LABELS.format(
        role="tasks_pred", missing="'ski'", unexpected="'cook'"
    )
    with pytest.raises(ValueError) as info:
        ColumnRoles.resolve(columns, groups=IntersectedColumns(["a"]), tasks=["ski"])
    assert str(info.value) == ERR_INTERSECTED_COLUMNS.format(role="groups", got=["a"])
    roles = ColumnRoles.resolve(
        columns,
        groups=IntersectedColumns(["a", "b"]),
        tasks=["ski"],
        tasks_pred=ScoreColumns({"p_ski": "ski"}, threshold=0.25),
    )
    assert roles.columns() == ["a", "b", "ski", "p_ski"]
    assert roles.tasks_pred.thresholds == (0.25,) and roles.groups.is_label


@pytest.mark.parametrize("n_groups", [2, 3])
def test_exclusive_group_scores_equal_the_in_memory_decision(tmp_path, engine, n_groups):
    frame = make_frame(150, 12)
    groups = ["m", "w", "x"][:n_groups]
    truth = np.random.default_rng(3).integers(0, n_groups, len(frame))
    for j, g in enumerate(groups):
        frame[f"is_{g}"] = (truth == j).astype(int)
        frame[f"s_{g}"] = np.random.default_rng(j).integers(0, 11, len(frame)) / 10
    path = tmp_path / "x.parquet"
    frame.to_parquet(path, index=False)
    cut = dict(zip(groups, [0.3, 0.6, 0.5], strict=False))
    positive = "m" if n_groups == 2 else None
    table = counts_from_files(
        path,
        groups={f"is_{g}": g for g in groups},
        groups_pred=ScoreColumns(
            {f"s_{g}": g for g in reversed(groups)},
            threshold=cut,
            exclusive=True,
            positive=positive,
        ),
        tasks=TASKS,
        engine=engine,
        chunk_size=40,
    )
    scores = frame[[f"s_{g}" for g in groups]].to_numpy()
    decided = exclusive_group_predictions(scores, groups, cut, default=0.5, positive=positive)
    expected = CountTable.from_arrays(
        groups=frame[[f"is_{g}" for g in groups]].set_axis(groups, axis=1),
        groups_pred=pd.DataFrame(decided, columns=groups),
        tasks=frame[TASKS],
    )
    assert (decided.sum(axis=1) == 1).all()
    assert_tables_equal(table, expected)


def test_exclusive_scores_need_group_predictions():
    with pytest.raises(ValueError) as info:
        ColumnRoles.resolve(
            ["g", "ski", "p_ski", "p_cook"],
            groups="g",
            tasks=["ski"],
            tasks_pred=ScoreColumns({"p_ski": "ski"}, exclusive=True),
        )
    assert str(info.value) == ERR_EXCLUSIVE.format(role="tasks_pred")
