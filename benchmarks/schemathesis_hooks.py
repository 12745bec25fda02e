"""Schemathesis checks of our own (loaded through SCHEMATHESIS_HOOKS by benchmarks/schemathesis_run.py)."""

import schemathesis


@schemathesis.check
def clear_client_errors(ctx, response, case):
    """Every 4xx is JSON with an error code and a non-empty, human-readable detail."""
    if 400 <= response.status_code < 500:
        body = response.json()
        if not (isinstance(body, dict) and body.get("error") and isinstance(body.get("detail"), str)
                and len(body["detail"]) >= 8):
            raise AssertionError(f"unclear {response.status_code}: {response.text[:200]}")
