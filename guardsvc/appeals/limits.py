"""Rate limits of the appeal operations: one bucket per operation, shared by the API and the pages.

A client that submits through the JSON door and the /banding form, or looks
tickets up through both, spends one quota, not one per door.
"""
from flask import request

from guardsvc.ratelimits.limits import Limit


def _names_no_ticket():
    # The status page without ``?tiket=`` is the empty form: nothing is looked up.
    return not ((request.view_args or {}).get("ticket_number") or request.args.get("tiket", "").strip())


submit_limit = Limit("RATELIMIT_SUBMIT", scope="appeal-submit")
check_limit = Limit("RATELIMIT_CHECK", scope="ticket-check", exempt_when=_names_no_ticket)
reply_limit = Limit("RATELIMIT_REPLY", scope="ticket-reply")
