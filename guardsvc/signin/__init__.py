"""Signing in: password, second step, login history and new-device alerts.
Imports the layers below (storage, web, cli, openapi, ratelimits) and other features' services.
"""
