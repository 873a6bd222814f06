"""The Spark counters refuse what is not a Spark DataFrame before starting any Spark job."""

from __future__ import annotations

import pandas as pd
import pytest

from biasamp import counts_from_spark, pattern_counts_from_spark
from biasamp.engines._spark import ERR_SPARK_FRAME

pytest.importorskip("pyspark")


@pytest.mark.parametrize("counter", [counts_from_spark, pattern_counts_from_spark])
def test_a_pandas_frame_is_refused_naming_the_argument(counter) -> None:
    frame = pd.DataFrame({"gender": ["man", "woman"], "dog": [1, 0]})
    with pytest.raises(TypeError) as caught:
        counter(frame, groups="gender", tasks=["dog"])
    assert str(caught.value) == ERR_SPARK_FRAME.format(type_name="DataFrame")
