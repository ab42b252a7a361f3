"""Signed webhooks (and fail2ban unbans): delivered by a round of the worker; ``flask webhooks``."""
from guardsvc.cli.background import Round
from guardsvc.features import Feature
from guardsvc.webhooks import retention
from guardsvc.webhooks.cli import webhooks_cli, webhooks_round

FEATURE = Feature(
    "webhooks",
    commands=(webhooks_cli,),
    retention_rules=retention.RULES,
    worker_rounds=(Round("webhooks", webhooks_round, "WEBHOOK_POLL_SECONDS"),),
)
