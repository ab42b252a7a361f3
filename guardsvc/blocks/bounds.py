"""No list can take the world down (contract section 15): the one rule every source of blocks applies.

``GUARDSVC_WIDEST_BLOCK`` and ``GUARDSVC_NEVER_BLOCK`` become one
``networks.BlockBounds``; the CLI, the API and the admin form (through
``service.create_block``), ``bulk_import`` and the CrowdSec source all ask it
here, so a range too wide or a never-blocked network is refused the same way
everywhere.
"""
from flask import current_app

from guardsvc import messages
from guardsvc.blocks.networks import NEVER_BLOCKED, BlockBounds, parse_network
from guardsvc.metrics import counters as metrics
from guardsvc.web.errors import ValidationFailed


def check_bounds(network, source):
    """Refuse (ValidationFailed on ``ip``, counted by ``source``) a block on ``network`` (canonical text)
    that is wider than ``GUARDSVC_WIDEST_BLOCK`` or touches ``GUARDSVC_NEVER_BLOCK``."""
    refused = bounds_refusal(network)
    if refused is not None:
        metrics.BLOCKS_REFUSED.labels(source=source).inc()
        raise ValidationFailed({"ip": [refusal_text(parse_network(network), refused)]})


def bounds_refusal(network):
    """``BlockBounds.refusal`` of ``network`` (canonical text): None when a block may cover it."""
    return block_bounds().refusal(parse_network(network))


_BOUNDS = "guardsvc.block_bounds"  # app.extensions: (settings, BlockBounds)


def block_bounds():
    """The rule of ``GUARDSVC_WIDEST_BLOCK`` and ``GUARDSVC_NEVER_BLOCK`` that every source of blocks applies."""
    settings = (tuple(current_app.config["WIDEST_BLOCK"]), tuple(current_app.config["NEVER_BLOCK"]))
    cached = current_app.extensions.get(_BOUNDS)
    if cached is None or cached[0] != settings:
        cached = current_app.extensions[_BOUNDS] = (settings, BlockBounds(*settings))
    return cached[1]


def refusal_text(network, refused):
    """Why a block may not cover ``network`` (an ``ip_network``), from ``BlockBounds.refusal``'s answer."""
    kind, detail = refused
    if kind == NEVER_BLOCKED:
        return messages.BLOCK_NEVER_BLOCKED.format(network=network.with_prefixlen, never=detail)
    return messages.BLOCK_TOO_WIDE.format(network=network.with_prefixlen, widest=detail, version=network.version)
