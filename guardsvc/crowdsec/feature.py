"""CrowdSec: the bouncers' decision stream, CrowdSec as a source of blocks (a round of the worker), their commands."""
from guardsvc.cli.background import Round
from guardsvc.crowdsec import api
from guardsvc.crowdsec.cli import bouncers_cli, crowdsec_cli
from guardsvc.crowdsec.worker import crowdsec_round
from guardsvc.features import Feature

FEATURE = Feature(
    "crowdsec",
    blueprints=(api.bp,),
    commands=(bouncers_cli, crowdsec_cli),
    worker_rounds=(Round("crowdsec", crowdsec_round, "CROWDSEC_PULL_SECONDS"),),
)
