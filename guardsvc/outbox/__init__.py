"""E-mail that is never lost: queued in the database, delivered over SMTP with retries.
Imports the layers below (storage, web, cli, openapi, ratelimits) and other features' services.
"""
