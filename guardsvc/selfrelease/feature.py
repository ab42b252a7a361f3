"""Self-release: the challenge and release doors and page, the follow-up round of the worker."""
from guardsvc import messages
from guardsvc.cli.background import Round
from guardsvc.features import Feature
from guardsvc.selfrelease import api, followup, retention, views

FEATURE = Feature(
    "selfrelease",
    blueprints=(api.bp, views.bp),
    retention_rules=retention.RULES,
    worker_rounds=(Round("self-release follow-up", followup.mark_blocked_again, followup.INTERVAL_SECONDS),),
    audit_actions={"block.self_released": messages.AUDIT_BLOCK_SELF_RELEASED},
)
