"""The HTML door's shared parts: landing page, layout helpers, form handling.
Imports the layers below (storage, web, cli, openapi, ratelimits) and other features' services.
"""
