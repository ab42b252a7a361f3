"""The API document: the vocabulary features use to describe their operations, and the builder
that reads the routes and those descriptions. Imports web, storage and the base modules, never a feature.
"""
