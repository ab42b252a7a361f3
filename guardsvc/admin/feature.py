"""The administrators' desk: the JSON door and pages for tickets, blocks, allow entries and the audit log,
and the digest of new appeals (queued by the mail deliverer, chosen on /akun)."""
from guardsvc.admin import allows_api, allows_views, api, desk_views, group_views, views
from guardsvc.appeals.digest import queue_appeal_digests
from guardsvc.features import Feature

FEATURE = Feature(
    "admin",
    blueprints=(api.bp, allows_api.bp, views.bp, allows_views.bp, desk_views.bp, group_views.bp),
    account_sections=(desk_views.ACCOUNT_SECTION,),
    mail_tasks={"appeal-digest": queue_appeal_digests},
)
