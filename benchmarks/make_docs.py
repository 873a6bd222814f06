"""Regenerate the generated section of docs/benchmarks.md from the benchmark scripts.

Run: ``python benchmarks/make_docs.py [--quick]``. Runs each script below in a
fresh process, captures its markdown output and writes it into
``docs/benchmarks.md`` between the markers

    <!-- generated:make_docs.py:begin -->
    <!-- generated:make_docs.py:end -->

each table dated with its date, commit and machine (cores, memory, Python,
load average). Everything outside the markers
(sections other scripts or people maintain) is left as it is; the markers are
appended at the end the first time.
"""

from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "benchmarks.md"
BEGIN = "<!-- generated:make_docs.py:begin -->"
END = "<!-- generated:make_docs.py:end -->"

#: (title, script and arguments, quick arguments)
SCRIPTS = [
    (
        "Honest baselines: single-attribute metrics and the bootstrap",
        ["bench_baselines.py", "--repeat", "3"],
        ["bench_baselines.py", "--repeat", "1", "--rows", "200000", "--n-boot", "100"],
    ),
    (
        "RBA: 25,000 x 66 x 2 x 100 iterations against the expert numpy baseline",
        ["bench_rba.py"],
        ["bench_rba.py"],
    ),
    (
        "Intersectional groups: intersect + differential_fairness, 10M rows x 3 columns",
        ["bench_intersect.py", "--repeat", "3"],
        ["bench_intersect.py", "--repeat", "1", "--rows", "1000000"],
    ),
    (
        "Multi-attribute scaling",
        ["bench_multi_attribute.py", "--scaling", "200000", "400000", "800000", "--repeat", "2"],
        ["bench_multi_attribute.py", "--scaling", "20000", "40000", "80000"],
    ),
]


def _machine() -> str:
    cpus = os.cpu_count()
    try:
        mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
        memory = f", {mem:.0f} GB"
    except (ValueError, OSError, AttributeError):
        memory = ""
    load = f", load average {os.getloadavg()[0]:.1f}" if hasattr(os, "getloadavg") else ""
    return f"{platform.machine()}, {cpus} cores{memory}, Python {platform.python_version()}{load}"


def _commit() -> str:
    """The short hash of HEAD, marked when the tree has uncommitted changes."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no", "--", "src", "benchmarks"],
            cwd=ROOT, capture_output=True, text=True,
        ).stdout.strip()  # fmt: skip
    except OSError:
        return "unknown"
    if not head:
        return "unknown"
    return f"{head} + uncommitted changes" if dirty else head


def stamp(when: datetime | None = None) -> str:
    """The line that dates a measurement: date and time (UTC), commit and machine."""
    when = when or datetime.now(timezone.utc)
    return f"Measured {when:%Y-%m-%d %H:%M} UTC at commit `{_commit()}` on {_machine()}."


def render(quick: bool) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    parts = [
        BEGIN,
        "## Generated benchmark tables (`benchmarks/make_docs.py`)",
        "",
        "Each table below is dated with the commit and machine it measured"
        + (" (quick sizes)." if quick else ".")
        + " The machine is shared: read ratios measured in one process, not absolute times.",
        "",
    ]
    for title, full, small in SCRIPTS:
        args = small if quick else full
        out = subprocess.run(
            [sys.executable, str(ROOT / "benchmarks" / args[0]), *args[1:]],
            capture_output=True, text=True, check=True, env=env,
        )  # fmt: skip
        parts += [
            f"### {title} (`{' '.join(args)}`)",
            "",
            stamp(),
            "",
            out.stdout.strip().replace("## ", "#### "),
            "",
        ]
    parts.append(END)
    return "\n".join(parts) + "\n"


def splice(text: str, block: str) -> str:
    """Replace the generated block of ``text`` (or append it), keeping everything else."""
    if BEGIN in text and END in text:
        head, rest = text.split(BEGIN, 1)
        _, tail = rest.split(END, 1)
        return head + block.rstrip("\n") + tail
    return text.rstrip("\n") + "\n\n" + block


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    args = parser.parse_args(argv)
    block = render(args.quick)  # first: the scripts take minutes; read the page after
    DOC.write_text(splice(DOC.read_text(), block))
    print(f"updated {DOC}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
