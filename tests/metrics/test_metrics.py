"""/metrics: only for the scraper's token, counters added up over every worker, gauges computed at a scrape."""
import re

import pytest
import requests

from tests.support.factories import submit_body, submit_ticket
from tests.support.live import LiveServer, all_at_once

TOKEN = "token-pengumpul-metrik"


def value(text, name):
    """The sample ``name`` (with its labels, if any) in Prometheus text; 0 when absent."""
    match = re.search(rf"^{re.escape(name)} (\S+)$", text, re.M)
    return float(match.group(1)) if match else 0.0


def test_without_a_token_setting_or_with_a_wrong_token_there_is_nothing(app, client, monkeypatch):
    assert client.get("/metrics").status_code == 404
    monkeypatch.setitem(app.config, "METRICS_TOKEN", TOKEN)
    assert client.get("/metrics").status_code == 404
    assert client.get("/metrics", headers={"Authorization": "Bearer salah"}).status_code == 404
    assert client.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 200


def test_gauges_are_computed_at_the_scrape(app, client, monkeypatch, make_block):
    monkeypatch.setitem(app.config, "METRICS_TOKEN", TOKEN)
    submit_ticket(client, ip="192.0.2.70", device="hp-1")
    submit_ticket(client, ip="192.0.2.71", device="hp-2")
    make_block(network="192.0.2.0/24")
    text = client.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"}).get_data(as_text=True)
    assert value(text, "guardsvc_pending_tickets") == 2 and value(text, "guardsvc_active_blocks") == 1
    assert value(text, "guardsvc_outbox_backlog") == 2  # the two confirmation e-mails
    assert 'guardsvc_http_request_duration_seconds_count{endpoint="appeals_api.submit",method="POST"}' in text


@pytest.mark.live
def test_counters_add_up_over_every_worker(app, tmp_path):
    server = LiveServer(workers=2, env={"PROMETHEUS_MULTIPROC_DIR": str(tmp_path),
                                        "GUARDSVC_METRICS_TOKEN": TOKEN, "GUARDSVC_PENDING_PER_IP": "100"})
    try:
        answers = all_at_once(12, lambda n: requests.post(  # at once: both workers take some
            server.url + "/api/guard/unblock-tickets/submit", json=submit_body(),
            headers={"X-Device-Id": f"perangkat-metrik-{n}"}, timeout=30).status_code)
        assert answers == [201] * 12
        text = requests.get(server.url + "/metrics", headers={"Authorization": f"Bearer {TOKEN}"}, timeout=30).text
    finally:
        server.stop()
    assert value(text, "guardsvc_tickets_submitted_total") == 12
    assert value(text, 'guardsvc_http_request_duration_seconds_count{endpoint="appeals_api.submit",method="POST"}') == 12
