# guardsvc: gunicorn serving wsgi:app as an unprivileged user. Build: docker build -t guardsvc .
# Settings come from GUARDSVC_* variables (secrets from files: GUARDSVC_<NAME>_FILE); see docs/production.md.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 \
    PROMETHEUS_MULTIPROC_DIR=/tmp/guardsvc-metrics
WORKDIR /app
COPY setup.cfg pyproject.toml README.md wsgi.py ./
COPY guardsvc ./guardsvc
COPY templates ./templates
COPY static ./static
COPY migrations ./migrations
RUN pip install -e . \
    && pybabel compile -d guardsvc/translations \
    && useradd --system --uid 10001 --home-dir /app --shell /usr/sbin/nologin guardsvc \
    && mkdir -p /app/instance && chown guardsvc /app/instance
USER guardsvc
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=2s --retries=3 \
    CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=1)"
# Two gthread workers; rate limits must then be counted in Redis (GUARDSVC_RATELIMIT_STORAGE_URI).
CMD ["sh", "-c", "rm -rf $PROMETHEUS_MULTIPROC_DIR && mkdir -p $PROMETHEUS_MULTIPROC_DIR && exec gunicorn --bind 0.0.0.0:8000 --workers 2 --worker-class gthread --threads 4 --access-logfile - --logger-class guardsvc.web.access_log.RedactingLogger wsgi:app"]
