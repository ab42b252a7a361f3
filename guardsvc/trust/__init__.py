"""Trusted devices: save-my-ip, the owner's list, the host check and "Percayai perangkat ini".
Imports the layers below (storage, web, cli, openapi, ratelimits) and other features' services.
"""
