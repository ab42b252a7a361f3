"""The API document: built from the routes and the views' own declarations
(``guardsvc/web/operations.py``). Imports web, storage and the base modules, never a feature.
"""
