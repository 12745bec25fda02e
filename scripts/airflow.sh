#!/usr/bin/env bash
# `make airflow`: Airflow 3 on this machine with the lakerag DAGs, every server on 127.0.0.1.
#
# Starts the API server, scheduler, DAG processor and triggerer (each in its own process group), waits until
# the API server answers, then unpauses the lakerag DAGs: they are created paused
# (AIRFLOW__CORE__DAGS_ARE_PAUSED_AT_CREATION=True), so no scheduled run starts before the services are ready.
# The log server is not started (--skip-serve-logs: it would listen on every interface); with the local
# executor the UI reads task logs from $AIRFLOW_HOME/logs. Ctrl-C (SIGINT) or SIGTERM stops every process it
# started: SIGTERM to each group, SIGKILL to what is left after AIRFLOW_STOP_TIMEOUT seconds.
#
# With AIRFLOW__CORE__EXECUTOR=CeleryExecutor (scripts/cluster.sh sets it, with Redis and PostgreSQL), it also
# starts one `airflow celery worker` per entry of AIRFLOW_CELERY_WORKERS ("NAME=QUEUE[,QUEUE...] ...", e.g.
# "gpu=default,gpu cpu=default"), each with AIRFLOW_CELERY_CONCURRENCY (default 1) task slots, its own Celery
# node name and LAKERAG_WORKER_NAME=NAME (what its task instances record as their hostname, through
# lakerag.orchestration.worker_hostname). Workers skip the log server too: they share $AIRFLOW_HOME/logs here.
# AIRFLOW_CELERY_WORKER_HOMES=DIR gives each worker a LAKERAG_HOME of its own, DIR/NAME, as separate machines have
# (with LAKERAG_STORE set they then share nothing but the bucket); unset, every worker uses the caller's.
# AIRFLOW_GPU_POOL_SLOTS (default 1) sizes the lakerag_gpu pool.
set -uo pipefail

VENV=${VENV:-.venv}
AIRFLOW=${AIRFLOW:-$VENV/bin/airflow}
PYTHON=${PYTHON:-$VENV/bin/python}
HOST=127.0.0.1
PORT=${AIRFLOW_PORT:-8080}
READY_TIMEOUT=${AIRFLOW_READY_TIMEOUT:-300}
STOP_TIMEOUT=${AIRFLOW_STOP_TIMEOUT:-30}
DAGS_DIR=${AIRFLOW__CORE__DAGS_FOLDER:-dags}
export AIRFLOW__CORE__DAGS_ARE_PAUSED_AT_CREATION=True AIRFLOW__API__HOST=$HOST AIRFLOW__API__PORT=$PORT
export AIRFLOW__SCHEDULER__SCHEDULER_HEALTH_CHECK_SERVER_HOST=$HOST
export AIRFLOW__CORE__EXECUTION_API_SERVER_URL=${AIRFLOW__CORE__EXECUTION_API_SERVER_URL:-http://$HOST:$PORT/execution/}

groups=()

signal_all() {  # each started group, and every process of its session (a task process in a group of its own)
    for g in "${groups[@]}"; do
        kill "-$1" -- "-$g" 2>/dev/null
        command -v pkill >/dev/null && pkill "-$1" -s "$g" 2>/dev/null
    done
}

any_alive() {
    for g in "${groups[@]}"; do
        kill -0 -- "-$g" 2>/dev/null && return 0
        command -v pgrep >/dev/null && pgrep -s "$g" >/dev/null 2>&1 && return 0
    done
    return 1
}

stop() {
    trap - INT TERM EXIT
    echo "airflow: stopping ${#groups[@]} process groups" >&2
    signal_all TERM
    local deadline=$((SECONDS + STOP_TIMEOUT))
    while ((SECONDS < deadline)) && any_alive; do
        sleep 0.5
    done
    signal_all KILL
    exit "${1:-0}"
}
trap 'stop 130' INT
trap 'stop 143' TERM
trap 'stop $?' EXIT

start() {  # setsid: a session and process group of its own, killed as a whole (children included)
    setsid "$AIRFLOW" "$@" &
    groups+=($!)
    echo "airflow: group $! ($1)" >&2
}

"$AIRFLOW" db migrate >/dev/null || exit 1
"$AIRFLOW" pools set lakerag_gpu "${AIRFLOW_GPU_POOL_SLOTS:-1}" "GPU-bound index stages" >/dev/null || exit 1
start api-server --host "$HOST" --port "$PORT"
start scheduler --skip-serve-logs
start dag-processor
start triggerer --skip-serve-logs
for worker in ${AIRFLOW_CELERY_WORKERS:-}; do  # NAME=QUEUES; LAKERAG_WORKER_NAME reaches its task processes
    name=${worker%%=*} home=${LAKERAG_HOME:-}
    [[ -n ${AIRFLOW_CELERY_WORKER_HOMES:-} ]] && home=$AIRFLOW_CELERY_WORKER_HOMES/$name && mkdir -p "$home"
    LAKERAG_WORKER_NAME=$name LAKERAG_HOME=$home start celery worker --celery-hostname "$name@%h" \
        --queues "${worker#*=}" --concurrency "${AIRFLOW_CELERY_CONCURRENCY:-1}" --skip-serve-logs
done

health="http://$HOST:$PORT/api/v2/monitor/health"
deadline=$((SECONDS + READY_TIMEOUT))
until "$PYTHON" -c "import urllib.request, sys; urllib.request.urlopen(sys.argv[1], timeout=5)" "$health" \
        2>/dev/null; do
    ((SECONDS < deadline)) || { echo "airflow: the API server did not answer $health" >&2; exit 1; }
    sleep 2
done
for file in "$DAGS_DIR"/lakerag_*.py; do
    dag=$(basename "$file" .py)
    until "$AIRFLOW" dags unpause "$dag" >/dev/null 2>&1; do  # waits until the DAG processor has parsed it
        ((SECONDS < deadline)) || { echo "airflow: could not unpause $dag" >&2; exit 1; }
        sleep 2
    done
    echo "airflow: unpaused $dag" >&2
done
echo "airflow: ready on http://$HOST:$PORT (user admin, password in ${AIRFLOW_HOME:-~/airflow}/simple_auth_manager_passwords.json.generated); a scheduled lakerag_ingest starts on unpause, or: airflow dags trigger lakerag_ingest"
wait
