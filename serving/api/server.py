"""Run the API under uvicorn, bound to 127.0.0.1 unless told otherwise; ``api_workers`` > 1 runs that many
processes (each loads the snapshot and follows the pointer on its own).

Threads and workers are chosen together so that they never oversubscribe the cores: each process's BLAS runs
``api_blas_threads`` (1: requests already run in parallel) and its query encoder ``cores // workers`` engine
threads (``api_encoder_threads`` lowers it), so workers x encoder threads <= cores. The default is one worker
whose shared encoder batches the questions of every concurrent request and uses every core for each batch;
more workers only pay when retrieval and answer composition (which hold the GIL) are the bottleneck, as with a
cheap embedding model. See ``serving.search.encoder_service``."""

from __future__ import annotations

import logging
import os
from typing import Any

from lakehouse.settings import Settings, get_settings
from serving.search.encoder_service import encoder_threads


def _configure_logging() -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    request_log = logging.getLogger("lakerag.api")  # one JSON object per line, nothing around it
    if not request_log.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(message)s"))
        request_log.addHandler(handler)
    request_log.setLevel(logging.INFO)
    request_log.propagate = False
    logging.getLogger("serving.answers").setLevel(logging.INFO)  # snapshot switches and refusals


BLAS_ENV = ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")


def _limit_blas(threads: int, encoder: int) -> None:
    """Requests already run in parallel; a multi-threaded BLAS per request oversubscribes the cores (at 100k
    chunks, 5x fewer requests/s with OpenBLAS's default threads here). The encoder engine's OpenMP threads are
    set for processes (and engines) loaded after this; the encoding thread applies them again to itself."""
    for name in BLAS_ENV:
        os.environ.setdefault(name, str(threads))  # for worker processes started after this
    os.environ["OMP_NUM_THREADS"] = str(encoder)
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return
    threadpool_limits(threads, user_api="blas")  # for this process, whose numpy may already be loaded


def worker_app() -> Any:
    """The app of one worker process (settings from the environment, as the parent set them)."""
    from serving.api.app import create_app  # deferred: litestar loads in the worker process that serves

    _configure_logging()
    settings = get_settings()
    _limit_blas(settings.api.blas_threads, encoder_threads(settings.api.workers, settings.api.encoder_threads))
    return create_app(settings)


def serve(settings: Settings, host: str | None = None, port: int | None = None, log_level: str = "info") -> None:
    import uvicorn

    from serving.api.app import create_app  # deferred: litestar is only needed once the server starts

    api = settings.api
    _configure_logging()
    _limit_blas(api.blas_threads, encoder_threads(api.workers, api.encoder_threads))
    options = {"host": host or api.host, "port": port or api.port, "log_level": log_level,
               "access_log": False, "lifespan": "on"}
    if api.workers > 1:
        os.environ["LAKERAG_HOME"] = str(settings.home)  # the workers read their settings from the environment
        # a worker loading a snapshot on a busy machine can miss uvicorn's 5 s health check and be killed over and
        # over; give it a minute
        uvicorn.run("serving.api.server:worker_app", factory=True, workers=api.workers,
                    timeout_worker_healthcheck=60, **options)
    else:
        uvicorn.run(create_app(settings), **options)


def examples(settings: Settings, host: str | None = None, port: int | None = None) -> str:
    """Example requests against the server about to start (printed by ``lakerag serve``)."""
    base = f"http://{host or settings.api.host}:{port or settings.api.port}"
    return "\n".join([
        f"lakerag API on {base}  (page: {base}/  OpenAPI: {base}/schema/openapi.json)",
        "Try:",
        f"  curl -s {base}/v1/query -H 'content-type: application/json' "
        "-d '{\"question\": \"Qual é o prazo para prestar contas de despesas de viagem?\"}'",
        f"  curl -s {base}/v1/query -H 'content-type: application/json' -H 'X-API-Key: <key>' "
        "-d '{\"question\": \"Qual o valor mensal do contrato CT-2024-0203?\", \"mode\": \"hybrid\"}'",
        f"  curl -s '{base}/v1/catalog?due_within_days=30'",
        f"  curl -sN {base}/v1/query/stream -H 'content-type: application/json' "
        "-d '{\"question\": \"Quais documentos vencem nos próximos 30 dias?\"}'",
    ])
