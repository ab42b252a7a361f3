"""HTML door for administrators: allow entries (/admin/izin)."""
from flask import Blueprint, flash, redirect, render_template, request, url_for
from flask_login import current_user

from guardsvc import messages
from guardsvc.storage import clock
from guardsvc.admin.access import require_admin
from guardsvc.blocks import allows
from guardsvc.blocks.allow_schemas import AllowCreateSchema, AllowListQuerySchema
from guardsvc.web.errors import InvalidState
from guardsvc.web.identity import client_ip
from guardsvc.web.listing import load_query
from guardsvc.pages.forms import load_form

bp = Blueprint("admin_allow_pages", __name__, url_prefix="/admin/izin")
bp.before_request(require_admin)

ALLOW_FIELDS = ("ip", "device_id", "reason", "minutes")


def _render(*, values=None, errors=None, status=200):
    filters = load_query(AllowListQuerySchema(), request.args)
    return render_template("admin/allows.html", page=allows.search_allow_entries(**filters), filters=filters,
                           values=values or {}, errors=errors, now=clock.utcnow()), status


@bp.get("")
def allow_list():
    """Allow entries with filters, the form to add one and a remove button on each active one."""
    return _render()


@bp.post("")
def add_allow():
    """Create an allow entry from the form; back to the list (303)."""
    data, errors, values = load_form(AllowCreateSchema(), request.form, ALLOW_FIELDS)
    if errors:
        return _render(values=values, errors=errors, status=422)
    entry = allows.add_allow_entry(network=data.pop("ip"), **data, actor=current_user, origin_ip=client_ip())
    flash(messages.ALLOW_CREATED.format(target=entry.target), "success")
    return redirect(url_for(".allow_list"), code=303)


@bp.post("/<id:entry_id>/hapus")
def remove_allow(entry_id):
    """Remove one allow entry (POST + CSRF); back to the list (303)."""
    try:
        entry = allows.remove_allow_entry(entry_id, actor=current_user, origin_ip=client_ip())
    except InvalidState as conflict:
        flash(conflict.message, "error")
        return redirect(url_for(".allow_list"), code=303)
    flash(messages.ALLOW_REMOVED.format(target=entry.target), "success")
    return redirect(url_for(".allow_list"), code=303)
