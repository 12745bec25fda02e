"""The dbt project (``dbt_project/``) over one snapshot: its serving marts go into a new DuckDB file.

dbt builds into ``$LAKERAG_HOME/dbt/serving.building.duckdb`` (a fresh file each time); only when every model
and test has passed is it moved to ``snapshots/<id>/serving.duckdb``, so the API never opens a file being
written. The snapshot's location reaches dbt through environment variables, not ``--vars``, so dbt's partial
parsing survives from one snapshot to the next. ``build_marts`` runs ``dbt build``
in-process (dbtRunner) for the CLI and tests; the Airflow DAG runs the same project through Cosmos, with the
vars and environment from ``dbt_context``."""

from __future__ import annotations

import json
import logging
import os
from contextlib import contextmanager
from pathlib import Path

from lakehouse.errors import LakeragError
from lakehouse.mirror import synced
from lakehouse.paths import LakePaths
from lakehouse.settings import REPO_ROOT, Settings
from lakehouse.snapshots import annotate, latest_id, snapshot_dir, snapshot_tables
from lakehouse.storage import read_json, write_json

log = logging.getLogger(__name__)

PROJECT_DIR = REPO_ROOT / "dbt_project"
MANIFEST = PROJECT_DIR / "manifest" / "manifest.json"  # committed; `make dbt-manifest` refreshes it
GRAPH_TABLES = ("entities", "relationships", "text_units", "communities", "community_reports", "aliases")
BUILDING, SERVING = "serving.building.duckdb", "serving.duckdb"
MART_COUNTS = ("catalog", "chunks", "expiring_documents", "graph_entities", "graph_relationships",
               "graph_community_reports", "run_summary")


class DbtBuildError(LakeragError):
    """dbt failed for a reason other than a data test (a crash, a lock, a SQL error): worth a retry."""


class DbtTestFailure(LakeragError):
    """A dbt data test failed: the snapshot's data would break serving. Retrying cannot help."""


def project_dir(settings: Settings) -> Path:
    return Path(settings.orchestration.dbt_project_dir or PROJECT_DIR)


def empty_graph(paths: LakePaths) -> Path:
    """Empty graph tables with the graph schemas, for snapshots without a graph (written once)."""
    from lakehouse import graph_schemas as g

    folder = paths.cache / "dbt" / "empty-graph"
    for name in GRAPH_TABLES:
        if not (folder / f"{name}.parquet").exists():
            from lakehouse.storage import write_table

            write_table(getattr(g, name.upper()).empty_table(), folder / f"{name}.parquet")
    return folder


def _work(paths: LakePaths) -> Path:
    """dbt's working folder: the DuckDB file being built, dbt's target (partial parse cache) and logs. Its
    paths stay the same from one snapshot to the next, so dbt re-parses only what reads the snapshot."""
    return paths.home / "dbt"


def dbt_context(settings: Settings, snapshot_id: str, as_of: str | None = None) -> dict:
    """The vars, environment and paths of a dbt build over one snapshot (plain JSON: it travels by XCom)."""
    paths = LakePaths(settings.home)
    tables = snapshot_tables(paths, snapshot_id)
    pointer = tables / "graph.json"
    graph = tables / read_json(pointer)["dir"] if pointer.exists() else empty_graph(paths)
    variables: dict = {"expiring_within_days": settings.orchestration.expiring_within_days}
    if as_of:
        variables["as_of"] = as_of
    work = _work(paths)
    env = {"LAKERAG_DBT_DUCKDB": str(work / BUILDING), "LAKERAG_DBT_TABLES": str(tables),
           "LAKERAG_DBT_GRAPH": str(graph),
           "LAKERAG_DBT_THREADS": str(settings.orchestration.dbt_threads),
           "DBT_SEND_ANONYMOUS_USAGE_STATS": "False", "DBT_VERSION_CHECK": "False"}
    return {"snapshot_id": snapshot_id, "vars": variables, "env": env, "building": str(work / BUILDING),
            "target": str(work)}


@synced
def prepare(settings: Settings, snapshot_id: str | None = None) -> dict | None:
    """The dbt context of the snapshot to build (the newest, unless given), with any half-written file from an
    earlier attempt removed; None when there is no snapshot or it is already built."""
    paths = LakePaths(settings.home)
    snapshot_id = snapshot_id or latest_id(paths)
    if snapshot_id is None or (snapshot_dir(paths, snapshot_id) / SERVING).exists():
        return None
    context = dbt_context(settings, snapshot_id)
    for leftover in (Path(context["building"]), Path(context["building"] + ".wal")):
        leftover.unlink(missing_ok=True)
    write_json({"snapshot_id": snapshot_id}, _work(paths) / "building.json")
    return context


@contextmanager
def _environment(env: dict[str, str]):
    saved = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def run_dbt(args: list[str], context: dict, project: Path = PROJECT_DIR):
    """Invoke dbt in-process with the project, its profiles.yml, the snapshot's vars and a private target."""
    from dbt.cli.main import dbtRunner

    full = [*args, "--project-dir", str(project), "--profiles-dir", str(project),
            "--target-path", str(Path(context["target"]) / "target"),
            "--log-path", str(Path(context["target"])),
            "--vars", json.dumps(context["vars"]), "--no-use-colors"]
    _close_dbt_connections()  # a handle kept from an earlier in-process run may point at a removed file
    try:
        with _environment(context["env"]):
            return dbtRunner().invoke(full)
    finally:
        _close_dbt_connections()


def _failures(result) -> tuple[list[str], list[str]]:
    """(failed data tests, other failures) of a dbt result, as readable lines."""
    tests, others = [], []
    for item in getattr(result.result, "results", None) or []:
        status = str(getattr(item.status, "value", item.status))
        if status in ("fail", "error"):
            line = f"{item.node.unique_id}: {status}: {(item.message or '').strip()[:300]}"
            is_test = item.node.resource_type in ("test", "unit_test") and status == "fail"
            (tests if is_test else others).append(line)
    return tests, others


def build_marts(settings: Settings, snapshot_id: str | None = None, as_of: str | None = None) -> dict:
    """``dbt build`` (models and every test) over a snapshot, then seal its DuckDB file; returns mart counts.
    Raises DbtTestFailure when a data test fails and DbtBuildError for anything else."""
    context = prepare(settings, snapshot_id)
    if context is None:
        return {"snapshot_id": snapshot_id or latest_id(LakePaths(settings.home)), "built": False}
    if as_of:
        context["vars"]["as_of"] = as_of
    result = run_dbt(["build"], context, project_dir(settings))
    tests, others = _failures(result)
    if tests:
        detail = "\n".join(tests + others)
        raise DbtTestFailure(f"snapshot {context['snapshot_id']}: dbt tests failed:\n{detail}")
    if not result.success or others:
        detail = "\n".join(others) or str(result.exception)
        raise DbtBuildError(f"snapshot {context['snapshot_id']}: dbt build failed:\n{detail}")
    return seal(settings, context["snapshot_id"])


@synced
def seal(settings: Settings, snapshot_id: str) -> dict:
    """Checkpoint the built DuckDB file, rename it to ``serving.duckdb`` and note the mart counts in the
    manifest. Idempotent."""
    import duckdb

    paths = LakePaths(settings.home)
    building, serving = _work(paths) / BUILDING, snapshot_dir(paths, snapshot_id) / SERVING
    if building.exists():
        owner = read_json(_work(paths) / "building.json")["snapshot_id"]
        if owner != snapshot_id:
            raise DbtBuildError(f"{building} was built for snapshot {owner}, not {snapshot_id}; rebuild it")
        _close_dbt_connections()
        with duckdb.connect(str(building)) as con:
            con.execute("checkpoint")
        os.replace(building, serving)
    if not serving.exists():
        raise DbtBuildError(f"snapshot {snapshot_id}: dbt wrote no {BUILDING}; run the dbt build first")
    with duckdb.connect(str(serving), read_only=True) as con:
        present = {r[0] for r in con.execute("select table_name from information_schema.tables").fetchall()}
        counts = {name: con.execute(f'select count(*) from "{name}"').fetchone()[0]
                  for name in MART_COUNTS if name in present}
    annotate(paths, snapshot_id, {"marts": {"file": SERVING, "counts": counts}})
    log.info("snapshot %s: marts sealed into %s %s", snapshot_id, serving, counts)
    return {"snapshot_id": snapshot_id, "built": True, "counts": counts}


def _close_dbt_connections() -> None:
    """dbt-duckdb keeps its database handle on a class attribute after an in-process run; close it."""
    try:
        from dbt.adapters.duckdb.connections import DuckDBConnectionManager
    except ImportError:  # pragma: no cover - dbt-duckdb not installed
        return
    env = DuckDBConnectionManager._ENV
    if env is not None:
        try:
            env.close()
        except Exception:  # noqa: BLE001 - closing a stale handle must never fail a build
            log.debug("closing dbt-duckdb's environment failed", exc_info=True)
    DuckDBConnectionManager.close_all_connections()


def write_manifest(project: Path = PROJECT_DIR, target: Path = MANIFEST) -> Path:
    """``dbt parse`` the project and keep what Cosmos needs to render the DAG (nodes, sources, metadata), with
    machine-specific paths dropped, so the committed file changes only when the project does."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        env = {"DBT_SEND_ANONYMOUS_USAGE_STATS": "False", "DBT_VERSION_CHECK": "False",
               "LAKERAG_DBT_DUCKDB": str(Path(tmp) / "parse.duckdb"), "LAKERAG_DBT_TABLES": "/nonexistent",
               "LAKERAG_DBT_GRAPH": "/nonexistent"}
        context = {"target": tmp, "env": env, "vars": {}}
        result = run_dbt(["parse"], context, project)
        if not result.success:
            raise DbtBuildError(f"dbt parse failed: {result.exception}")
        manifest = json.loads((Path(tmp) / "target" / "manifest.json").read_text(encoding="utf-8"))
    keep = {"metadata": {k: manifest["metadata"].get(k) for k in ("dbt_schema_version", "dbt_version",
                                                                  "project_name", "adapter_type")}}
    for section in ("nodes", "sources", "exposures"):
        keep[section] = {uid: _portable(node) for uid, node in sorted(manifest.get(section, {}).items())}
    write_json(keep, target)
    return target


_KEPT = ("name", "resource_type", "package_name", "original_file_path", "depends_on", "tags", "config", "fqn",
         "freshness", "checksum")


def _portable(node: dict) -> dict:
    return {k: node[k] for k in _KEPT if k in node}


def main(argv: list[str] | None = None) -> int:
    """``python -m transforms.dbt_build [SNAPSHOT_ID | --manifest]``: build a snapshot's marts (the newest by
    default) or refresh the committed manifest Cosmos renders from."""
    import sys

    from lakehouse.settings import get_settings

    args = sys.argv[1:] if argv is None else argv
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    if args[:1] == ["--manifest"]:
        print(write_manifest())
        return 0
    try:
        result = build_marts(get_settings(), args[0] if args else None)
    except LakeragError as exc:
        print(f"lakerag dbt: error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps(result, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
