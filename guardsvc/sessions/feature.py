"""Signed-in browser sessions: what they forget, ``flask sessions``."""
from guardsvc.features import Feature
from guardsvc.sessions import retention
from guardsvc.sessions.cli import sessions_cli

FEATURE = Feature("sessions", commands=(sessions_cli,), retention_rules=retention.RULES)
