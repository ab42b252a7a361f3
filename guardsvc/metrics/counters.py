"""The counters and the latency histogram (prometheus_client), one set per process.

Under gunicorn, ``PROMETHEUS_MULTIPROC_DIR`` (``make run`` sets it) makes every
worker write its values to files there, and a scrape adds them up across
workers. An increment is a few hundred nanoseconds; nothing here touches the
database.
"""
from prometheus_client import Counter, Gauge, Histogram

from guardsvc.config import prepare_metrics_folder

prepare_metrics_folder()  # before the first counter below writes its file there

REQUEST_SECONDS = Histogram("guardsvc_http_request_duration_seconds", "Time to answer a request, by endpoint.",
                            ("endpoint", "method"),
                            buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10))
SIGN_INS = Counter("guardsvc_signins", "Sign-in attempts, by result.", ("result",))
TICKETS_SUBMITTED = Counter("guardsvc_tickets_submitted", "Unblock tickets submitted.")
TICKETS_DECIDED = Counter("guardsvc_tickets_decided", "Unblock tickets decided, by decision.", ("decision",))
# The desk's service levels (contract section 18): from a ticket's submission to an administrator's first
# answer (a decision or a message to the appellant), and to its decision. A minute to a week.
DESK_BUCKETS = (60, 300, 900, 1800, 3600, 7200, 14400, 28800, 43200, 86400, 172800, 259200, 604800)
TICKET_FIRST_ANSWER_SECONDS = Histogram(
    "guardsvc_ticket_first_answer_seconds", "Time from a ticket's submission to an administrator's first answer "
    "(a decision or a message to the appellant).", buckets=DESK_BUCKETS)
TICKET_DECISION_SECONDS = Histogram(
    "guardsvc_ticket_decision_seconds", "Time from a ticket's submission to its decision, by decision.",
    ("decision",), buckets=DESK_BUCKETS)
BLOCKS_CREATED = Counter("guardsvc_blocks_created", "Blocks created (by hand, by CLI, imported).")
BLOCKS_REFUSED = Counter("guardsvc_blocks_refused", "Blocks refused as wider than GUARDSVC_WIDEST_BLOCK or on "
                         "GUARDSVC_NEVER_BLOCK, by source (guardsvc: CLI, API, admin; import; crowdsec).",
                         ("source",))
BLOCKS_LIFTED = Counter("guardsvc_blocks_lifted", "Blocks lifted (by hand, by approval, by their source).")
FORWARD_AUTH = Counter("guardsvc_forward_auth_answers", "Forward-auth answers, by outcome.", ("answer",))
EDGE_PULLS = Counter("guardsvc_edge_list_pulls", "Pulls of the edge list by a proxy's Lua module.")
SELF_RELEASE_CHALLENGES = Counter("guardsvc_self_release_challenges", "Self-release challenges handed out.")
SELF_RELEASES = Counter("guardsvc_self_releases", "Self-release attempts, by outcome (released, or why not).",
                        ("outcome",))
STREAM_PULLS = Counter("guardsvc_decision_stream_pulls", "Pulls of the CrowdSec decision stream.")
THROTTLED = Counter("guardsvc_throttled", "Requests refused by a rate limit or an account throttle (429 with "
                    "Retry-After), by endpoint.", ("endpoint",))
BREACHED_LIST_UNREADABLE = Gauge(
    "guardsvc_breached_list_unreadable", "1 when a serving process cannot read the breached-password list file "
    "(it keeps answering from the last list it read, if any; its log and `passwords breached-status` say more).",
    multiprocess_mode="livemax")
