# Entry points. `make demo` and `make test` are the two README commands; both set up .venv first.
VENV := .venv
PY := $(VENV)/bin/python
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: setup demo index status test test-fast lint lock corpus bench clean

setup: $(VENV)/.installed

$(VENV)/.installed: requirements.lock pyproject.toml scripts/setup.sh
	bash scripts/setup.sh

demo: setup  ## ingest, extract and chunk the bundled sample corpus, then print its status
	$(VENV)/bin/lakerag index
	$(VENV)/bin/lakerag status

index: setup
	$(VENV)/bin/lakerag index

status: setup
	$(VENV)/bin/lakerag status

test: setup  ## the whole suite (what CI runs)
	$(PY) -m pytest -q

test-fast: setup  ## skip slow and integration tests
	$(PY) -m pytest -q -m "not slow and not integration"

lint: setup
	$(VENV)/bin/ruff check . || true

lock:  ## re-pin requirements.lock from requirements.in
	$(VENV)/bin/uv pip compile requirements.in -o requirements.lock --python-version 3.11 --find-links /opt/wheels

corpus: setup  ## rebuild the sample corpus's PDF and DOCX files from sample_corpus/src
	$(PY) scripts/build_sample_corpus.py

bench: setup
	$(PY) benchmarks/extraction.py
	$(PY) benchmarks/ingest.py

clean:
	rm -rf var
