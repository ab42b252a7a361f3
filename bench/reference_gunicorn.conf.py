"""The raw-SQL reference's gunicorn settings: none beyond its command line.

Given with ``-c``, so that gunicorn, started in the project folder, does not read guardsvc's
``gunicorn.conf.py`` for the reference (its access log through the redacting logger, its worker
hooks): the reference logs nothing and runs no hook, as bench/reference_app.py says.
"""
