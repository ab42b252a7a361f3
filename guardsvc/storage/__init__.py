"""Storage plumbing: the database engine and sessions, the transaction boundary, inserts that
expect races, sealed columns, codes and the clock. Imports only config, extensions and messages.
"""
