"""The block page: what a proxy shows a blocked client (``/terblokir?ref=BLK-...``)."""
from flask import Blueprint, current_app, render_template, request

from guardsvc.storage import clock
from guardsvc.web.addresses import client_ip
from guardsvc.blocks.service import find_block
from guardsvc.web.doors import never_guarded
from guardsvc.web.original_request import original_page

# The block page is what a blocked client is shown: never guarded.
bp = never_guarded(Blueprint("block_pages", __name__))


@bp.get("/terblokir")
def blocked_page():
    """Block page for the proxy's ``error_page 403``; an unknown ref still gets a sensible page."""
    block = find_block(request.args.get("ref"))
    return render_template("blocks/blocked.html", block=block)


@bp.app_template_global()
def block_facts(block):
    """What the block page tells the visitor: who they appear to be, when, which block, until when."""
    now = clock.utcnow()
    config = current_app.config
    return {
        "ip_address": client_ip(),
        "now": now,
        "reference": block.reference if block is not None else None,
        "active": block is not None and block.is_active_at(now),
        "expires_at": block.expires_at if block is not None else None,
        "site_name": config.get("SITE_NAME"),
        # The page the visitor wanted, carried to the appeal form: "back to it" once approved.
        "return_path": original_page()[1],
        "contact": config.get("CONTACT"),
    }
