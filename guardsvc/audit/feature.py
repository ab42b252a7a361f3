"""The audit log: what it forgets (the actions are named by the features that record them)."""
from guardsvc.audit import retention
from guardsvc.features import Feature

FEATURE = Feature("audit", retention_rules=retention.RULES)
