"""gunicorn reads this file when started here (``gunicorn wsgi:app``): guardsvc's server settings."""
from guardsvc.gunicorn_conf import *  # noqa: F401,F403  (gunicorn takes the names it knows)
