"""Landing page and the helpers every page template uses."""
import logging

from flask import Blueprint, render_template
from flask_login import current_user
from sqlalchemy.exc import SQLAlchemyError

from guardsvc.web.humantime import human_age, human_date, human_number, human_time

log = logging.getLogger(__name__)

bp = Blueprint("pages", __name__)


@bp.get("/")
def landing():
    """Start page: appeal, check a ticket, sign in."""
    return render_template("pages/landing.html")


@bp.app_context_processor
def layout_helpers():
    return {"site_user": site_user}


@bp.app_template_filter("waktu")
def waktu_filter(value):
    return human_time(value)


@bp.app_template_filter("tanggal")
def tanggal_filter(value):
    return human_date(value)


@bp.app_template_filter("umur")
def umur_filter(delta):
    return human_age(delta)


@bp.app_template_filter("angka")
def angka_filter(value):
    return human_number(value)


def site_user():
    """The signed-in user for the header, or None.

    Error pages render this layout too, possibly because the database is down:
    loading the user must then not turn a 503 page into a crash.
    """
    try:
        return current_user if current_user.is_authenticated else None
    except SQLAlchemyError:
        log.warning("could not load the signed-in user for the page header")
        return None
