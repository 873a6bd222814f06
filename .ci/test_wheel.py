"""Test what ``pip install biasamp`` installs: the built wheel in a fresh virtual environment.

Run from anywhere: ``python .ci/test_wheel.py`` (needs ``build``, in the test extra, and
PyPI for the wheel's dependencies). It

1. builds the sdist and the wheel (``python -m build``) and checks their file lists: every
   file under ``src/biasamp`` except ``__pycache__`` is in both (so a new data file cannot be
   left out), with ``LICENSE`` and the data's ``PROVENANCE.md``;
2. creates a virtual environment (no system site-packages) in a temporary folder, installs
   the wheel there (dependencies from PyPI) and runs everything from another temporary folder,
   with ``PYTHONPATH`` unset, so no source tree is on the path;
3. in the base install: ``import biasamp`` imports no optional or heavy library, the dataset
   loaders, ``biasamp --version``, ``python -m biasamp --version``, ``biasamp --help``,
   ``biasamp demo`` and ``biasamp measure`` on a file written from a loader (its ``--json``
   read back by ``load_result``);
4. with the ``[plot,evaluate]`` extras the README documents: the shipped ``evaluate`` modules
   loaded offline, and every ```python block of README.md, in order, in one namespace.

Each step prints its name and time; the first failure stops the run with its output.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "biasamp"

#: Libraries that ``import biasamp`` must not import.
NOT_AT_IMPORT = (
    "scipy",
    "sklearn",
    "matplotlib",
    "rich",
    "torch",
    "duckdb",
    "dask",
    "pyspark",
    "evaluate",
)
#: Optional dependencies that a base install does not have.
OPTIONAL = ("matplotlib", "torch", "torchmetrics", "duckdb", "dask", "pyspark", "evaluate")


def package_files(root: Path = PACKAGE) -> list[str]:
    """Every file of the package as a wheel names it (``biasamp/...``), caches aside."""
    return sorted(
        path.relative_to(root.parent).as_posix()
        for path in root.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc"
    )


def missing_from(names: list[str], expected: list[str], prefix: str = "") -> list[str]:
    have = set(names)
    return [name for name in expected if prefix + name not in have]


# ---------------------------------------------------------------------------------------
# steps that run inside the virtual environment (python test_wheel.py --inside STEP ...)


def inside_import() -> None:
    """A fresh interpreter: ``import biasamp`` alone, then what it imported."""
    before = set(sys.modules)
    import biasamp

    loaded = {name.split(".")[0] for name in set(sys.modules) - before}
    bad = [name for name in NOT_AT_IMPORT if name in loaded]
    assert bad == [], f"import biasamp imported {bad}"
    where = Path(biasamp.__file__).resolve()
    assert Path(sys.prefix).resolve() in where.parents, f"biasamp from {where}, not the venv"
    print(f"biasamp {biasamp.__version__} from {where.parent}; imported {sorted(loaded)}")


def inside_base_install() -> None:
    import importlib.util

    present = [name for name in OPTIONAL if importlib.util.find_spec(name) is not None]
    assert present == [], f"a base install should not have {present}"


def inside_datasets(folder: str) -> None:
    """Every loader and split, with the sizes the docs give; a small CSV pair for measure."""
    import numpy as np

    from biasamp.datasets import (
        load_coco_captions,
        load_coco_gender,
        load_imsitu_gender,
        load_mals_coco_results,
    )

    sizes = {
        (load_coco_gender, "val"): 5367,
        (load_coco_gender, "test"): 5473,
        (load_coco_captions, "val"): 5367,
        (load_coco_captions, "test"): 5473,
        (load_imsitu_gender, "train"): 24301,
        (load_imsitu_gender, "val"): 7730,
        (load_imsitu_gender, "test"): 7669,
    }
    for (loader, split), rows in sizes.items():
        frame = loader(split)
        assert len(frame) == rows, f"{loader.__name__}({split!r}): {len(frame)} rows"
    results = load_mals_coco_results()
    assert len(results) == 66, len(results)
    # the measure step's files: COCO val as training data, test with predictions that flip
    # 10% of the object labels
    train, test = load_coco_gender("val"), load_coco_gender("test")
    objects = [c for c in train.columns if c not in ("image_id", "gender")]
    rng = np.random.default_rng(0)
    truth = test[objects].to_numpy()
    predicted = np.where(rng.random(truth.shape) < 0.1, 1 - truth, truth)
    import pandas as pd

    tasks = pd.DataFrame(truth, columns=[f"obj_{name}" for name in objects])
    preds = pd.DataFrame(predicted, columns=[f"pred_obj_{name}" for name in objects])
    frame = pd.concat([test[["image_id", "gender"]], tasks, preds], axis=1)
    frame.to_csv(Path(folder) / "test.csv", index=False)
    train_tasks = train[objects].rename(columns=lambda name: f"obj_{name}")
    frame = pd.concat([train[["image_id", "gender"]], train_tasks], axis=1)
    frame.to_csv(Path(folder) / "train.csv", index=False)


def inside_measure_result(path: str) -> None:
    """The measure step's ``--json`` file, read back; A->T recomputed by the library."""
    import pandas as pd

    import biasamp

    document = json.loads(Path(path).read_text(encoding="utf-8"))
    assert document, path
    result = biasamp.load_result(path)["directional-a2t"]
    test, train = pd.read_csv("test.csv"), pd.read_csv("train.csv")
    direct = biasamp.directional(
        direction="A->T",
        groups=test["gender"],
        tasks=test.filter(regex="^obj_").rename(columns=lambda c: c[4:]),
        tasks_pred=test.filter(regex="^pred_obj_").rename(columns=lambda c: c[9:]),
        groups_train=train["gender"],
        tasks_train=train.filter(regex="^obj_").rename(columns=lambda c: c[4:]),
    )
    print(f"measure --json read back: A->T {float(result):.6f}, library {float(direct):.6f}")
    assert abs(float(result) - float(direct)) < 1e-12, (float(result), float(direct))


def inside_evaluate() -> None:
    """The shipped evaluate modules, offline, give biasamp's values."""
    import evaluate
    import numpy as np

    import biasamp

    rng = np.random.default_rng(4)
    attrs = (rng.random((200, 2)) < 0.5).astype(int)
    refs = (rng.random((200, 4)) < 0.4).astype(int)
    preds = np.where(rng.random((200, 4)) < 0.2, 1 - refs, refs)
    directional = evaluate.load(biasamp.evaluate_module_path("directional"))
    out = directional.compute(predictions=preds, references=refs, attributes=attrs)
    want = biasamp.directional(direction="A->T", groups=attrs, tasks=refs, tasks_pred=preds)
    assert out["bias_amplification"] == float(want), (out["bias_amplification"], float(want))
    mals = evaluate.load(biasamp.evaluate_module_path("mals"))
    mals.compute(predictions=preds, references=refs, attributes=attrs, attribute_predictions=attrs)
    multi = evaluate.load(biasamp.evaluate_module_path("multi_attribute"))
    multi.compute(predictions=preds, references=refs, attributes=attrs)
    print("evaluate modules: directional", round(out["bias_amplification"], 6))


def python_blocks(text: str) -> list[tuple[int, str]]:
    """(line, source) of every ```python / ```py fence of a Markdown text, in order."""
    blocks: list[tuple[int, str]] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        stripped = lines[i].strip()
        if not stripped.startswith("```"):
            i += 1
            continue
        fence = stripped[: len(stripped) - len(stripped.lstrip("`"))]
        info = stripped[len(fence) :].strip().split(" ")[0].strip("{}")
        indent = lines[i][: len(lines[i]) - len(lines[i].lstrip())]
        body: list[str] = []
        j = i + 1
        while j < len(lines) and not lines[j].strip().startswith(fence):
            body.append(lines[j][len(indent) :] if lines[j].startswith(indent) else lines[j])
            j += 1
        if info in ("python", "py"):
            blocks.append((i + 2, "\n".join(body) + "\n"))
        i = j + 1
    return blocks


def inside_readme(readme: str) -> None:
    """Every ```python block of the README, in order, in one namespace (as a user pastes)."""
    import doctest

    namespace: dict[str, object] = {"__name__": "__readme__"}
    blocks = python_blocks(Path(readme).read_text(encoding="utf-8"))
    assert blocks, f"no python blocks in {readme}"
    for line, source in blocks:
        if source.lstrip().startswith(">>>"):
            test = doctest.DocTestParser().get_doctest(source, namespace, "README", readme, line)
            runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
            runner.run(test, clear_globs=False)
            assert runner.failures == 0, f"README.md, block at line {line}"
            continue
        try:
            exec(compile(source, f"README.md:{line}", "exec"), namespace)
        except Exception as error:
            raise AssertionError(f"README.md, block at line {line}: {error!r}") from error
    print(f"README.md: {len(blocks)} python blocks ran")


INSIDE = {
    "import": inside_import,
    "base-install": inside_base_install,
    "datasets": inside_datasets,
    "measure-result": inside_measure_result,
    "evaluate": inside_evaluate,
    "readme": inside_readme,
}


# ---------------------------------------------------------------------------------------
# the driver (runs in the CI interpreter)


class Runner:
    def __init__(self, work: Path) -> None:
        self.work = work
        self.run_dir = work / "run"
        self.run_dir.mkdir()
        self.venv = work / "venv"
        self.env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
        self.env["MPLBACKEND"] = "Agg"
        self.env["NO_COLOR"] = "1"
        self.script = self.run_dir / "wheel_steps.py"

    @property
    def python(self) -> str:
        return str(self.venv / "bin" / "python")

    def step(self, name: str, command: list[str], *, env: dict[str, str] | None = None) -> str:
        start = time.perf_counter()
        done = subprocess.run(
            command,
            cwd=self.run_dir,
            env=env or self.env,
            capture_output=True,
            text=True,
            timeout=900,
        )
        took = time.perf_counter() - start
        if done.returncode != 0:
            print(f"FAILED {name} ({took:.1f} s): {' '.join(command)}")
            print(done.stdout[-5000:])
            print(done.stderr[-5000:])
            raise SystemExit(1)
        print(f"ok {name} ({took:.1f} s)")
        return done.stdout

    def inside(self, name: str, *args: str, env: dict[str, str] | None = None) -> str:
        return self.step(name, [self.python, str(self.script), "--inside", name, *args], env=env)


def check_archives(dist: Path) -> Path:
    wheels, sdists = sorted(dist.glob("*.whl")), sorted(dist.glob("*.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1, sorted(dist.iterdir())
    expected = package_files()
    with zipfile.ZipFile(wheels[0]) as wheel:
        names = wheel.namelist()
        metadata = next(n for n in names if n.endswith(".dist-info/METADATA"))
        meta = wheel.read(metadata).decode()
    missing = missing_from(names, expected)
    assert missing == [], f"files of src/biasamp missing from the wheel: {missing}"
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names), "no LICENSE in wheel"
    assert "License-Expression: MIT" in meta, "wheel metadata lacks License-Expression: MIT"
    with tarfile.open(sdists[0]) as sdist:
        members = sdist.getnames()
    top = members[0].split("/")[0]
    missing = missing_from(members, ["LICENSE", *("src/" + f for f in expected)], top + "/")
    assert missing == [], f"files missing from the sdist: {missing}"
    print(f"ok archives: {wheels[0].name} has all {len(expected)} files of src/biasamp")
    return wheels[0]


def main() -> None:
    start = time.perf_counter()
    work = Path(tempfile.mkdtemp(prefix="biasamp-wheel-"))
    try:
        runner = Runner(work)
        shutil.copy(__file__, runner.script)
        dist = work / "dist"
        runner.step("build", [sys.executable, "-m", "build", "--outdir", str(dist), str(ROOT)])
        wheel = check_archives(dist)
        # a venv without pip of its own (ensurepip is slow): this interpreter's pip installs
        # into it (pip --python); --no-compile leaves byte-compiling to the first import
        runner.step("venv", [sys.executable, "-m", "venv", "--without-pip", str(runner.venv)])
        pip = [sys.executable, "-m", "pip", "--python", runner.python, "install", "--quiet"]
        pip += ["--disable-pip-version-check", "--no-compile"]
        runner.step("install the wheel", [*pip, str(wheel)])
        runner.inside("base-install")
        print(runner.inside("import").strip())
        version = runner.step(
            "python -m biasamp --version", [runner.python, "-m", "biasamp", "--version"]
        )
        script = str(runner.venv / "bin" / "biasamp")
        assert runner.step("biasamp --version", [script, "--version"]) == version
        assert wheel.name.split("-")[1] in version, (wheel.name, version)
        assert "measure" in runner.step("biasamp --help", [script, "--help"])
        demo = runner.step("biasamp demo", [script, "demo", "--top", "3"])
        assert "T->A" in demo, demo[-2000:]
        runner.inside("datasets", str(runner.run_dir))
        runner.step(
            "biasamp measure",
            [
                script, "measure", "test.csv", "--train", "train.csv", "--group", "gender",
                "--task-prefix", "obj_", "--pred-prefix", "pred_", "--metric", "directional-a2t",
                "--json", "measure.json", "--no-progress",
            ],
        )  # fmt: skip
        print(runner.inside("measure-result", "measure.json").strip())
        runner.step("install [plot,evaluate]", [*pip, f"{wheel}[plot,evaluate]"])
        offline = {
            **runner.env,
            "HF_HUB_OFFLINE": "1",
            "HF_DATASETS_OFFLINE": "1",
            "HF_EVALUATE_OFFLINE": "1",
            "HF_HOME": str(work / "hf"),
            "HTTP_PROXY": "http://127.0.0.1:9",
            "HTTPS_PROXY": "http://127.0.0.1:9",
            "NO_PROXY": "",
        }
        print(runner.inside("evaluate", env=offline).strip())
        print(runner.inside("readme", str(ROOT / "README.md")).strip())
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"wheel checks passed in {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--inside":
        INSIDE[sys.argv[2]](*sys.argv[3:])
    else:
        main()
