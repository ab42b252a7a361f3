# guardsvc: gunicorn serving wsgi:app as an unprivileged user. Build: docker build -t guardsvc .
# Settings come from GUARDSVC_* variables (secrets from files: GUARDSVC_<NAME>_FILE); see docs/production.md.
# The server's own settings are gunicorn.conf.py's (guardsvc/gunicorn_conf.py), as everywhere else.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 \
    PROMETHEUS_MULTIPROC_DIR=/tmp/guardsvc-metrics \
    GUARDSVC_INSTANCE_PATH=/app/instance \
    GUARDSVC_BIND=0.0.0.0:8000
WORKDIR /app
COPY setup.py setup.cfg pyproject.toml MANIFEST.in README.md babel.cfg wsgi.py gunicorn.conf.py ./
COPY guardsvc ./guardsvc
COPY templates ./templates
COPY static ./static
COPY migrations ./migrations
# A regular (not editable) install: the build copies templates, static files and migrations into
# the package and compiles the catalogues, as for any wheel.
RUN pip install . \
    && useradd --system --uid 10001 --home-dir /app --shell /usr/sbin/nologin guardsvc \
    && mkdir -p /app/instance && chown guardsvc /app/instance
USER guardsvc
EXPOSE 8000
HEALTHCHECK --interval=10s --timeout=2s --retries=3 \
    CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=1)"
CMD ["gunicorn", "wsgi:app"]
