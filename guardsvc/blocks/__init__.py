"""Blocks and allow entries, the guard on guarded routes, the host check and forward auth.
Imports the layers below (storage, web, cli, openapi, ratelimits) and other features' services.
"""
