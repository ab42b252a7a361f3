"""``GET /metrics``: the Prometheus text, for a scraper holding ``GUARDSVC_METRICS_TOKEN`` only.

Without the setting the route does not exist for anyone (404); a missing or
wrong token is a 404 too, so the endpoint never says it is there. Gauges
(outbox backlog, pending tickets, active blocks) are computed at scrape time by
the functions the features register (``Feature.gauges``), so they are right
however many workers run.
"""
import hmac
import time

from flask import Blueprint, Response, current_app, g, request
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.multiprocess import MultiProcessCollector

from guardsvc.features import each
from guardsvc.metrics.counters import REQUEST_SECONDS, THROTTLED
from guardsvc.web.doors import json_door, never_guarded
from guardsvc.web.errors import NotFound

bp = never_guarded(json_door(Blueprint("metrics", __name__)))


def init_metrics(app):
    """Serve ``/metrics`` with the features' scrape-time gauges, and time every request."""
    app.register_blueprint(bp)
    app.before_request(_start_clock)
    app.after_request(_observe)


_series = {}  # (endpoint, method) -> its histogram series: a label lookup costs more than the sample


def _start_clock():
    g.metrics_started = time.perf_counter()


def _observe(response):
    started = g.pop("metrics_started", None)
    endpoint = request.endpoint or "unknown"
    if started is not None:
        key = (endpoint, request.method)
        series = _series.get(key)
        if series is None:
            series = _series[key] = REQUEST_SECONDS.labels(*key)
        series.observe(time.perf_counter() - started)
    if response.status_code == 429 and "Retry-After" in response.headers:
        THROTTLED.labels(endpoint).inc()
    return response


class _ScrapeTimeGauges:
    def __init__(self, gauges):
        self.gauges = gauges

    def collect(self):
        for name, (description, compute) in self.gauges.items():
            family = GaugeMetricFamily(name, description)
            family.add_metric([], compute())
            yield family


@bp.get("/metrics")
def metrics():
    """Prometheus text format: counters summed over every worker, gauges computed now."""
    token = current_app.config["METRICS_TOKEN"]
    given = request.headers.get("Authorization", "")
    if not token or not hmac.compare_digest(given.encode("utf-8"), f"Bearer {token}".encode("utf-8")):
        raise NotFound()
    if current_app.config["METRICS_MULTIPROCESS"]:
        registry = CollectorRegistry()
        MultiProcessCollector(registry)  # every worker's files, added up
    else:
        registry = REGISTRY  # one process: its own values
    body = generate_latest(registry)
    gauges = CollectorRegistry()
    gauges.register(_ScrapeTimeGauges(each("gauges")))
    return Response(body + generate_latest(gauges), content_type=CONTENT_TYPE_LATEST)
