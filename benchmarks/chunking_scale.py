"""Chunking time against input size on hostile text (issue 27, item 7): text without spaces, and a Markdown
document holding a large ``data:`` image. Linear chunking keeps seconds per MB flat.

    .venv/bin/python benchmarks/chunking_scale.py

Writes benchmarks/results/chunking-scale.json.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT))
from _common import print_table, save  # noqa: E402

CASES = {
    "no spaces": lambda n: "a" * n,
    "data: image": lambda n: "# Doc\n\n![img](data:image/png;base64," + "QUJD" * (n // 4) + ")\n\ntexto final.\n",
    "prose": lambda n: ("Uma frase comum do documento, com palavras e pontuação. " * (n // 57 + 1))[:n],
}


def main() -> None:
    from transforms.chunking import split_markdown

    rows = []
    for name, make in CASES.items():
        for megabytes in (0.25, 1, 4):
            text = make(int(megabytes * 1_000_000))
            started = time.perf_counter()
            chunks = split_markdown(text, "T", max_chars=4000)
            seconds = time.perf_counter() - started
            rows.append({"case": name, "MB": megabytes, "chunks": len(chunks), "seconds": round(seconds, 3),
                         "s/MB": round(seconds / megabytes, 3)})
    print_table(rows, ["case", "MB", "chunks", "seconds", "s/MB"])
    print("saved", save("chunking-scale", {"rows": rows}))


if __name__ == "__main__":
    main()
