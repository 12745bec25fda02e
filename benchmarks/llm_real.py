"""The shipped small models behind the real llama.cpp server (after `make llm`), measured on this CPU.

    .venv/bin/python benchmarks/llm_real.py [--models smollm2,gemma3] [--n 8]

For each model, ``lakerag llm serve`` on a free 127.0.0.1 port (stopped by its PID), then through lakerag's own
``LLMClient`` (no cache: a fresh folder per run): the share of evidence-grading, judge and owners replies whose
JSON the product reads (``json_ok``), the share of agentic first steps that call a listed tool with arguments
that parse and name the required fields (``tool_valid``), completion tokens per second and the p95 seconds per
request; and three chunk contexts and three community reports as the model writes them (the prompts of
``transforms.enrichment`` and ``graph_index.llm_reports``; the report's evidence lines are sentences of one
sample document, tagged with ids of our own). Prints a table, writes benchmarks/results/llm_real.json.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks._common import save  # noqa: E402
from graph_index import llm_reports  # noqa: E402
from models.llm import LLMClient, LLMError  # noqa: E402
from models.llm_protocol import Capabilities, json_object  # noqa: E402
from models.llm_server import MODELS  # noqa: E402
from serving.answers import llm_grading  # noqa: E402
from serving.answers.prompt import Source  # noqa: E402
from serving.evaluation.llm_judge import SYSTEM as JUDGE_SYSTEM  # noqa: E402
from serving.evaluation.llm_judge import parse_label  # noqa: E402
from tests.fixtures.llama_server import start, stop  # noqa: E402
from transforms import enrichment  # noqa: E402
from transforms.extraction import owners  # noqa: E402

DOCS = Path(__file__).resolve().parents[1] / "sample_corpus" / "documents"
TEXTS = [DOCS / "POPs" / "POP-TI-003 Backup e Restauração.md",
         DOCS / "Atas" / "Ata Reunião de Diretoria 2025-06-10.md",
         DOCS / "Diversos" / "FAQ Financeiro - Dúvidas Frequentes.md"]
QUESTIONS = ["Com que frequência é feito o backup dos servidores?", "O que a diretoria decidiu na reunião?",
             "Qual é o prazo de reembolso de despesas?", "Quem aprova o procedimento de backup?"]
TOOLS = [{"type": "function", "function": {"name": "search", "description": "Search every document.",
          "parameters": {"type": "object", "properties": {"query": {"type": "string"}}, "required": ["query"]}}},
         {"type": "function", "function": {"name": "read_document", "description": "Read a document's section.",
          "parameters": {"type": "object", "properties": {"document_id": {"type": "string"},
                                                          "section": {"type": "string"}},
                         "required": ["document_id"]}}}]


def paragraphs(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8")
    return [p.strip() for p in text.split("\n\n") if len(p.strip()) > 80 and not p.lstrip().startswith("#")]


class Timed:
    def __init__(self, llm: LLMClient) -> None:
        self.llm, self.seconds, self.tokens = llm, [], 0

    def __call__(self, fn, *args, **kwargs):
        started, before = time.perf_counter(), self.llm.usage["completion_tokens"]
        try:
            return fn(*args, **kwargs)
        finally:
            self.seconds.append(time.perf_counter() - started)
            self.tokens += self.llm.usage["completion_tokens"] - before


def measure(model: str, n: int, log_dir: Path) -> dict:
    server, proc = start(model, log_dir / f"{model}.log", n_ctx=2048)
    try:
        caps = Capabilities(context_length=2048, system_role=MODELS[model].system_role)
        llm = LLMClient(server.base_url, model, "x", Path(tempfile.mkdtemp(prefix="llm-bench-")), timeout=300,
                        max_retries=0, capabilities=caps)
        timed, json_ok, json_total, tools_valid, tools_total = Timed(llm), 0, 0, 0, 0
        passages = [(p, path.stem) for path in TEXTS for p in paragraphs(path)[:3]]
        for i in range(n):  # evidence grading (JSON mode)
            text, title = passages[i % len(passages)]
            source = Source(i + 1, "chunk", title, "", text)
            answer = timed(llm_grading._ask, llm, QUESTIONS[i % len(QUESTIONS)], source)
            json_ok += answer is not None
            json_total += 1
        for i in range(max(1, n // 2)):  # the judge (JSON mode)
            user = (f"Question: {QUESTIONS[i % 4]}\nGold answer: diariamente\nStatus: answered\nAnswer under "
                    f"review:\n<<<\n{passages[i % len(passages)][0][:300]}\n>>>\nCited: [1]")
            reply = timed(llm.chat, [{"role": "system", "content": JUDGE_SYSTEM}, {"role": "user", "content": user}],
                          max_tokens=120, response_format={"type": "json_object"}).text
            json_ok += parse_label(reply) is not None
            json_total += 1
        for path in TEXTS:  # owners (JSON mode)
            try:
                timed(owners.ask_owners, llm, path.stem, path.read_text(encoding="utf-8"))
                json_ok += 1
            except LLMError:
                pass
            json_total += 1
        for i in range(max(1, n // 2)):  # the agentic loop's first step
            reply = timed(llm.chat_tools, [{"role": "system", "content": "Use the tools to answer."},
                                           {"role": "user", "content": QUESTIONS[i % 4]}], TOOLS, max_tokens=120)
            tools_total += 1
            for call in reply.tool_calls[:1]:
                spec = {t["function"]["name"]: t["function"]["parameters"] for t in TOOLS}.get(call.name)
                args = json_object(call.arguments)
                tools_valid += bool(spec and args is not None and all(k in args for k in spec["required"]))
        contexts = []
        for path in TEXTS:
            markdown = path.read_text(encoding="utf-8")
            chunk = paragraphs(path)[1]
            contexts.append({"document": path.stem, "chunk": chunk[:160],
                             "context": timed(enrichment.llm_context, llm, path.stem, markdown, chunk, "pt")})
        reports = []
        for path in TEXTS:
            sentences = [s.strip() for p in paragraphs(path)[:6] for s in p.split(". ") if len(s.strip()) > 40][:8]
            lines = ["Entities:", f"- {path.stem} (document): the document", "", "Evidence:"]
            lines += [f"[chk_{k}] {s}" for k, s in enumerate(sentences)]
            messages = [{"role": "system", "content": llm_reports._SYSTEM},
                        {"role": "user", "content": "\n".join(lines)}]
            try:
                text = timed(llm.chat, messages, temperature=0.0, max_tokens=400,
                             response_format=llm_reports.RESPONSE_FORMAT).text
            except LLMError as exc:
                text = f"(failed: {exc.reason})"
            reports.append({"document": path.stem, "report": text, "parsed": json_object(text) is not None})
        seconds = sorted(timed.seconds)
        return {"model": model, "requests": len(seconds), "json_ok": json_ok, "json_total": json_total,
                "tool_valid": tools_valid, "tool_total": tools_total,
                "tokens_per_s": round(timed.tokens / sum(seconds), 1),
                "p50_s": round(seconds[len(seconds) // 2], 2),
                "p95_s": round(seconds[min(len(seconds) - 1, int(0.95 * len(seconds)))], 2),
                "usage": llm.usage, "contexts": contexts, "reports": reports}
    finally:
        stop(proc)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="smollm2,gemma3")
    parser.add_argument("--n", type=int, default=8, help="grading requests per model (judge and tools: n/2)")
    args = parser.parse_args()
    load = os.getloadavg()
    rows = [measure(m, args.n, Path(tempfile.mkdtemp(prefix="llm-bench-log-"))) for m in args.models.split(",")]
    print(f"{'model':<8} {'JSON read':>10} {'tool calls valid':>17} {'tokens/s':>9} {'p50 s':>6} {'p95 s':>6}")
    for r in rows:
        print(f"{r['model']:<8} {r['json_ok']:>4}/{r['json_total']:<5} {r['tool_valid']:>8}/{r['tool_total']:<8} "
              f"{r['tokens_per_s']:>9} {r['p50_s']:>6} {r['p95_s']:>6}")
    path = save("llm_real", {"load_before": load, "load_after": os.getloadavg(), "n": args.n, "models": rows})
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
