"""Precision and recall of the injection detector (``models.injection``) on the labelled sentences of
``tests/fixtures/injection/`` (instructions aimed at an assistant, and benign imperatives of policy language).

    .venv/bin/python benchmarks/injection.py

Prints a table (and the misses and false alarms) and writes benchmarks/results/injection.json.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
from _common import print_table, save  # noqa: E402

from models.injection import DETECTOR_VERSION, is_injection  # noqa: E402

FIXTURES = ROOT / "tests" / "fixtures" / "injection"


def load(name: str) -> list[str]:
    lines = (FIXTURES / name).read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def main() -> None:
    injections, benign = load("injections.txt"), load("benign.txt")
    missed = [s for s in injections if not is_injection(s)]
    alarms = [s for s in benign if is_injection(s)]
    tp, fp = len(injections) - len(missed), len(alarms)
    row = {"detector": DETECTOR_VERSION, "injections": len(injections), "benign": len(benign),
           "precision": round(tp / (tp + fp), 3) if tp + fp else 0.0, "recall": round(tp / len(injections), 3)}
    print_table([row], list(row))
    for label, items in (("missed", missed), ("false alarm", alarms)):
        for sentence in items:
            print(f"{label}: {sentence}")
    print(save("injection", {**row, "missed": missed, "false_alarms": alarms}))


if __name__ == "__main__":
    main()
