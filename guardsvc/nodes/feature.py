"""The fleet: each node reports itself (its web workers and ``flask worker``), ``flask nodes``, its gauges."""
from guardsvc.features import Feature
from guardsvc.nodes import retention
from guardsvc.nodes.cli import nodes_command
from guardsvc.nodes.heartbeat import WORKER, start_reporting
from guardsvc.nodes.service import count_disagreements, count_live


def _report_from_the_worker(app):
    """``flask worker`` reports its node too, so a node is seen with or without a web server."""
    start_reporting(app, WORKER)


FEATURE = Feature(
    "nodes",
    commands=(nodes_command,),
    retention_rules=retention.RULES,
    worker_starts=(_report_from_the_worker,),
    gauges={
        "guardsvc_nodes": ("Nodes that reported in the last 5 minutes.", count_live),
        "guardsvc_node_disagreements": ("Shared settings a live node holds otherwise than the rest, and names several "
                                        "live nodes share (as `flask nodes` lists them).", count_disagreements),
    },
)
