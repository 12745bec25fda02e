"""The page signal end to end with a tiny random ColPali: the question encoded by the same model, MaxSim over the
caller's readable pages only, fused with the text ranking, page citations, and the permission-checked page image
served over HTTP. (A random model ranks arbitrarily: the tests check the mechanics, not the quality.)"""

from __future__ import annotations

import numpy as np
import pytest

from tests.fixtures.colpali import write_visual_source

RH_PATH = "RH/Absenteísmo.pdf"
QUESTION = "Qual foi o índice de absenteísmo da enfermagem?"


@pytest.fixture(scope="module")
def pages_home(tmp_path_factory, tiny_colpali):
    from lakehouse.settings import Settings
    from transforms.pipeline import run_index

    root = tmp_path_factory.mktemp("pages")
    settings = Settings(home=root / "home", source=write_visual_source(root / "source"),
                        embedding_model="wordllama", ocr=False, extract_timeout=0, pages_model=tiny_colpali)
    run_index(settings)
    return settings


def test_maxsim_ranks_only_readable_pages_and_matches_a_brute_force_score(pages_home):
    from serving.search.pages import PageIndex, load_page_searcher
    from serving.search.service import serving_tables

    searcher = load_page_searcher(pages_home, serving_tables(pages_home))
    public = searcher.search(QUESTION, {"public"}, top=10)
    assert public and RH_PATH not in {hit.path for hit in public}
    everything = searcher.search(QUESTION, {"rh"}, top=10)
    assert len(everything) == 4 and RH_PATH in {hit.path for hit in everything}
    index: PageIndex = searcher.index
    query = searcher.model.encode_queries([QUESTION])[0]
    brute = [float((query @ index.tokens[index.offsets[h.row]:index.offsets[h.row + 1]].astype(np.float32).T)
                   .max(axis=1).sum()) for h in everything]
    assert np.allclose([h.score for h in everything], brute, rtol=1e-4)
    assert [h.score for h in everything] == sorted((h.score for h in everything), reverse=True)


def test_pages_are_fused_with_the_text_ranking_as_a_third_signal(pages_home):
    from serving.search.service import build_retriever, config_from

    retriever = build_retriever(pages_home)
    config = config_from(pages_home)
    assert config.pages_weight == pytest.approx(0.3)
    hits = retriever.search(QUESTION, {"rh"}, top_k=10, config=config)
    page_only = [h for h in hits if h.chunk_id.startswith("page:")]
    # the chart pages have no text: only the page signal can bring them, cited as document and page
    assert {(h.path, tuple(h.pages)) for h in page_only} >= {(RH_PATH, (2,)), ("Relatórios/Ocupação 2025.pdf", (2,))}
    assert all("pages" in h.scores and h.row == -1 for h in page_only)
    assert "pages_maxsim_ms" in retriever.timings
    public = retriever.search(QUESTION, {"public"}, top_k=10, config=config)
    assert RH_PATH not in {h.path for h in public}
    text_only = retriever.search(QUESTION, {"rh"}, top_k=10, config=config_from(pages_home.replace(pages_model=None)))
    assert not any(h.chunk_id.startswith("page:") for h in text_only)


def test_page_citation_and_the_page_image_are_served_only_to_readers(pages_home):
    from tests.fixtures.api import serve

    with serve(pages_home, keys={"k-rh": ["rh"]}) as api:
        found = api.client.post("/v1/search", json={"question": QUESTION, "top_k": 10}, headers=api.key("k-rh"))
        pages = [h for h in found.json()["hits"] if h["chunk_id"].startswith("page:") and h["path"] == RH_PATH]
        assert pages and pages[0]["pages"] == [2]
        document = pages[0]["document_id"]
        answer = api.client.post("/v1/query", json={"question": QUESTION, "mode": "basic", "top_k": 10},
                                 headers=api.key("k-rh")).json()
        cited_pages = [e for e in answer["evidence"] if e["kind"] == "page"]
        assert {(e["document_id"], tuple(e["pages"])) for e in cited_pages} >= {(document, (2,))}
        assert all(e["n"] and e["path"] and e["section"].startswith("página") for e in cited_pages)
        for citation in answer["citations"]:
            if citation["kind"] == "page":
                assert citation["document_id"] and len(citation["pages"]) == 1
        image = api.client.get(f"/v1/documents/{document}/pages/2/image", headers=api.key("k-rh"))
        assert image.status_code == 200 and image.headers["content-type"] == "image/png"
        assert image.content.startswith(b"\x89PNG")
        assert api.client.get(f"/v1/documents/{document}/pages/2/image").status_code == 404  # public caller
        assert api.client.get(f"/v1/documents/{document}/pages/9/image", headers=api.key("k-rh")).status_code == 404
        public = api.client.post("/v1/search", json={"question": QUESTION, "top_k": 10}).json()["hits"]
        assert RH_PATH not in {h["path"] for h in public}
