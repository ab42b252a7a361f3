"""HTML door for the account's signed-in sessions: the list on /akun and its sign-out buttons."""
from flask import Blueprint
from flask_login import current_user

from guardsvc import messages
from guardsvc.accounts.account_page import Section, back_to_section
from guardsvc.accounts.auth import current_session, roles_required
from guardsvc.accounts.roles import PEOPLE
from guardsvc.sessions import service as sessions

bp = Blueprint("session_pages", __name__, url_prefix="/akun/sesi")
SECTION = "sesi"


def sessions_part(user, _client):
    """What the sessions part of /akun shows: each live session, and whether it is this one."""
    here = current_session()
    return {"sessions": [(record, here is not None and record.id == here.id)
                         for record in sessions.list_sessions(user)]}


ACCOUNT_SECTION = Section(SECTION, "accounts/_account_sessions.html", sessions_part, order=15)


@bp.post("/<id:session_id>/akhiri")
@roles_required(*PEOPLE)
def end_one(session_id):
    """Sign one of the account's sessions out; its cookie stops working at once."""
    sessions.end_own_session(current_user, session_id)
    return back_to_section(SECTION, messages.SESSION_ENDED)


@bp.post("/akhiri-lainnya")
@roles_required(*PEOPLE)
def end_others():
    """Sign out every other browser of this account; this one stays signed in."""
    sessions.end_sessions(current_user, keep=current_session())
    return back_to_section(SECTION, messages.OTHER_SESSIONS_ENDED)
