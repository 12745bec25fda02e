"""Session-wide API servers over indexes built by ``run_index`` (the sample corpus once per session)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fixtures.api import Server, serve, settings_for


@pytest.fixture(scope="session")
def sample_home(tmp_path_factory) -> Path:
    """The sample corpus indexed once by ``run_index`` (a published snapshot with its graph index)."""
    from transforms.pipeline import run_index

    home = tmp_path_factory.mktemp("api-sample") / "home"
    run_index(settings_for(home, ocr=False))
    return home


@pytest.fixture(scope="session")
def nograph_home(sample_home, tmp_path_factory) -> Path:
    """The same index published again without its graph tables (as a snapshot from before the graph stage)."""
    from lakehouse.paths import LakePaths
    from lakehouse.snapshots import current_id, publish

    home = tmp_path_factory.mktemp("api-nograph") / "home"
    shutil.copytree(sample_home, home)
    root = home / "snapshots"
    source = root / current_id(LakePaths(home))
    target = root / "snap_29990101T000000000000Z"
    shutil.copytree(source, target)
    pointer = json.loads((target / "tables" / "graph.json").read_text())
    shutil.rmtree(target / "tables" / pointer["dir"])
    (target / "tables" / "graph.json").unlink()
    manifest = json.loads((target / "manifest.json").read_text())
    (target / "manifest.json").write_text(json.dumps({**manifest, "id": target.name}))
    publish(LakePaths(home), target.name)
    return home


@pytest.fixture(scope="session")
def api(sample_home) -> Iterator[Server]:
    with serve(settings_for(sample_home)) as server:
        yield server


@pytest.fixture(scope="session")
def nograph_api(nograph_home) -> Iterator[Server]:
    with serve(settings_for(nograph_home)) as server:
        yield server
