"""Accounts: users, passwords, roles, tokens, resets and the /akun page assembled from feature sections.
Imports the layers below (storage, web, cli, openapi, ratelimits) and other features' services.
"""
