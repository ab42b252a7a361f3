"""What the webhooks feature forgets, and when (``flask purge``, guardsvc.retention)."""
from guardsvc.retention.service import Rule, delete_rows, finished_long_ago
from guardsvc.webhooks.models import FINISHED, HookDelivery

RULES = (Rule("finished webhook deliveries deleted", HookDelivery, finished_long_ago(HookDelivery, FINISHED),
              delete_rows(HookDelivery)),)
