"""What webhooks say about a block (``block.created``, ``block.lifted``): its reference and target, not its reason."""
from guardsvc.blocks.models import target_kind
from guardsvc.storage.clock import isoformat
from guardsvc.web.identity import device_fingerprint
from guardsvc.webhooks.service import queue_event


def block_data(block):
    """The ``data`` of a block event: reference, kind, the network (an IP as ``/32`` or ``/128``) or the
    device's fingerprint (never the id: it may be a browser's device cookie, whoever named it),
    whether a local IP narrows it, origin, times."""
    return {"reference": block.reference, "kind": target_kind(block), "network": block.network,
            "device": device_fingerprint(block.device_id), "narrowed": block.local_ip is not None,
            "origin": block.origin or "guardsvc", "created_at": isoformat(block.created_at),
            "expires_at": isoformat(block.expires_at), "lifted_at": isoformat(block.lifted_at)}


def queue_block_event(event_type, block):
    """Queue ``event_type`` about ``block`` for the webhooks that want it (in the caller's transaction)."""
    return queue_event(event_type, lambda: block_data(block))
