"""``biasamp --help`` and ``--version`` answer without importing the commands' modules."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

import pytest

from biasamp import __version__
from biasamp.cli.main import COMMANDS, ERR_COMMAND, build_parser, command_module


def _sub_helps(parser: argparse.ArgumentParser) -> dict[str, str | None]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {choice.dest: choice.help for choice in action._choices_actions}


def test_the_light_parser_prints_the_same_help_as_the_full_one() -> None:
    full, light = build_parser(), build_parser(())
    assert list(_sub_helps(full)) == list(COMMANDS)
    assert _sub_helps(full) == _sub_helps(light) == COMMANDS
    assert light.format_help() == full.format_help()


def test_command_module_refuses_an_unknown_name() -> None:
    with pytest.raises(ValueError) as caught:
        command_module("mesure")
    assert str(caught.value) == ERR_COMMAND.format(known=sorted(COMMANDS), got="mesure")


@pytest.mark.parametrize("args", [["--help"], ["--version"], []])
def test_help_and_version_import_no_command(args: list[str]) -> None:
    probe = (
        "import sys, json\n"
        "from biasamp.cli.main import main\n"
        "try:\n"
        f"    main({args!r})\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = ('pandas', 'numpy', 'scipy', 'rich', 'sklearn', 'pyarrow', 'biasamp.cli.measure')\n"
        "print(json.dumps([m for m in heavy if m in sys.modules]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True
    )
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []
    if args == ["--version"]:
        assert done.stdout.startswith(f"biasamp {__version__}")


def test_a_command_imports_only_its_own_module() -> None:
    probe = (
        "import sys\n"
        "from biasamp.cli.main import main\n"
        "try:\n"
        "    main(['compare', '--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(sorted(m for m in sys.modules if m.startswith('biasamp.cli.')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True
    )
    loaded = done.stdout.strip().splitlines()[-1]
    assert "biasamp.cli.compare" in loaded
    assert "biasamp.cli.demo" not in loaded and "biasamp.cli.mitigate" not in loaded
