"""The fleet is visible: each node reports itself (one row, one write per interval), with keyed fingerprints
of the settings every node must share; ``flask nodes``, the API, the desk and /metrics name where they differ.

Reports are made in this process, as a node's reporter makes them (guardsvc.nodes.service.report). The
clock is moved two days ahead: the suite's own live servers report to this database too, and their rows
are then long quiet, out of the fleet these tests read. tests/nodes/test_nodes_live.py has real nodes.
"""
import json
import re
from datetime import timedelta

import pytest
from jsonschema import Draft4Validator

from guardsvc.config import NODE_NAME_MAX, SettingsError, load_settings
from guardsvc.extensions import db
from guardsvc.nodes import fingerprints, service
from guardsvc.nodes.models import FleetKey, Node
from guardsvc.storage import clock
from guardsvc.storage.revisions import code_revisions
from tests.support.migration_files import head_revision
from tests.support.openapi_checks import operations
from tests.support.pages_support import sign_in_session, text_of
from tests.metrics.test_metrics import TOKEN, value
from tests.project.test_settings import clean_env  # noqa: F401  (fixture)
from tests.storage.test_statement_budget import statements  # noqa: F401  (fixture)

HEAD = head_revision()
INTERVAL = 15.0


@pytest.fixture()
def moment(monkeypatch, app):
    """``moment[0]`` is now for these tests: two days ahead of the suite's live servers' reports."""
    now = [clock.utcnow() + timedelta(days=2)]
    monkeypatch.setattr(clock, "utcnow", lambda: now[0])
    monkeypatch.setitem(app.config, "NODE_REPORT_SECONDS", INTERVAL)
    return now


def a_node(name="node-a", key=None, kind=service.WEB, started_ago=60, now=None):
    started = (now or clock.utcnow()) - timedelta(seconds=started_ago)
    return service.ThisNode(key or f"key-{name}", name, "0.1.0", HEAD, started, kind)


def report_as(app, node, **settings):
    """``node`` reports, with ``settings`` (app.config keys) in force for that report; True when written."""
    with app.app_context():
        saved = {name: app.config[name] for name in settings}
        app.config.update(settings)
        try:
            written = service.report(app, node)
            db.session.commit()
        finally:
            app.config.update(saved)
            db.session.remove()
    return written


def rows(app, own=False):
    """The rows of the made-up nodes these tests report, or (``own``) of this process's node, told by key: a live
    server of another test may report its node to this database meanwhile, under the same name and, when it shares
    the instance folder, the same key."""
    wanted = Node.node_key == service.this_node(app, service.WEB, 0).key if own else Node.node_key.startswith("key-")
    with app.app_context():
        found = db.session.query(Node).filter(wanted).order_by(Node.id).all()
        db.session.remove()
        return found


def nodes_command(runner, *args):
    return runner.invoke(args=["nodes", *args])


def test_a_node_is_one_row_written_once_an_interval_however_many_processes_report(app, moment,
                                                                                  statements):  # noqa: F811
    web = a_node(now=moment[0])
    assert report_as(app, web)
    assert not report_as(app, web)  # another worker of the node, a moment later: not due
    with statements() as seen:
        assert not report_as(app, web)
    assert [statement.split()[0] for statement in seen] == ["SELECT"]  # one read, no write
    moment[0] += timedelta(seconds=INTERVAL * 0.5)
    assert not report_as(app, web)
    moment[0] += timedelta(seconds=INTERVAL * 0.5)
    assert report_as(app, web) and not report_as(app, web)
    [row] = rows(app)
    assert row.last_seen_at == moment[0] and row.name == "node-a" and row.schema_revision == row.code_revision


def test_a_worker_reports_only_while_no_web_worker_of_its_node_does(app, moment):
    web = a_node(now=moment[0], started_ago=600)
    worker = a_node(kind=service.WORKER, now=moment[0], started_ago=30)
    assert report_as(app, web)
    moment[0] += timedelta(seconds=INTERVAL)
    assert not report_as(app, worker)  # the web server's report is an interval old: the row stays its own
    assert report_as(app, web)
    moment[0] += timedelta(seconds=INTERVAL * 1.3)  # the web server is gone
    assert report_as(app, worker)
    [row] = rows(app)
    assert row.started_at == worker.started_at


def test_this_node_is_the_host_and_the_instance_folder(app, tmp_path, monkeypatch):
    monkeypatch.setattr(app, "instance_path", str(tmp_path / "a"))
    first = service.this_node(app, service.WEB, 1_800_000_000)
    assert service.this_node(app, service.WORKER, 1_800_000_000).key == first.key  # every process of the folder
    assert (tmp_path / "a" / "node_id").stat().st_mode & 0o777 == 0o600
    monkeypatch.setattr(app, "instance_path", str(tmp_path / "b"))
    assert service.this_node(app, service.WEB, 1_800_000_000).key != first.key
    assert first.code_revision == ",".join(code_revisions(app)[0]) and first.name == app.config["NODE_NAME"]
    assert clock.isoformat(first.started_at) == "2027-01-15T08:00:00.000000Z"


def test_fingerprints_are_keyed_hashes_never_values(app, moment):
    report_as(app, a_node("node-a", now=moment[0]))
    report_as(app, a_node("node-b", now=moment[0]), FORWARD_AUTH_SECRET="rahasia-lain")
    first, second = rows(app)
    stored = first.fingerprints + second.fingerprints
    for secret in (app.config["SECRET_KEY"], app.config["FORWARD_AUTH_SECRET"], "rahasia-lain", app.config["BASE_URL"]):
        assert secret not in stored
    a, b = json.loads(first.fingerprints), json.loads(second.fingerprints)
    assert set(a) == set(fingerprints.SHARED)
    assert [setting for setting in a if a[setting] != b[setting]] == ["GUARDSVC_FORWARD_AUTH_SECRET"]
    assert all(len(a[name]) == 32 for name in ("GUARDSVC_SECRET_KEY", "GUARDSVC_BASE_URL"))
    assert a["GUARDSVC_GEOIP_DATABASE"] is None and a["GUARDSVC_RATELIMIT_STORAGE_URI"] is None  # not in use here
    with app.app_context():
        [key] = db.session.query(FleetKey).all()  # made once, by the first report
        values = fingerprints.shared_values(app, "key-node-a")
        assert fingerprints.fingerprints(values, key.key) == a
        assert fingerprints.fingerprints(values, "another fleet")["GUARDSVC_SECRET_KEY"] != a["GUARDSVC_SECRET_KEY"]


def test_a_limit_store_of_the_node_alone_never_agrees_with_another_node(app, moment):
    local = {"RATELIMIT_ENABLED": True, "RATELIMIT_STORAGE_URI": "guardsvc-memory://?max_keys=50000"}
    redis = {"RATELIMIT_ENABLED": True, "RATELIMIT_STORAGE_URI": "redis://cache.internal:6379/0",
             "RATELIMIT_KEY_PREFIX": "guardsvc"}
    setting = "GUARDSVC_RATELIMIT_STORAGE_URI"
    with app.app_context():
        values = {name: fingerprints.shared_values(_configured(app, settings), key)[setting]
                  for name, settings, key in (("local-a", local, "a"), ("local-b", local, "b"),
                                              ("redis-a", redis, "a"), ("redis-b", redis, "b"),
                                              ("other-prefix", {**redis, "RATELIMIT_KEY_PREFIX": "x"}, "b"))}
    assert values["local-a"] != values["local-b"]  # each counts for itself
    assert values["redis-a"] == values["redis-b"] != values["other-prefix"]


def _configured(app, settings):
    class Configured:
        config = {**app.config, **settings}
        instance_path = app.instance_path
    return Configured


def test_files_are_compared_by_their_content_wherever_each_node_keeps_them(app, tmp_path):
    first, second, third = tmp_path / "a.bloom", tmp_path / "b.bloom", tmp_path / "c.bloom"
    first.write_bytes(b"daftar kata sandi bocor" * 10)
    second.write_bytes(b"daftar kata sandi bocor" * 10)
    third.write_bytes(b"daftar yang lain sama sekali" * 10)

    def of(path, geoip=None):
        settings = {"BREACHED_PASSWORDS_FILE": str(path), "GEOIP_DATABASE": geoip}
        return fingerprints.shared_values(_configured(app, settings), "k")

    assert of(first)["GUARDSVC_BREACHED_PASSWORDS_FILE"] == of(second)["GUARDSVC_BREACHED_PASSWORDS_FILE"]
    assert of(first)["GUARDSVC_BREACHED_PASSWORDS_FILE"] != of(third)["GUARDSVC_BREACHED_PASSWORDS_FILE"]
    assert of(tmp_path / "none.bloom")["GUARDSVC_BREACHED_PASSWORDS_FILE"] is None
    assert of(first, geoip=str(third))["GUARDSVC_GEOIP_DATABASE"] == of(third)["GUARDSVC_BREACHED_PASSWORDS_FILE"]
    second.write_bytes(b"diganti" * 10)  # a new load replaces the file: read again
    assert of(first)["GUARDSVC_BREACHED_PASSWORDS_FILE"] != of(second)["GUARDSVC_BREACHED_PASSWORDS_FILE"]
    # A large file is read in blocks spread over it, its first and last included.
    big, other = tmp_path / "big", tmp_path / "other"
    block = bytes(range(256)) * 4096
    big.write_bytes(block * 3)
    other.write_bytes(block * 3)
    assert fingerprints.sampled_digest(big, 3 * len(block)) == fingerprints.sampled_digest(other, 3 * len(block))
    with other.open("r+b") as file:
        file.seek(3 * len(block) - 10)
        file.write(b"x" * 10)
    assert fingerprints.sampled_digest(big, 3 * len(block)) != fingerprints.sampled_digest(other, 3 * len(block))


def test_flask_nodes_names_the_node_whose_shared_setting_differs(app, moment, runner):
    report_as(app, a_node("node-a", now=moment[0], started_ago=600))
    report_as(app, a_node("node-b", now=moment[0], started_ago=60), FORWARD_AUTH_SECRET="rahasia-lain")
    done = nodes_command(runner)
    lines = done.output.splitlines()
    assert done.exit_code == 1
    assert [line.split("\t")[0] for line in lines[:2]] == ["node-a", "node-b"]  # the earliest start first
    assert "version 0.1.0" in lines[0] and f"schema {HEAD}" in lines[0] and "seen 0 s ago" in lines[0]
    assert lines[2:] == ["GUARDSVC_FORWARD_AUTH_SECRET differs on node-b"]
    # A third node that agrees with node-b: node-a is now the odd one.
    report_as(app, a_node("node-c", now=moment[0], started_ago=10), FORWARD_AUTH_SECRET="rahasia-lain")
    assert nodes_command(runner).output.splitlines()[3:] == ["GUARDSVC_FORWARD_AUTH_SECRET differs on node-a"]


def test_two_live_nodes_with_one_name_are_two_nodes_and_a_disagreement(app, moment, runner):
    report_as(app, a_node("node-a", key="key-first", now=moment[0], started_ago=600))
    report_as(app, a_node("node-a", key="key-second", now=moment[0], started_ago=60))
    done = nodes_command(runner)
    assert done.exit_code == 1
    lines = done.output.splitlines()
    assert [line.split("\t")[0] for line in lines[:2]] == ["node-a", "node-a"]
    assert lines[2:] == ["GUARDSVC_NODE_NAME node-a is used by 2 nodes"]


def test_agreeing_nodes_exit_zero_and_a_quiet_node_ages_out_then_goes(app, moment, runner):
    assert nodes_command(runner).output == "No node reported in the last 5 minutes.\n"
    report_as(app, a_node("node-b", now=moment[0]), SECRET_KEY="kunci-lain")
    moment[0] += timedelta(minutes=5, seconds=1)
    report_as(app, a_node("node-a", now=moment[0]))
    report_as(app, a_node("node-c", now=moment[0]))
    done = nodes_command(runner)
    assert done.exit_code == 0, done.output
    assert [line.split("\t")[0] for line in done.output.splitlines()] == ["node-a", "node-c"]
    assert json.loads(nodes_command(runner, "--json").output)["disagreements"] == []
    moment[0] += timedelta(days=1, seconds=1)
    purged = runner.invoke(args=["purge"]).output
    # A day quiet: every row goes (these three, and a row a live server of another test may have left).
    assert int(re.search(r"quiet nodes deleted: (\d+)", purged).group(1)) >= 3
    assert rows(app) == []


@pytest.fixture()
def two_nodes_that_differ(app, moment):
    report_as(app, a_node("node-a", now=moment[0], started_ago=600))
    report_as(app, a_node("node-b", now=moment[0], started_ago=60), FORWARD_AUTH_SECRET="rahasia-lain")


@pytest.mark.usefixtures("two_nodes_that_differ")
def test_the_api_answers_the_fleet_to_administrators_only(app, client, bearer):
    _, admin = bearer("admin")
    _, user = bearer("user")
    assert client.get("/api/admin/nodes").status_code == 401
    assert client.get("/api/admin/nodes", headers=user).status_code == 403
    answer = client.get("/api/admin/nodes", headers=admin)
    body = answer.get_json()
    assert answer.status_code == 200 and body["success"] is True
    assert [node["name"] for node in body["data"]["nodes"]] == ["node-a", "node-b"]
    assert body["data"]["disagreements"] == [{"node": "node-b", "setting": "GUARDSVC_FORWARD_AUTH_SECRET",
                                              "nodes_named": 0,
                                              "line": "GUARDSVC_FORWARD_AUTH_SECRET differs on node-b"}]
    assert body["data"]["live_window_seconds"] == 300
    assert body["data"]["nodes"][0]["last_seen_at"].endswith("Z")
    document = client.get("/api/openapi.json").get_json()
    [operation] = [op for path, method, op in operations(document) if path == "/api/admin/nodes"]
    schema = {**operation["responses"]["200"]["content"]["application/json"]["schema"],
              "components": document["components"]}
    assert operation["operationId"] == "listNodes"
    assert not list(Draft4Validator(with_null_types(schema)).iter_errors(body))


def with_null_types(schema):
    """OpenAPI 3.0's ``nullable: true`` as JSON Schema says it (``type: [t, "null"]``), for jsonschema's validator."""
    if isinstance(schema, list):
        return [with_null_types(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    converted = {key: with_null_types(item) for key, item in schema.items() if key != "nullable"}
    if schema.get("nullable") and isinstance(schema.get("type"), str):
        converted["type"] = [schema["type"], "null"]
    return converted


@pytest.mark.usefixtures("two_nodes_that_differ")
def test_the_desk_shows_the_nodes_and_what_differs(app, client, make_user):
    sign_in_session(client, make_user(role="admin"))
    page = text_of(client.get("/admin/node"))
    assert "node-a" in page and "node-b" in page
    assert "GUARDSVC_FORWARD_AUTH_SECRET berbeda di node node-b." in page
    assert 'id="node-berbeda"' in text_of(client.get("/admin"))  # the queue says so, with a link


@pytest.mark.usefixtures("two_nodes_that_differ")
def test_metrics_count_the_nodes_and_their_disagreements(app, client, monkeypatch):
    monkeypatch.setitem(app.config, "METRICS_TOKEN", TOKEN)
    text = client.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"}).get_data(as_text=True)
    assert value(text, "guardsvc_nodes") == 2 and value(text, "guardsvc_node_disagreements") == 1


@pytest.mark.parametrize("given, says", [
    ("", "is empty"), ("   ", "is empty"), ("n" * (NODE_NAME_MAX + 1), f"more than {NODE_NAME_MAX}"),
    ("node\x07a", "control characters"),
])
def test_a_node_name_that_cannot_name_a_node_is_a_settings_error(clean_env, tmp_path, given, says):  # noqa: F811
    clean_env.setenv("GUARDSVC_NODE_NAME", given)
    with pytest.raises(SettingsError) as caught:
        load_settings(str(tmp_path))
    assert any(problem.startswith("GUARDSVC_NODE_NAME") and says in problem for problem in caught.value.problems)


def test_the_default_node_name_is_the_host_and_the_instance_folder(clean_env, tmp_path):  # noqa: F811
    import socket

    assert load_settings(str(tmp_path))["NODE_NAME"] == f"{socket.gethostname()}:{tmp_path.resolve()}"
    deep = tmp_path / ("folder-" * 20)
    deep.mkdir()
    name = load_settings(str(deep))["NODE_NAME"]
    assert len(name) == NODE_NAME_MAX and name.startswith("\u2026") and name.endswith(str(deep)[-20:])
    clean_env.setenv("GUARDSVC_NODE_NAME", " node-a ")
    assert load_settings(str(tmp_path))["NODE_NAME"] == "node-a"
    clean_env.setenv("GUARDSVC_NODE_REPORT_SECONDS", "31")
    with pytest.raises(SettingsError, match="above the largest allowed value"):
        load_settings(str(tmp_path))


def test_the_reporter_reports_its_node_and_survives_a_database_that_fails(app, moment, monkeypatch, caplog):
    from sqlalchemy.exc import OperationalError

    from guardsvc.nodes.heartbeat import Reporter

    caplog.set_level("INFO", logger="guardsvc.nodes")
    reporter = Reporter(app, service.WEB, started=1_800_000_000)
    assert reporter.report_once()
    [row] = rows(app, own=True)
    assert row.name == app.config["NODE_NAME"] and clock.isoformat(row.started_at) == "2027-01-15T08:00:00.000000Z"

    def unreachable(*_args):
        raise OperationalError("SELECT 1", {}, Exception("the database did not answer in time"))

    with monkeypatch.context() as broken:
        broken.setattr(service, "report", unreachable)
        assert not reporter.report_once() and not reporter.report_once()
    failures = [r.getMessage() for r in caplog.records if r.name == "guardsvc.nodes"]
    assert len(failures) == 1 and "OperationalError" in failures[0] and "Traceback" not in caplog.text  # once
    moment[0] += timedelta(seconds=INTERVAL)
    assert reporter.report_once()
    assert [r.getMessage() for r in caplog.records if r.name == "guardsvc.nodes"][-1].endswith("answers again")
