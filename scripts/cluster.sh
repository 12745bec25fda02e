#!/usr/bin/env bash
# Airflow on the CeleryExecutor on this machine, as the compose cluster runs it (make cluster-test,
# tests/test_cluster.py, benchmarks/cluster.py): a fresh PostgreSQL cluster (the metadata database and Celery's
# result backend) and redis-server (the broker) on free ports of 127.0.0.1, then scripts/airflow.sh with the
# API server, scheduler, DAG processor, triggerer and the Celery workers of CLUSTER_WORKERS (default
# "gpu=default,gpu cpu=default": two workers, one of them also serving the `gpu` queue). CLUSTER_WORKER_HOMES=DIR
# gives each worker its own LAKERAG_HOME, DIR/NAME (machines that share nothing but LAKERAG_STORE's bucket).
#
# CLUSTER_DIR (required) holds redis's folder, the logs and cluster.env (the ports, the database URL and the
# PIDs, written once the servers answer). PostgreSQL refuses to run as root: as root, its cluster lives in a
# folder of its own under /tmp owned by `nobody` and runs as that user (removed on stop). It runs with
# fsync=off: a throwaway database. PG_BIN (default: PostgreSQL 15's bin folder) finds initdb, pg_ctl and createdb.
# SIGTERM or SIGINT stops Airflow (SIGTERM to scripts/airflow.sh, which stops every group it started), then
# redis-server and PostgreSQL, each by its PID.
set -uo pipefail

VENV=${VENV:-.venv}
PYTHON=${PYTHON:-$VENV/bin/python}
DIR=${CLUSTER_DIR:?set CLUSTER_DIR to a folder for the cluster\'s state}
PG_BIN=${PG_BIN:-/usr/lib/postgresql/15/bin}
[[ -x $PG_BIN/initdb ]] || PG_BIN=$(dirname "$(command -v initdb)")
REDIS=${REDIS_SERVER:-$(command -v redis-server)}
[[ -n $REDIS ]] || { echo "cluster: redis-server not found (apt-get install -y redis-server)" >&2; exit 1; }
mkdir -p "$DIR"

free_port() {
    "$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

if [[ $(id -u) == 0 ]]; then  # postgres will not run as root
    PGROOT=$(mktemp -d /tmp/lakerag-pg.XXXXXX) && chown nobody "$PGROOT"
    as_pg() { runuser -u nobody -- "$@"; }
else
    PGROOT=$DIR/postgres && mkdir -p "$PGROOT"
    as_pg() { "$@"; }
fi
PGDATA=$PGROOT/data
PG_PORT=$(free_port)
REDIS_PORT=$(free_port)
AIRFLOW_PID= REDIS_PID= PG_STARTED=

stop() {
    trap - INT TERM EXIT
    if [[ -n $AIRFLOW_PID ]]; then
        kill -TERM "$AIRFLOW_PID" 2>/dev/null
        wait "$AIRFLOW_PID" 2>/dev/null
    fi
    if [[ -n $REDIS_PID ]]; then
        kill -TERM "$REDIS_PID" 2>/dev/null
        wait "$REDIS_PID" 2>/dev/null
    fi
    [[ -n $PG_STARTED ]] && as_pg "$PG_BIN/pg_ctl" -D "$PGDATA" -m fast -w stop >/dev/null
    [[ $PGROOT == /tmp/lakerag-pg.* ]] && rm -rf "$PGROOT"
    echo "cluster: stopped" >&2
    exit "${1:-0}"
}
trap 'stop 130' INT
trap 'stop 143' TERM
trap 'stop $?' EXIT

as_pg "$PG_BIN/initdb" -D "$PGDATA" -U airflow --auth=trust -E UTF8 >"$DIR/initdb.log" 2>&1 \
    || { cat "$DIR/initdb.log" >&2; exit 1; }
as_pg "$PG_BIN/pg_ctl" -D "$PGDATA" -l "$PGROOT/postgres.log" -w -t 120 start -o \
    "-c listen_addresses=127.0.0.1 -p $PG_PORT -k $PGROOT -c fsync=off -c max_connections=300" >/dev/null \
    || { cat "$PGROOT/postgres.log" >&2; exit 1; }
PG_STARTED=1
PG_PID=$(head -1 "$PGDATA/postmaster.pid")
"$PG_BIN/createdb" -h 127.0.0.1 -p "$PG_PORT" -U airflow airflow || exit 1

"$REDIS" --bind 127.0.0.1 --port "$REDIS_PORT" --save "" --appendonly no --dir "$DIR" \
    --logfile "$DIR/redis.log" &
REDIS_PID=$!
until "$PYTHON" -c "import redis, sys; redis.Redis(port=int(sys.argv[1])).ping()" "$REDIS_PORT" 2>/dev/null; do
    kill -0 "$REDIS_PID" 2>/dev/null || { cat "$DIR/redis.log" >&2; exit 1; }
    sleep 0.5
done

DB_URL=postgresql+psycopg2://airflow@127.0.0.1:$PG_PORT/airflow
export AIRFLOW__CORE__EXECUTOR=CeleryExecutor
export AIRFLOW__DATABASE__SQL_ALCHEMY_CONN=$DB_URL
export AIRFLOW__CELERY__BROKER_URL=redis://127.0.0.1:$REDIS_PORT/0
export AIRFLOW__CELERY__RESULT_BACKEND=db+postgresql+psycopg2://airflow@127.0.0.1:$PG_PORT/airflow
export AIRFLOW__CORE__HOSTNAME_CALLABLE=lakerag.orchestration.worker_hostname
# every process signs and checks the execution API's tokens with the same secret
export AIRFLOW__API_AUTH__JWT_SECRET=${AIRFLOW__API_AUTH__JWT_SECRET:-$("$PYTHON" -c "import secrets; print(secrets.token_hex(32))")}
export AIRFLOW_CELERY_WORKERS=${CLUSTER_WORKERS:-gpu=default,gpu cpu=default}
export AIRFLOW_CELERY_WORKER_HOMES=${CLUSTER_WORKER_HOMES:-}

bash "$(dirname "$0")/airflow.sh" &
AIRFLOW_PID=$!
cat >"$DIR/cluster.env.tmp" <<EOF
CLUSTER_DB_URL=$DB_URL
CLUSTER_PG_PORT=$PG_PORT
CLUSTER_PG_PID=$PG_PID
CLUSTER_REDIS_PORT=$REDIS_PORT
CLUSTER_REDIS_PID=$REDIS_PID
CLUSTER_AIRFLOW_PID=$AIRFLOW_PID
CLUSTER_WORKERS=$AIRFLOW_CELERY_WORKERS
EOF
mv "$DIR/cluster.env.tmp" "$DIR/cluster.env"
echo "cluster: postgres on 127.0.0.1:$PG_PORT (pid $PG_PID), redis on 127.0.0.1:$REDIS_PORT (pid $REDIS_PID)" >&2
wait "$AIRFLOW_PID"
AIRFLOW_PID=
stop 1
