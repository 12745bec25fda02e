"""The real app over HTTP: uvicorn in a thread on 127.0.0.1 with an ephemeral port, against indexes built by
``run_index`` (the sample corpus once per session; the small corpus where a test changes documents)."""

from __future__ import annotations

import contextlib
import json
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import SAMPLE

KEYS = {"k-juridico": ["juridico", "compras"], "k-rh": ["rh"], "k-diretoria": ["diretoria", "gestores"],
        "k-compras": ["compras"], "k-all": ["juridico", "compras", "rh", "diretoria", "gestores"]}
AS_OF = "2026-11-29"  # the sample corpus's reference date for governance questions


def settings_for(home: Path, source: Path = SAMPLE, **extra):
    from lakehouse.settings import Settings

    return Settings(home=home, source=source, embedding_model="wordllama", **extra)


class Server:
    """A running API: ``url``, an httpx ``client``, its ``holder`` and the app."""

    def __init__(self, app, holder, url: str) -> None:
        self.app, self.holder, self.url = app, holder, url
        self.client = httpx.Client(base_url=url, timeout=30)

    def key(self, name: str | None) -> dict[str, str]:
        return {"x-api-key": name} if name else {}


@contextlib.contextmanager
def serve(settings, watch: bool = False, interval: float = 0.2, keys: dict | None = None,
          trust_gateway: bool = False, llm_cache: Path | None = None) -> Iterator[Server]:
    """The app for ``settings`` under uvicorn; ``llm_cache``: where LLM answers are cached (when one is set)."""
    import uvicorn

    from serving.answers import Access, SnapshotHolder
    from serving.answers.access import _entries
    from serving.answers.generation import Generator
    from serving.api import create_app

    holder = SnapshotHolder(settings)
    if llm_cache is not None:
        holder.generator = Generator.from_settings(settings, llm_cache)
    access = Access(_entries(keys if keys is not None else KEYS, "test"), trust_gateway=trust_gateway)
    settings_env = {"api_reload_interval": interval}
    app = create_app(_WithApi(settings, settings_env), holder=holder, access=access, watch=watch)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on", access_log=False))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    running = Server(app, holder, f"http://127.0.0.1:{port}")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with contextlib.suppress(httpx.HTTPError):
            if running.client.get("/ready").status_code == 200:
                break
        time.sleep(0.05)
    else:
        raise RuntimeError("the API did not become ready")
    try:
        yield running
    finally:
        running.client.close()
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


class _WithApi:
    """Settings plus API fields (the project settings may not define them yet)."""

    def __init__(self, settings, extra: dict) -> None:
        self._settings, self._extra = settings, extra

    def __getattr__(self, name: str):
        if name in self._extra:
            return self._extra[name]
        return getattr(self._settings, name)


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
