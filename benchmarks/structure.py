"""Document structure on the development set: headings, reading order, tables and running headers.

Usage: ``python benchmarks/structure.py [--datasets PATH] [--name NAME] [--only DOC]``. Extracts every document of
``benchmarks/structure_dev/`` (real documents referenced by path, constructed ones built by
``structure_dev/build.py`` into a temporary folder) and scores the Markdown against the hand-written reference
``structure_dev/<stem>.md``, whose lines are:

- ``#``-``####`` headings: **recall** (reference headings found as Markdown headings, text equal after folding
  case, accents and punctuation), **precision** (found headings that are reference headings), and **levels**
  (matched headings at the reference level);
- ``> text``: reading-order anchors, in the document's order: **order** is the longest run of anchors found in
  that order (longest increasing subsequence of their first positions) over the number of anchors;
- pipe-table rows: **cells**: each reference row is looked up by its first cell among the rows of the output's
  tables, and its cells compared column by column (case and spacing folded, punctuation kept);
- ``! text``: running headers or footers, or a figure's labels, that must not reach the body or the headings
  (**leaks** counts them);
- where a document has a full reference text (``TEXTS``: the gazette's Apache Tika text, a rough reference),
  **cer**: the character error rate of the Markdown's plain text (marks, pipes and rules removed) against it.

A document missing on this machine is listed and skipped. Prints a table and writes
``benchmarks/results/<NAME>.json`` (default ``structure``). Only ``extract_document`` is used.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
import unicodedata
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
from benchmarks._common import save  # noqa: E402
from benchmarks.structure_dev.build import BUILDERS  # noqa: E402
from lakehouse.settings import Settings  # noqa: E402
from transforms.extraction import extract_document  # noqa: E402
from transforms.extraction.quality import character_error_rate  # noqa: E402

DEV = REPO / "benchmarks" / "structure_dev"
SHARED = REPO / ".." / "shared" / "datasets" / "pdfs"
# reference stem -> the document (a path, or the name of a constructed document in build.BUILDERS)
DOCUMENTS: dict[str, str | Path] = {  # SHARED is replaced by --datasets
    "lei_13709_2018_LGPD_planalto_print": SHARED / "lei_13709_2018_LGPD_planalto_print.pdf",
    "diario_oficial_pratania_sp_ed136_2020-10-26": SHARED / "diario_oficial_pratania_sp_ed136_2020-10-26.pdf",
    "nics-background-checks-2015-11": SHARED / "nics-background-checks-2015-11.pdf",
    "libtasn1": Path("/usr/share/doc/libtasn1-doc/libtasn1.pdf"),
    "shared-mime-info-spec": Path("/usr/share/doc/shared-mime-info/shared-mime-info-spec.pdf"),
    "shared-mime-info-spec-ch2": Path("/usr/share/doc/shared-mime-info/shared-mime-info-spec.html/x34.html"),
    "register": "register.pdf",
    "numbered": "numbered.docx",
    "nested": "nested.html",
    "figures": "figures.pdf",
}
TEXTS = {"diario_oficial_pratania_sp_ed136_2020-10-26": "diario_oficial_pratania_sp_ed136_2020-10-26.tika.txt"}
KINDS = {".pdf": "pdf", ".docx": "docx", ".html": "html"}
_FENCE = re.compile(r"^```.*?^```", re.M | re.S)


def fold(text: str) -> str:
    """Lower case, no accents, punctuation and Markdown marks as spaces, single spaces."""
    text = unicodedata.normalize("NFKD", text.casefold())
    text = "".join(c for c in text if not unicodedata.combining(c))
    return " ".join(re.sub(r"[^\w]+", " ", text).split())


def parse_reference(text: str) -> dict[str, list[Any]]:
    text = re.sub(r"<!--.*?-->", "", text, flags=re.S)
    ref: dict[str, list[Any]] = {"headings": [], "anchors": [], "rows": [], "absent": []}
    for line in text.splitlines():
        if m := re.match(r"^(#{1,6}) (.+)$", line):
            ref["headings"].append((len(m.group(1)), m.group(2).strip()))
        elif line.startswith("> "):
            ref["anchors"].append(line[2:].strip())
        elif line.startswith("! "):
            ref["absent"].append(line[2:].strip())
        elif line.startswith("|") and not re.match(r"^\|(\s*---\s*\|)+\s*$", line):
            ref["rows"].append(_cells(line))
    return ref


def _cells(line: str) -> list[str]:
    parts = re.split(r"(?<!\\)\|", line.strip())[1:-1]
    return [" ".join(p.replace("\\|", "|").split()) for p in parts]


def _lis(values: list[int]) -> int:
    import bisect

    tails: list[int] = []
    for v in values:
        i = bisect.bisect_left(tails, v)
        tails[i:i + 1] = [v]
    return len(tails)


def score(markdown: str, ref: dict[str, list[Any]]) -> dict[str, Any]:
    body = _FENCE.sub("", markdown)
    found = [(len(m.group(1)), m.group(2).strip()) for m in re.finditer(r"^(#{1,6}) (.+)$", body, re.M)]
    ref_keys = [fold(t) for _, t in ref["headings"]]
    pool = list(ref_keys)
    matched_found = 0
    for _, text in found:  # a reference heading matches once (articles repeat their label)
        key = fold(text)
        if key in pool:
            pool.remove(key)
            matched_found += 1
    found_pool = [fold(t) for _, t in found]
    found_levels = {}
    for level, text in found:
        found_levels.setdefault(fold(text), []).append(level)
    recalled, levels_ok, missing = 0, 0, []
    for level, text in ref["headings"]:
        key = fold(text)
        if key in found_pool:
            found_pool.remove(key)
            recalled += 1
            levels_ok += level in found_levels.get(key, [])
        else:
            missing.append(text)
    ref_pool = list(ref_keys)
    false = []
    for _, text in found:
        if fold(text) in ref_pool:
            ref_pool.remove(fold(text))
        else:
            false.append(text)
    flat = fold(body)
    positions = [flat.find(fold(a)) for a in ref["anchors"]]
    in_order = _lis([p for p in positions if p >= 0])
    out_rows = [_cells(ln) for ln in body.splitlines() if ln.startswith("|")]
    by_first: dict[str, list[str]] = {}
    for row in out_rows:
        if row:
            by_first.setdefault(fold(row[0]), row)
    cells_total = sum(len(r) for r in ref["rows"])
    cells_ok = 0
    for row in ref["rows"]:
        got = by_first.get(fold(row[0]))
        if got is not None:
            cells_ok += sum(_same_cell(a, b) for a, b in zip(row, got, strict=False))
    leaks = sum(body.count(a) for a in ref["absent"])
    return {
        "headings_reference": len(ref["headings"]), "headings_found": len(found), "headings_matched": recalled,
        "recall": _ratio(recalled, len(ref["headings"])), "precision": _ratio(matched_found, len(found)),
        "levels": _ratio(levels_ok, recalled), "anchors": len(ref["anchors"]),
        "anchors_missing": [a for a, p in zip(ref["anchors"], positions, strict=True) if p < 0],
        "order": _ratio(in_order, len(ref["anchors"])), "cells_reference": cells_total,
        "cells": _ratio(cells_ok, cells_total), "leaks": leaks, "missing": missing, "false": false[:40],
    }


def _same_cell(a: str, b: str) -> bool:
    """Cells compare with their punctuation (a nested table flattened with inserted ", ; :" differs)."""
    return " ".join(a.split()).casefold() == " ".join(b.split()).casefold()


def plain(markdown: str) -> str:
    """The text of the Markdown without its marks: heading and list markers, escapes, table pipes and rules."""
    lines = []
    for line in markdown.splitlines():
        if re.match(r"^\|(\s*---\s*\|)+\s*$", line):
            continue
        if line.startswith("|"):
            line = " ".join(_cells(line))
        line = re.sub(r"^(#{1,6} |\s*(?:[-*] |\d{1,9}\. ))", "", line).replace("\\", "")
        lines.append(line)
    return "\n".join(lines)


def _ratio(a: int, b: int) -> float | None:
    return round(a / b, 3) if b else None


def _micro(rows: list[dict[str, Any]]) -> dict[str, Any]:
    ref = sum(r["headings_reference"] for r in rows)
    found = sum(r["headings_found"] for r in rows)
    matched = sum(r["headings_matched"] for r in rows)
    precise = sum(round((r["precision"] or 0) * r["headings_found"]) for r in rows)
    orders = [r["order"] for r in rows if r["order"] is not None]
    cells = [(r["cells"], r["cells_reference"]) for r in rows if r["cells"] is not None]
    return {"recall": _ratio(matched, ref), "precision": _ratio(precise, found),
            "order_mean": round(sum(orders) / len(orders), 3) if orders else None,
            "cells": round(sum(c * n for c, n in cells) / sum(n for _, n in cells), 3) if cells else None,
            "leaks": sum(r["leaks"] for r in rows), "headings_reference": ref, "headings_matched": matched,
            "cpu_seconds": round(sum(r["cpu_seconds"] for r in rows), 3), "pages": sum(r["pages"] for r in rows)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--name", default="structure", help="result file name (before/after runs)")
    parser.add_argument("--only", action="append", help="score only these reference stems")
    parser.add_argument("--datasets", type=Path, default=SHARED, help="folder holding the shared PDFs")
    args = parser.parse_args()
    rows, skipped = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for stem, source in DOCUMENTS.items():
            if args.only and stem not in args.only:
                continue
            if isinstance(source, str):
                path = Path(tmp) / source
                BUILDERS[source](path)
            else:
                path = args.datasets / source.name if source.parent == SHARED else source
            if not path.is_file():
                skipped.append(f"{stem}: {path} not found")
                continue
            started = time.process_time()
            extracted = extract_document(path, KINDS[path.suffix], Settings())
            cpu = time.process_time() - started
            ref = parse_reference((DEV / f"{stem}.md").read_text(encoding="utf-8"))
            row = {"document": stem, "pages": extracted.page_count, "cpu_seconds": round(cpu, 3),
                   **score(extracted.markdown, ref), "cer": None}
            if stem in TEXTS and (args.datasets / TEXTS[stem]).is_file():
                reference = (args.datasets / TEXTS[stem]).read_text(encoding="utf-8")
                row["cer"] = round(character_error_rate(plain(extracted.markdown), reference), 4)
            rows.append(row)
    columns = ["recall", "precision", "levels", "order", "cells", "leaks", "cer"]
    print(f"{'document':45} {'headings':>9} " + " ".join(f"{c:>9}" for c in columns))
    for r in rows:
        values = " ".join(f"{'-' if r[c] is None else r[c]:>9}" for c in columns)
        print(f"{r['document']:45} {r['headings_matched']:>4}/{r['headings_reference']:<4} {values}")
    total = _micro(rows)
    shown = {k: "-" if v is None else v for k, v in total.items()}
    print(f"{'all (micro)':45} {total['headings_matched']:>4}/{total['headings_reference']:<4} "
          f"{shown['recall']:>9} {shown['precision']:>9} {'':>9} {shown['order_mean']:>9} {shown['cells']:>9} "
          f"{shown['leaks']:>9}")
    print(f"CPU {total['cpu_seconds']} s for {total['pages']} PDF pages and the other documents")
    for line in skipped:
        print("skipped:", line)
    path = save(args.name, {"documents": rows, "total": total, "skipped": skipped})
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
