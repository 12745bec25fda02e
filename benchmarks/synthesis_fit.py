"""Compare synthesizers, fit the selector's and the near-miss refusal's thresholds on the dev split, and
ablate the composer's rule families on the test split, in one process: every question is retrieved and graded
once (``AnswerService.prepare``), then each configuration writes its answer from a copy of that graded
evidence and the project's judge labels it.

    .venv/bin/python benchmarks/synthesis_fit.py --home WORK/sample [--questions sample_corpus/questions.jsonl]
        [--split dev|test|all] [--what compare|fit|ablate] [--variants FILE]

``--home`` is a published sample snapshot (``lakerag eval --answers --work WORK`` builds WORK/sample).
Writes benchmarks/results/synthesis-<what>-<split>.json.
"""

from __future__ import annotations

import argparse
import copy
import itertools
import json
import sys
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
from _common import save  # noqa: E402


def prepared(service, rows, as_of):
    import msgspec

    from serving.answers import Caller, QueryRequest
    out = []
    for row in rows:
        request = msgspec.convert({"question": row["question"], "mode": "auto", "generate": True,
                                   **({"as_of": as_of.isoformat()} if as_of else {})}, QueryRequest)
        try:
            out.append(service.prepare(request, Caller("eval", frozenset(row.get("groups") or ()))))
        except Exception as exc:  # noqa: BLE001 - a question the service cannot take is declined, as in eval
            out.append(f"{type(exc).__name__}: {exc}")
    return out


def run(service, rows, states, synthesizer) -> dict:
    from serving.answers import synthesis
    from serving.evaluation.answers import label_one
    from serving.evaluation.labels import summarise
    judged = []
    for row, state in zip(rows, states, strict=True):
        if isinstance(state, str):
            judged.append(label_one(row, state))
            continue
        state = replace(state, retrieved=copy.deepcopy(state.retrieved), grades=copy.deepcopy(state.grades))
        draft = state.draft
        if draft is None:
            draft = synthesizer.draft(synthesis.Graded.of(state, *service.thresholds(state.engine)))
        judged.append(label_one(row, service.finish(state, draft, f"fit-{row.get('id')}")))
    out = summarise(judged)
    sets = sorted({row["set"] for row in rows})
    if len(sets) > 1:
        out["by_set"] = {name: summarise([j for j, row in zip(judged, rows, strict=True) if row["set"] == name])
                         for name in sets}
    out["answers"] = [j.as_dict() for j in judged]
    return out


def line(name: str, s: dict) -> str:
    lab = s["labels"]
    sets = "".join(f"\n    {k:36s} " + line("", v).strip() for k, v in s.get("by_set", {}).items())
    return (f"{name:40s} correct {lab['correct']:.3f} partly {lab['partly']:.3f} wrong {lab['wrong']:.3f} "
            f"declined {lab['declined']:.3f} unans_declined {s['unanswerable_declined']:.3f} "
            f"ans_declined {s['answerable_declined']:.3f} n={s['questions']}{sets}")


def score(s: dict) -> float:
    """What the fit maximises: correct, minus wrong twice, plus unanswerable declined, minus answerable declined."""
    lab = s["labels"]
    return lab["correct"] - 2 * lab["wrong"] + 0.3 * s["unanswerable_declined"] - 0.3 * s["answerable_declined"]


def configurations(what: str):
    from serving.answers import synthesis
    from serving.answers.synthesis import Chain, Guarded, ModeAnswer, NearMiss, Selector
    if what == "compare":
        for name in synthesis.NAMES:
            yield name, synthesis.build(name)
        yield "rules-unguarded", synthesis.rules()
        sel = Selector()
        yield "selector-unguarded", Chain((ModeAnswer(sel), sel))
        yield "selector-no-mode-answers", Guarded(sel)
    elif what == "fit-selector":
        for share, limit, weight, novel in itertools.product((0.6, 0.75, 0.9), (1, 2, 3), (0.0, 0.5, 1.0),
                                                             (True, False)):
            sel = Selector(share, limit, weight, novel)
            yield f"sel s={share} l={limit} w={weight} n={int(novel)}", Chain((ModeAnswer(sel), Guarded(sel)))
    elif what == "fit-refusal":
        for c, p in itertools.product((0.4, 0.45, 0.5, 0.55, 0.6, 1.1), (0.4, 0.45, 0.5, 0.55, 0.6, 1.1)):
            corrective = synthesis.Corrective()
            yield f"near c={c} p={p}", Chain((ModeAnswer(corrective), Guarded(corrective, NearMiss(c, p))))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--home", type=Path, required=True)
    parser.add_argument("--questions", type=Path, nargs="+", default=[ROOT / "sample_corpus" / "questions.jsonl"])
    parser.add_argument("--split", default="dev")
    parser.add_argument("--what", default="compare")
    parser.add_argument("--limit", type=int, default=0)
    args = parser.parse_args()

    from lakehouse.settings import Settings
    from serving.evaluation.answers import open_service, read_questions, sample_as_of
    rows = [{**row, "set": path.stem} for path in args.questions for row in read_questions(path)]
    as_of = sample_as_of(read_questions(ROOT / "sample_corpus" / "questions.jsonl"))  # variants keep its date
    rows = [r for r in rows if args.split == "all" or r.get("split") == args.split]
    rows = rows[:args.limit] if args.limit else rows
    service = open_service(Settings(home=args.home))
    states = prepared(service, rows, as_of)
    results = {}
    if args.what == "ablate":
        from serving.answers import refine, synthesis
        base = synthesis.build("rules")
        results["all rules"] = run(service, rows, states, base)
        print(line("all rules", results["all rules"]), flush=True)
        for family in refine.FAMILIES:
            refine.ENABLED.discard(family)
            results[f"without {family}"] = run(service, rows, states, base)
            refine.ENABLED.add(family)
            print(line(f"without {family}", results[f"without {family}"]), flush=True)
        from serving.answers.agentic import parts
        agentic = [i for i, st in enumerate(states) if not isinstance(st, str) and st.mode_used == "agentic"]
        print(f"{len(agentic)} questions answered in agentic mode", flush=True)
        for family in parts.FAMILIES:  # the agentic mode composes while it retrieves: ask those again
            parts.ENABLED.discard(family)
            again = prepared(service, [rows[i] for i in agentic], as_of)
            changed = list(states)
            for i, st in zip(agentic, again, strict=True):
                changed[i] = st
            results[f"without {family}"] = run(service, rows, changed, base)
            parts.ENABLED.add(family)
            print(line(f"without {family}", results[f"without {family}"]), flush=True)
    else:
        for name, synth in configurations(args.what):
            results[name] = run(service, rows, states, synth)
            print(line(name, results[name]), f"score {score(results[name]):.3f}", flush=True)
        best = max(results, key=lambda k: score(results[k]))
        print("best:", best)
    tag = f"{args.what}-{args.split}-{'+'.join(p.stem for p in args.questions)}"
    save(f"synthesis-{tag}", {"split": args.split, "questions": [str(p) for p in args.questions],
                                                  "results": {k: {kk: vv for kk, vv in v.items() if kk != "answers"}
                                                              for k, v in results.items()}})
    Path(f"/tmp/synthesis-{tag}-answers.json").write_text(
        json.dumps({k: v["answers"] for k, v in results.items()}, ensure_ascii=False))


if __name__ == "__main__":
    main()
