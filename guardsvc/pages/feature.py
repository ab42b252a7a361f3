"""The public pages and what every page's layout reads (language, helpers, filters)."""
from guardsvc.features import Feature
from guardsvc.pages import views

FEATURE = Feature("pages", blueprints=(views.bp,))
