"""How fast someone would have had to travel between two sign-ins (great-circle distance, haversine)."""
import math

EARTH_RADIUS_KM = 6371.0088  # the mean radius (IUGG)


def distance_km(a, b):
    """Great-circle distance between two located places; None when either has no coordinates."""
    if a is None or b is None or None in (a.latitude, a.longitude, b.latitude, b.longitude):
        return None
    lat1, lat2 = math.radians(a.latitude), math.radians(b.latitude)
    dlat, dlon = lat2 - lat1, math.radians(b.longitude - a.longitude)
    h = math.sin(dlat / 2) ** 2 + math.cos(lat1) * math.cos(lat2) * math.sin(dlon / 2) ** 2
    return 2 * EARTH_RADIUS_KM * math.asin(min(1.0, math.sqrt(h)))


def implied_speed_kmh(a, a_time, b, b_time):
    """The speed (km/h) that getting from place ``a`` at ``a_time`` to ``b`` at ``b_time`` implies.

    Each database location is only a circle (``accuracy_km``): the distance
    that certainly had to be covered is what lies between the two circles,
    so two addresses a database puts in neighbouring towns never look like a
    flight. None when a place has no coordinates (no rule can judge it).
    """
    distance = distance_km(a, b)
    if distance is None:
        return None
    distance = max(0.0, distance - (a.accuracy_km or 0) - (b.accuracy_km or 0))
    if distance == 0:
        return 0.0
    hours = (b_time - a_time).total_seconds() / 3600
    return math.inf if hours <= 0 else distance / hours
