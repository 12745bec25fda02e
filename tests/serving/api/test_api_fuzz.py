"""Property: no client input answers 5xx. Bodies and query strings come from hypothesis (bounded for CI): any
JSON value where an object is expected, objects with the real field names given wrong types and extreme
values, deep nesting, and catalog parameters at the edges of the calendar."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

FIELDS = ["question", "mode", "filters", "top_k", "community_level", "as_of", "generate", "method", "doc_types",
          "departments", "path_prefix", "issued_from", "review_to"]
SCALARS = (st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70)
           | st.floats(allow_nan=False) | st.text(max_size=40)
           | st.sampled_from(["", "auto", "basic", "global", "9999-12-31", "0001-01-01", "2026-02-30", "\x00"]))
JSON = st.recursive(SCALARS, lambda inner: st.lists(inner, max_size=4)
                    | st.dictionaries(st.sampled_from(FIELDS) | st.text(max_size=8), inner, max_size=5),
                    max_leaves=20)
BODIES = JSON | st.fixed_dictionaries({"question": st.text(max_size=200)},
                                      optional={k: JSON for k in FIELDS if k != "question"})
FUZZ = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                        HealthCheck.too_slow])


@FUZZ
@given(body=BODIES, path=st.sampled_from(["/v1/query", "/v1/search"]))
def test_no_json_body_answers_a_server_error(api, body, path):
    response = api.client.post(path, content=json.dumps(body), headers={"content-type": "application/json"})
    assert response.status_code < 500, (path, body, response.text[:300])


@FUZZ
@given(params=st.dictionaries(st.sampled_from(["due_within_days", "as_of", "limit", "offset", "outdated",
                                               "doc_type", "department", "responsible", "approver", "title"]),
                              st.text(max_size=12) | st.integers(min_value=-(2**40), max_value=2**40).map(str)
                              | st.sampled_from(["9999-12-31", "0001-01-01", "true", "-1", "1e309"]),
                              max_size=4))
def test_no_catalog_query_answers_a_server_error(api, params):
    response = api.client.get("/v1/catalog", params=params)
    assert response.status_code < 500, (params, response.text[:300])


@FUZZ
@given(depth=st.integers(min_value=1, max_value=50_000), opener=st.sampled_from(["[", '{"a":']))
def test_no_nesting_depth_answers_a_server_error(api, depth, opener):
    closer = "]" if opener == "[" else "}"
    body = opener * depth + "1" + closer * depth
    response = api.client.post("/v1/query", content=body, headers={"content-type": "application/json"})
    assert response.status_code < 500, (depth, response.text[:200])
