"""Start-up cost: ``import biasamp`` on top of ``import pandas``, and ``biasamp --help``.

Run: ``python benchmarks/bench_startup.py [--python PATH] [--repeat 10]``. Each command runs
in a fresh process, the commands in turn (so a change of the machine's load touches them
alike), ``--repeat`` times; the table gives medians of wall time and the ratios to
``import pandas``. ``--python`` times another environment (a wheel installed in a venv).
The console script is the ``biasamp`` next to that interpreter.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path


def _time(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def _importtime(python: str, code: str, module: str) -> float:
    """Cumulative import time (s) of ``module`` as ``python -X importtime -c code`` reports it."""
    done = subprocess.run(
        [python, "-X", "importtime", "-c", code], check=True, capture_output=True, text=True
    )
    for line in done.stderr.splitlines():
        parts = [p.strip() for p in line.split("|")]
        if len(parts) == 3 and parts[2] == module:
            return int(parts[1]) / 1e6
    raise ValueError(f"{module} not in the import times of {code!r}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args()
    python = args.python
    script = Path(python).parent / "biasamp"
    commands = {
        "python -c pass": [python, "-c", "pass"],
        "import pandas": [python, "-c", "import pandas"],
        "import pandas, biasamp": [python, "-c", "import pandas, biasamp"],
        "python -m biasamp --help": [python, "-m", "biasamp", "--help"],
    }
    if script.exists():
        commands["biasamp --help"] = [str(script), "--help"]
    for command in commands.values():  # warm the file cache
        _time(command)
    times: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(args.repeat):
        for name, command in commands.items():
            times[name].append(_time(command))
    median = {name: statistics.median(values) for name, values in times.items()}
    pandas = median["import pandas"]
    print(f"interpreter: {python} (median of {args.repeat} runs)\n")
    print("| command | median wall time (s) | ratio to `import pandas` |")
    print("|---|---:|---:|")
    for name, value in median.items():
        print(f"| `{name}` | {value:.3f} | {value / pandas:.2f} |")
    added = median["import pandas, biasamp"] - pandas
    print(f"\n`import biasamp` adds {added:+.3f} s to `import pandas` ({added / pandas:+.1%}).")
    # the same from the interpreter's own clock (-X importtime), less sensitive to the load:
    # biasamp's cumulative import time after pandas, against pandas' own
    own = [_importtime(python, "import pandas, biasamp", "biasamp") for _ in range(args.repeat)]
    base = [_importtime(python, "import pandas", "pandas") for _ in range(args.repeat)]
    print(
        f"`-X importtime` (median of {args.repeat}): biasamp after pandas "
        f"{statistics.median(own):.4f} s, pandas {statistics.median(base):.3f} s, "
        f"ratio {statistics.median(own) / statistics.median(base):.3f}."
    )


if __name__ == "__main__":
    main()
