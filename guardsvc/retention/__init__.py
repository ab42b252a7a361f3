"""Retention of personal data: the purge rules over every feature's tables and the purge and
worker commands. A top layer: imports features and everything below them; nothing imports it but the factory.
"""
