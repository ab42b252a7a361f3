"""Audit log of administrator actions.
Imports the layers below (storage, web, cli, openapi, ratelimits) and other features' services.
"""
