"""Nodes report themselves; the fleet is read back with the shared settings they disagree on.

A node is the processes sharing one instance folder on one host: its gunicorn workers and its
``flask worker``. Each of them runs a reporter (guardsvc.nodes.heartbeat) that asks every interval
how old its node's row is (one read) and writes it only when it is due, so however many processes
a node has, the database takes one small write per node per interval, never one per request. The
web workers' row is due after 0.8 of ``GUARDSVC_NODE_REPORT_SECONDS``, a worker's only after 1.25:
while the node serves, its web server is the one reporting (its version, its start), and a node
with a worker alone still reports.
"""
import hashlib
import json
import socket
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from importlib import metadata

from sqlalchemy import func, literal_column, select, update

from guardsvc.config import instance_secret
from guardsvc.extensions import db
from guardsvc.nodes import fingerprints
from guardsvc.nodes.models import FleetKey, Node
from guardsvc.storage import clock
from guardsvc.storage.inserts import insert_unless_conflict
from guardsvc.storage.revisions import code_revisions

# A node seen this recently serves (contract section 17); one quiet longer is left out of the fleet.
LIVE_WINDOW = timedelta(minutes=5)
# A node quiet this long is deleted by the retention rules (its row says nothing any more).
QUIET_KEPT = timedelta(days=1)
WEB, WORKER = "web", "worker"
DUE_AFTER = {WEB: 0.8, WORKER: 1.25}  # of the report interval
NAME_SETTING = "GUARDSVC_NODE_NAME"
_NODE_ID_FILE = "node_id"


@dataclass(frozen=True)
class ThisNode:
    """What this process says about its node; ``kind``: ``web`` or ``worker``."""

    key: str
    name: str
    version: str
    code_revision: str
    started_at: datetime
    kind: str


def this_node(app, kind, started):
    """This process's node: its key from the host name and the instance folder's own id (made once there)."""
    node_id = instance_secret(app.instance_path, _NODE_ID_FILE)
    key = hashlib.sha256(f"{socket.gethostname()}\0{node_id}".encode("utf-8")).hexdigest()[:32]
    heads, _ = code_revisions(app)
    started_at = datetime.fromtimestamp(started, timezone.utc).replace(tzinfo=None)
    return ThisNode(key, app.config["NODE_NAME"], package_version(), ",".join(sorted(heads)), started_at, kind)


def package_version():
    try:
        return metadata.version("guardsvc")[:40]
    except metadata.PackageNotFoundError:
        return "unknown"


_SCHEMA_REVISION = literal_column("(SELECT max(version_num) FROM alembic_version)")


def report(app, node, now=None):
    """Refresh ``node``'s row when it is due; True when this call wrote it. One read when it is not due."""
    now = now or clock.utcnow()
    due = now - timedelta(seconds=app.config["NODE_REPORT_SECONDS"] * DUE_AFTER[node.kind])
    last_seen = db.session.scalar(select(Node.last_seen_at).where(Node.node_key == node.key))
    if last_seen is not None and last_seen > due:
        return False
    schema, key = db.session.execute(select(_SCHEMA_REVISION, select(FleetKey.key).where(
        FleetKey.purpose == fingerprints.KEY_PURPOSE).scalar_subquery())).one()
    values = {"name": node.name, "version": node.version, "code_revision": node.code_revision,
              "schema_revision": schema, "started_at": node.started_at, "last_seen_at": now,
              "fingerprints": json.dumps(fingerprints.fingerprints(
                  fingerprints.shared_values(app, node.key), key or fingerprints.fleet_key()), sort_keys=True)}
    if last_seen is not None:
        written = db.session.execute(update(Node).where(Node.node_key == node.key, Node.last_seen_at <= due)
                                     .values(values).execution_options(synchronize_session=False))
        return written.rowcount == 1
    return insert_unless_conflict(Node, {"node_key": node.key, **values}) is not None


@dataclass(frozen=True)
class Disagreement:
    """A node that holds another value of a shared setting than the rest, or a name two live nodes share."""

    node: str
    setting: str
    nodes_named: int = 0  # for a shared name: how many live nodes carry it

    @property
    def line(self):
        """As ``flask nodes`` prints it (the operator's words, English)."""
        if self.setting == NAME_SETTING:
            return f"{NAME_SETTING} {self.node} is used by {self.nodes_named} nodes"
        return f"{self.setting} differs on {self.node}"


@dataclass(frozen=True)
class NodeView:
    """A live node as the fleet view shows it; ``fingerprints``: ``{setting: hash or None}``."""

    id: int
    name: str
    version: str
    code_revision: str
    schema_revision: str | None
    started_at: datetime
    last_seen_at: datetime
    fingerprints: dict


@dataclass
class Fleet:
    """The live nodes (oldest start first) and where they disagree."""

    nodes: list = field(default_factory=list)
    disagreements: list = field(default_factory=list)


def live_nodes(now=None):
    """The nodes seen within LIVE_WINDOW, oldest start first."""
    now = now or clock.utcnow()
    rows = db.session.scalars(select(Node).where(Node.last_seen_at >= now - LIVE_WINDOW)
                              .order_by(Node.started_at, Node.name, Node.id)).all()
    return [NodeView(row.id, row.name, row.version, row.code_revision, row.schema_revision, row.started_at,
                     row.last_seen_at, _read_fingerprints(row.fingerprints)) for row in rows]


def _read_fingerprints(text):
    try:
        found = json.loads(text)
    except ValueError:
        return {}
    return {setting: found.get(setting) for setting in fingerprints.SHARED} if isinstance(found, dict) else {}


def fleet(now=None):
    """The fleet as it is now: live nodes and their disagreements."""
    nodes = live_nodes(now)
    return Fleet(nodes, disagreements(nodes))


def disagreements(nodes):
    """Each shared setting a node holds otherwise than the others, and each name several nodes carry.

    The nodes that agree in the largest number set the reference; between groups of one size, the
    group of the node that started first (a node started since, with other settings, is the odd one).
    """
    found = []
    names = {}
    for node in nodes:
        names.setdefault(node.name, []).append(node)
    found += [Disagreement(name, NAME_SETTING, len(group)) for name, group in names.items() if len(group) > 1]
    for setting in fingerprints.SHARED:
        groups = {}
        for node in nodes:  # oldest start first: the first group seen holds the earliest node
            groups.setdefault(node.fingerprints.get(setting), []).append(node)
        if len(groups) < 2:
            continue
        reference = {node.id for node in max(groups.values(), key=len)}  # max keeps the first of equal sizes
        found += [Disagreement(node.name, setting) for node in nodes if node.id not in reference]
    return found


def count_disagreements():
    """For ``/metrics``: how many disagreements the live nodes have now."""
    return len(fleet().disagreements)


def count_live():
    """For ``/metrics``: how many nodes reported within LIVE_WINDOW."""
    return db.session.scalar(select(func.count()).select_from(Node).where(
        Node.last_seen_at >= clock.utcnow() - LIVE_WINDOW))
