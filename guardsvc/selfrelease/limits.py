"""One rate-limit bucket for self-release (challenges and releases), shared by the API and the page."""
from guardsvc.ratelimits.limits import Limit

self_release_limit = Limit("RATELIMIT_SELF_RELEASE", scope="self-release")
