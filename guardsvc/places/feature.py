"""Where sign-ins come from (GeoIP): said at start when there are no locations; place names in templates."""
from guardsvc.features import Feature
from guardsvc.places.geoip import check_database
from guardsvc.places.names import init_place_names


def init_places(app):
    check_database(app)
    init_place_names(app)


FEATURE = Feature("places", init_app=init_places)
