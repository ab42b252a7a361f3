"""What the nodes feature forgets, and when (``flask purge``, guardsvc.retention)."""
from guardsvc.nodes.models import Node
from guardsvc.nodes.service import QUIET_KEPT
from guardsvc.retention.service import Rule, delete_rows


def _quiet_nodes_due(now, config):
    """Nodes that stopped reporting long ago (a machine replaced, a container gone): their rows say nothing now."""
    return (Node.last_seen_at < now - QUIET_KEPT,)


RULES = (Rule("quiet nodes deleted", Node, _quiet_nodes_due, delete_rows(Node)),)
