"""Where an address is, offline: a MaxMind-format database the operator supplies, and place names people read.
Imports only the layers below (web, storage); signing in and trusted devices use it.
"""
