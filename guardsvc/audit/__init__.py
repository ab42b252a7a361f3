"""Audit log of administrator actions."""
