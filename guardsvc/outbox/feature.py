"""The outbox: e-mail queued in the request's transaction and delivered by the worker; ``flask mail``."""
from guardsvc.cli.background import Round
from guardsvc.features import Feature
from guardsvc.outbox import retention
from guardsvc.outbox.cli import deliver_round, mail_cli
from guardsvc.outbox.service import backlog, init_mail_templates

FEATURE = Feature(
    "outbox",
    init_app=init_mail_templates,
    commands=(mail_cli,),
    retention_rules=retention.RULES,
    worker_rounds=(Round("mail delivery", deliver_round, "MAIL_POLL_SECONDS"),),
    gauges={
        "guardsvc_outbox_backlog": ("E-mails waiting to be delivered.", lambda: backlog()[0]),
        "guardsvc_outbox_oldest_age_seconds": ("Age of the oldest e-mail waiting.", lambda: backlog()[1]),
    },
)
