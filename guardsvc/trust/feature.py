"""Trusted IPs and devices: the JSON door, their section of /akun."""
from guardsvc.features import Feature
from guardsvc.trust import api, views

FEATURE = Feature("trust", blueprints=(api.bp, views.bp), account_sections=(views.ACCOUNT_SECTION,))
