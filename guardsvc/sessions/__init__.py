"""Server-side sessions: the browser cookie only names a record kept here.
Imports the layers below (storage, web, cli, openapi, ratelimits) and other features' services.
"""
