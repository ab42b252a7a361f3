"""JSON door of self-release: a challenge, then the release it proves."""
from flask import Blueprint

from guardsvc import messages
from guardsvc.selfrelease import service
from guardsvc.selfrelease.limits import self_release_limit
from guardsvc.selfrelease.schemas import ChallengeSchema, ReleasedSchema, ReleaseRequestSchema
from guardsvc.web.doors import json_door, never_guarded
from guardsvc.web.identity import client_ip, current_client
from guardsvc.web.jsonio import ok
from guardsvc.web.operations import APPEAL_ERROR, ERROR, VALIDATION_ERROR, Envelope, Failure, Tag, operation

# Blocked clients are who calls it: never guarded.
bp = never_guarded(json_door(Blueprint("self_release_api", __name__, url_prefix="/api/guard/self-release")))
SELF_RELEASE = Tag("Buka blokir sendiri", "Klien di bawah blokir berisiko rendah membuka dirinya sendiri "
                                          "dengan bukti kerja (ALTCHA PoW v2), sekali per masa jeda.")
MUST_APPEAL = Failure("Berlaku blokir yang tidak dapat dibuka sendiri: `message` menyebut formulir banding, "
                      "`appeal_url` dan `reference` menyertainya.", (APPEAL_ERROR,))
USED_UP = Failure("Alamat IP, perangkat atau jaringan ini sudah membuka blokir sendiri dalam masa jeda, atau batas "
                  "per jam semua klien (atau bagian jaringan atau blokir ini darinya) tercapai: ajukan banding "
                  "(`appeal_url`); `Retry-After` menyebut kapan bisa lagi.",
                  (APPEAL_ERROR,))


@bp.get("/challenge")
@operation("getSelfReleaseChallenge", "Minta tantangan bukti kerja", SELF_RELEASE, {200: Envelope(ChallengeSchema)},
           identity=True, limits=(self_release_limit,),
           errors={403: MUST_APPEAL, 409: "Klien tidak sedang diblokir.", 429: USED_UP,
                   422: Failure("Tanpa perangkat (cookie perangkat atau `X-Device-Id`) tidak ada yang bisa "
                                "dibuka.", (VALIDATION_ERROR,))},
           description="Tantangan terikat pada alamat dan perangkat klien serta referensi blokirnya, berlaku "
                       "GUARDSVC_SELF_RELEASE_CHALLENGE_SECONDS detik.")
def challenge():
    """A proof-of-work challenge for the calling client (address and device) and its blocks."""
    issued, expires_at = service.issue_challenge(current_client())
    return ok(data=ChallengeSchema().dump({"challenge": issued, "expires_at": expires_at}))


@bp.post("")
@operation("selfRelease", "Buka blokir sendiri dengan tantangan yang terpecahkan", SELF_RELEASE,
           {201: Envelope(ReleasedSchema, message=True)}, body=ReleaseRequestSchema, identity=True,
           limits=(self_release_limit,),
           errors={403: Failure(MUST_APPEAL.description + " Atau bukti (base64 yang benar) tidak terbaca "
                                "isinya, tidak sah, kedaluwarsa, atau dibuat untuk klien lain: `errors.altcha` "
                                "menyebutnya.", (APPEAL_ERROR, VALIDATION_ERROR)),
                   429: USED_UP,
                   409: Failure("Bukti sudah dipakai, blokir berubah sejak tantangan dibuat, atau klien tidak "
                                "sedang diblokir.", (ERROR,)),
                   422: Failure("`altcha` bukan base64 (`errors.altcha`); tanpa perangkat (cookie perangkat "
                                "atau `X-Device-Id`, `errors.X-Device-Id`): aturan lintas header dan cookie "
                                "yang tidak dapat dikatakan skema.", (VALIDATION_ERROR,))},
           description="Membuat izin yang tepat dan sementara (alamat dan perangkat ini bersama, "
                       "GUARDSVC_SELF_RELEASE_HOURS jam) yang kalah oleh blokir yang dibuat sesudahnya.")
def release(data):
    """Release the calling client by a solved challenge: an exact, temporary allow entry."""
    released = service.release_client(current_client(), data["altcha"], origin_ip=client_ip())
    return ok(201, message=messages.SELF_RELEASE_DONE, data=ReleasedSchema().dump(released))
