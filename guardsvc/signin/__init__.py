"""Signing in: password, second step, login history and new-device alerts."""
