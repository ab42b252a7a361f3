"""Landing page and the helpers every page template uses."""
import logging

from flask import Blueprint, redirect, render_template, request, url_for
from flask_login import current_user
from sqlalchemy.exc import SQLAlchemyError

from guardsvc import messages
from guardsvc.pages.navigation import safe_next
from guardsvc.stored_texts import readable
from guardsvc.web.doors import never_guarded
from guardsvc.web.errors import BadRequest
from guardsvc.web.humantime import human_age, human_date, human_number, human_time
from guardsvc.web.locale import LANGUAGE_NAMES, current_language, is_language, keep_chosen_language

log = logging.getLogger(__name__)

bp = Blueprint("pages", __name__)


@bp.get("/")
def landing():
    """Start page: appeal, check a ticket, sign in."""
    return render_template("pages/landing.html")


@bp.post("/bahasa")
@never_guarded  # a blocked traveller must be able to read the block page and the appeal form
def choose_language():
    """The language switch on every page: remember the choice, go back to the page it was pressed on."""
    language = request.form.get("lang")
    if not is_language(language):
        raise BadRequest(messages.LANGUAGE_UNKNOWN)
    back = safe_next(request.form.get("back"), url_for("pages.landing"))
    return keep_chosen_language(redirect(back, 303), language)


@bp.app_context_processor
def layout_helpers():
    return {"site_user": site_user}


@bp.record_once
def language_helpers(state):
    """Globals, not a context processor: e-mails (rendered without those) say their language too."""
    state.app.jinja_env.globals.update(page_language=current_language, language_names=LANGUAGE_NAMES)


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


@bp.app_template_filter("stored_text")
def stored_text_filter(value):
    """A text the service stored on people's behalf (a lifted block's reason), in the reader's language."""
    return readable(value)


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
