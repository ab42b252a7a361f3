"""Two-step verification: TOTP codes and single-use recovery codes.
Imports the layers below (storage, web, cli, openapi, ratelimits) and other features' services.
"""
