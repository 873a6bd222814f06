"""Intersectional groups on Adult: differential-fairness amplification of a model
=================================================================================

A logistic regression predicts whether a person earns more than $50K from the UCI
Adult census data (the train split fits it, the 16,281 rows of the test split are
scored; ``examples/data/adult``). The groups are the intersections of three columns,
race x sex x native country (:func:`biasamp.intersect`; a missing country is its own
level), as in Foulds et al. (ICDE 2020) and AIF360.

* **Differential fairness** (:func:`biasamp.differential_fairness_amplification`):
  epsilon, the largest absolute log-ratio of the smoothed rate of a class between
  two groups, for the test labels and for the model's predictions, and their
  difference, the amplification, with a 95% bootstrap interval.
* **Which pair sets epsilon** (``result.by_pair``): the pair of intersections and the
  class behind each maximum, with the intersected columns shown separately.
* **Small groups** (``result.group_sizes``, ``SmallGroupWarning``): most
  intersections of three columns are tiny, and the largest log-ratios come from
  them; the heatmap shows the 30 largest groups only, and the comparison with only
  the groups of at least 30 rows shows how much the maximum depends on them.

Run ``python examples/13_adult_intersectional.py``; it writes
``docs/gallery/13_adult_intersectional.png`` and ``.md``.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import _gallery
import numpy as np
import pandas as pd
from sklearn.compose import make_column_transformer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

import biasamp

DATA = _gallery.DATA / "adult"  # sphinx-gallery runs the script without __file__
PROTECTED = ["race", "sex", "native-country"]
NUMERIC = ["age", "education-num", "capital-gain", "capital-loss", "hours-per-week"]
CATEGORICAL = ["workclass", "marital-status", "occupation", "relationship"]
N_BOOT = 200


def fit_predict() -> tuple[pd.DataFrame, np.ndarray]:
    """The test split and the model's predicted income class for each of its rows.

    The model sees the usual features, not the protected columns (as AIF360's
    tests, which also use a logistic regression), so any amplification comes from
    features correlated with them.
    """
    train = pd.read_csv(DATA / "train.csv.gz")
    test = pd.read_csv(DATA / "test.csv.gz")
    features = make_column_transformer(
        (StandardScaler(), NUMERIC),
        (OneHotEncoder(handle_unknown="ignore"), CATEGORICAL),
    )
    model = make_pipeline(features, LogisticRegression(max_iter=1000))
    filled = {c: "Unknown" for c in CATEGORICAL}
    model.fit(train.fillna(filled), train["income"])
    return test, model.predict(test.fillna(filled))


def main(output_dir: Path | str | None = None) -> dict[str, float]:
    """Measure, draw the heatmap, write the table; return the key numbers."""
    out = _gallery.output_dir(output_dir)
    plt = _gallery.pyplot()
    test, pred = fit_predict()
    groups = biasamp.intersect(test[PROTECTED], missing="category")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", biasamp.SmallGroupWarning)  # reported below
        result = biasamp.differential_fairness_amplification(
            groups=groups, labels=test["income"], labels_pred=pred,
            n_boot=N_BOOT, random_state=0,
        )  # fmt: skip
        large = test.index[groups.map(result.group_sizes["evaluation"]).to_numpy() >= 30]
        large_only = biasamp.differential_fairness_amplification(
            groups=groups[large].cat.remove_unused_categories(),
            labels=test["income"][large], labels_pred=pred[large],
        )  # fmt: skip

    fig, ax = plt.subplots(figsize=(10, 8.5), layout="constrained")
    result.plot(ax=ax, max_groups=30)
    ax.set_title(
        "Adult test split, race x sex x native country: log-ratio of the smoothed\n"
        f"predicted rate, row over column (30 largest of {len(result.groups)} groups)",
        fontsize=10,
    )
    fig.savefig(out / "13_adult_intersectional.png", dpi=100)
    plt.close(fig)

    columns = ["race_a", "sex_a", "native-country_a", "race_b", "sex_b", "native-country_b",
               "label", "log_ratio_labels", "log_ratio_pred"]  # fmt: skip
    top = result.by_pair.head(5)[columns]
    sizes = result.group_sizes["evaluation"]
    summary = pd.DataFrame(
        {
            "groups": ["all that occur", "at least 30 rows"],
            "n groups": [len(result.groups), len(large_only.groups)],
            "epsilon(labels)": [result.epsilon_labels, large_only.epsilon_labels],
            "epsilon(pred)": [result.epsilon_pred, large_only.epsilon_pred],
            "amplification": [result.value, large_only.value],
        }
    )
    text = "\n\n".join(
        [
            f"Amplification {result.value:+.3f}, 95% bootstrap interval "
            f"[{result.ci[0]:+.3f}, {result.ci[1]:+.3f}] ({N_BOOT} replicates); "
            f"{len(result.small_groups)} of {len(result.groups)} groups have fewer than 30 rows; "
            f"{len(result.never_occurring)} combinations of the three columns never occur.",
            _gallery.markdown_table(summary, floatfmt=".3f"),
            "The five largest predicted log-ratios:",
            _gallery.markdown_table(top, floatfmt=".3f"),
        ]
    )
    (out / "13_adult_intersectional.md").write_text(text + "\n", encoding="utf-8")
    print(text)
    return {
        "epsilon labels": result.epsilon_labels,
        "epsilon pred": result.epsilon_pred,
        "amplification": result.value,
        "ci low": result.ci[0],
        "ci high": result.ci[1],
        "groups": float(len(result.groups)),
        "small groups": float(len(result.small_groups)),
        "never occurring": float(len(result.never_occurring)),
        "largest group": float(sizes.max()),
        "amplification, groups of 30+": large_only.value,
        "epsilon labels, groups of 30+": large_only.epsilon_labels,
    }


if __name__ == "__main__":
    main()
