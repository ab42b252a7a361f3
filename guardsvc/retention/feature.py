"""Retention of personal data: ``flask purge``, and the same rules as a round of the worker."""
from guardsvc.cli.background import Round
from guardsvc.features import Feature
from guardsvc.retention.cli import purge_command, purge_round

FEATURE = Feature("retention", commands=(purge_command,),
                  worker_rounds=(Round("purge", purge_round, "PURGE_INTERVAL_SECONDS"),))
