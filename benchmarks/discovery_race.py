"""The discovery race of a public path flipped between a file and a link to a restricted one (issue 27, item 2):
scans (links off and on) and end-to-end index runs while a separate process flips the path as fast as it can.
Counts the scans in which the public path got the restricted file's hash without the restricted file's groups,
and the index runs after which a public chunk holds the restricted text.

    .venv/bin/python benchmarks/discovery_race.py [--scans 200] [--runs 200] [--work var/bench]

Writes benchmarks/results/discovery-race.json.
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT))
from _common import print_table, save  # noqa: E402

SECRET = "# Faixas salariais\n\nAnalista: Mínimo 4.600,00; Máximo 5.800,00.\n"
FLIPPER = """
import os, sys
path, regular, link = sys.argv[1], sys.argv[2], sys.argv[3]
while True:
    os.link(regular, path + ".r"); os.replace(path + ".r", path)
    os.symlink(link, path + ".l"); os.replace(path + ".l", path)
"""


def _corpus(work: Path) -> tuple[Path, Path, Path]:
    shutil.rmtree(work, ignore_errors=True)
    source = work / "source"
    (source / "RH").mkdir(parents=True)
    (source / "Diversos").mkdir()
    shutil.copy(ROOT / "sample_corpus" / "documents" / ".lakerag.yaml", source / ".lakerag.yaml")
    (source / "RH" / "faixas.md").write_text(SECRET * 20, encoding="utf-8")
    public = work / "publico.md"
    public.write_text("# Relatório público\n\n" + "Texto público do relatório. " * 4000, encoding="utf-8")
    path = source / "Diversos" / "relatorio.md"
    shutil.copy(public, path)
    return source, path, public


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scans", type=int, default=200, help="scans per link setting")
    parser.add_argument("--runs", type=int, default=200, help="end-to-end index runs (links on)")
    parser.add_argument("--work", type=Path, default=ROOT / "var" / "bench" / "discovery-race")
    args = parser.parse_args()
    from lakehouse.paths import LakePaths
    from lakehouse.settings import Settings
    from lakehouse.storage import read_table
    from transforms.discovery import scan_source
    from transforms.pipeline import run_index

    source, path, public = _corpus(args.work)
    secret_hash = hashlib.sha256((source / "RH" / "faixas.md").read_bytes()).hexdigest()
    flipper = subprocess.Popen([sys.executable, "-c", FLIPPER, str(path), str(public), "../RH/faixas.md"])
    rows = []
    try:
        for follow in (False, True):
            started, leaks, refused = time.perf_counter(), 0, 0
            for _ in range(args.scans):
                entry = next(e for e in scan_source(source, {}, 10**9, follow_symlinks=follow)
                             if e.relpath == "Diversos/relatorio.md")
                refused += entry.error is not None
                leaks += entry.content_hash == secret_hash and entry.acl_relpath != "RH/faixas.md"
            rows.append({"what": f"scan, links {'on' if follow else 'off'}", "n": args.scans, "leaks": leaks,
                         "refused": refused, "seconds": round(time.perf_counter() - started, 1)})
        settings = Settings(home=args.work / "home", source=source, follow_symlinks=True, ocr=False,
                            embedding_model="wordllama")
        started, leaks = time.perf_counter(), 0
        for _ in range(args.runs):
            run_index(settings)
            paths = LakePaths(settings.home)
            docs = {d["document_id"]: d for d in read_table(paths.table("documents")).to_pylist() if d["is_current"]}
            chunks = read_table(paths.table("chunks")).to_pylist()
            leaks += any("4.600,00" in c["text"] and "public" in docs[c["document_id"]]["access_groups"]
                         for c in chunks if c["document_id"] in docs)
        rows.append({"what": "index run, links on", "n": args.runs, "leaks": leaks, "refused": "",
                     "seconds": round(time.perf_counter() - started, 1)})
    finally:
        flipper.kill()
        flipper.wait()
    print_table(rows, ["what", "n", "leaks", "refused", "seconds"])
    print("saved", save("discovery-race", {"rows": rows}))


if __name__ == "__main__":
    main()
