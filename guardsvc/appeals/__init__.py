"""Appeals: unblock tickets, the cooldown and ceiling, decisions, the conversation and its e-mails.
Imports the layers below (storage, web, cli, openapi, ratelimits) and other features' services.
"""
