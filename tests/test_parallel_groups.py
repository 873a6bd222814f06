"""The README runs the suite in parallel (pytest-xdist, ``--dist loadgroup``): the tests of
one costly shared fixture are grouped so that one worker builds it once
(``tests/conftest.py``'s ``shared_fixture_group``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import shared_fixture_group


@pytest.fixture(scope="module")
def built_once() -> list[int]:
    return [1]


def _group(request: pytest.FixtureRequest) -> str | None:
    marker = request.node.get_closest_marker("xdist_group")
    return None if marker is None else marker.args[0]


def test_a_module_fixture_groups_its_file(request: pytest.FixtureRequest, built_once) -> None:
    assert shared_fixture_group(request.node) == "module:test_parallel_groups.py"
    assert _group(request) == "module:test_parallel_groups.py"


def test_tmp_path_alone_is_not_grouped(request: pytest.FixtureRequest, tmp_path: Path) -> None:
    # tmp_path rests on pytest's session-scoped tmp_path_factory: not a fixture of this suite
    assert shared_fixture_group(request.node) is None
    assert _group(request) is None
