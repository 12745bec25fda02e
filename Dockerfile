# The lakerag image: the project, its locked dependencies, OCR, and what the CeleryExecutor needs beside them
# (requirements-cluster.txt: the Celery provider, the Redis client, PostgreSQL's drivers). One image serves every
# Airflow component, the Celery workers and the API (docker-compose.yml).
FROM python:3.11-slim
RUN apt-get update && apt-get install -y --no-install-recommends tesseract-ocr tesseract-ocr-por make \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY . /app
RUN bash scripts/setup.sh \
    && .venv/bin/uv pip install --python .venv/bin/python -r requirements-cluster.txt -c requirements.lock
ENV PATH=/app/.venv/bin:$PATH \
    HF_HUB_OFFLINE=1 \
    TRANSFORMERS_OFFLINE=1
