"""WSGI entry point: ``gunicorn wsgi:app`` (its server settings: guardsvc/gunicorn_conf.py)."""
from guardsvc import create_app

app = create_app()
