#!/usr/bin/env bash
# One-command setup: system OCR packages (when root and apt is there), then .venv from the lock file.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v tesseract >/dev/null 2>&1; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing tesseract-ocr (por, eng) with apt-get"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tesseract-ocr tesseract-ocr-por \
      >/dev/null) || echo "setup: could not install tesseract; OCR tests will be skipped"
  else
    echo "setup: tesseract not found and not root; scanned PDFs will be quarantined, OCR tests skipped"
  fi
fi

# Debian's chromium drives the analyst page's end-to-end test (no browser is ever downloaded); docker-compose
# (v1, Debian) validates docker-compose.yml without an engine. Both optional: their tests skip without them.
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  missing=""
  command -v chromium >/dev/null 2>&1 || missing="$missing chromium"
  command -v docker-compose >/dev/null 2>&1 || missing="$missing docker-compose"
  if [ -n "$missing" ]; then
    echo "setup: installing$missing with apt-get"
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null) \
      || echo "setup: could not install$missing; the tests that need them will be skipped"
  fi
fi

PYTHON=${PYTHON:-python3.11}
command -v "$PYTHON" >/dev/null 2>&1 || PYTHON=python3
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install -q --disable-pip-version-check uv
# torch is pinned to the CPU build that lies in /opt/wheels on these machines; elsewhere take PyPI's 2.13.0.
if [ -d /opt/wheels ] && ls /opt/wheels/torch-2.13.0+cpu-* >/dev/null 2>&1; then
  .venv/bin/uv pip install --python .venv/bin/python -q --find-links /opt/wheels -r requirements.lock
else
  sed 's/^torch==2.13.0+cpu/torch==2.13.0/' requirements.lock > .venv/requirements.lock
  .venv/bin/uv pip install --python .venv/bin/python -q -r .venv/requirements.lock
fi
# colpali-engine without its declared dependencies (torchvision and peft would break transformers here;
# docs/adr/0009): the pages stage imports only its ColPali modules, which need neither.
.venv/bin/uv pip install --python .venv/bin/python -q --no-deps -r requirements-nodeps.txt
.venv/bin/uv pip install --python .venv/bin/python -q --no-deps -e .
touch .venv/.installed
echo "setup: .venv ready ($(.venv/bin/python --version))"
