"""SIGKILL `lakerag erase --subject ... --yes` or `lakerag gc --retention-days 0` (real subprocesses) part-way, run
it again, and the data root ends as an uninterrupted run leaves it: the same files, committed tables, published
snapshot, blocklist and receipts, and an independent scan finds none of the erased spellings, e-mails or CPF.
Three kill points here (tests/fixtures/kill_points.py has them all; benchmarks/erase_kill_points.py runs them):

* erase, just after it rewrote the tables: a rerun replanned from the rewritten tables, found the documents
  wholly about her gone and never blocked their hashes (the next index ingested them again from the source);
* erase, while its maintenance run indexed: the rerun refused ("run ... is not finished");
* gc, just after it rewrote ``documents``: the rerun found nothing retired, and the published snapshot kept
  the purged versions and their raw bytes."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fixtures import kill_points as k
from tests.fixtures.trace import traces

pytestmark = [pytest.mark.integration, pytest.mark.slow]
ATTEMPTS = 5


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> tuple[Path, Path, dict]:
    """An indexed home (never changed) and the state an uninterrupted erase and gc leave in a copy of it."""
    work = tmp_path_factory.mktemp("erase-kill")
    home, source = k.indexed_home(work / "base")
    clean = k.copy_home(home, work / "clean")
    k.erase_and_gc(clean, source)
    assert traces(clean, k.ERASED) == {} and set(traces(clean, k.KEPT)) == set(k.KEPT)
    return home, source, k.state(clean)


@pytest.mark.parametrize("command, point", [("erase", "documents-rewritten"), ("erase", "maintenance-embedded"),
                                            ("gc", "documents-rewritten")])
def test_a_killed_erase_or_gc_rerun_converges_to_an_uninterrupted_one(base, tmp_path, command, point):
    base_home, source, clean = base
    args = k.ERASE if command == "erase" else k.GC
    for attempt in range(ATTEMPTS):  # on a quiet machine a short step can pass between two looks at the disk
        home = k.copy_home(base_home, tmp_path / f"home{attempt}")
        if command == "gc":
            k.erase_in_process(home, source)
        start = k.start_state(home)
        if k.kill_when(k.lakerag(home, source, args), home, start, k.KILL_POINTS[command][point]):
            break
    else:
        pytest.skip(f"{command} finished before it reached {point} in {ATTEMPTS} attempts on this machine "
                    "(benchmarks/erase_kill_points.py reports such runs as finished first)")
    if command == "erase" and point == "documents-rewritten":
        index = k.lakerag(home, source, ["index", "--quiet"])  # would ingest her documents again: refused
        _, err = index.communicate(timeout=300)
        assert index.returncode != 0 and "erase --pending" in err, err
    k.finish(k.lakerag(home, source, args))
    if command == "erase":
        k.gc_in_process(home, source)
    assert k.differences(clean, k.state(home)) == []
    assert traces(home, k.ERASED) == {}
    assert set(traces(home, k.KEPT)) == set(k.KEPT)  # the rest is still there
