"""WSGI entry point: ``gunicorn wsgi:app``."""
from guardsvc import create_app

app = create_app()
