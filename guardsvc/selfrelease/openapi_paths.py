"""Self-release in the API document."""
from guardsvc.openapi.operations import APPEAL_ERROR, ERROR, VALIDATION_ERROR, Envelope, Failure, Operation, Tag
from guardsvc.selfrelease.schemas import ChallengeSchema, ReleasedSchema, ReleaseRequestSchema

SELF_RELEASE = Tag("Buka blokir sendiri", "Klien di bawah blokir berisiko rendah membuka dirinya sendiri "
                                          "dengan bukti kerja (ALTCHA PoW v2), sekali per masa jeda.")
MUST_APPEAL = Failure("Berlaku blokir yang tidak dapat dibuka sendiri: `message` menyebut formulir banding, "
                      "`appeal_url` dan `reference` menyertainya.", (APPEAL_ERROR,))
USED_UP = Failure("Alamat IP atau perangkat ini sudah membuka blokir sendiri dalam masa jeda, atau batas per jam "
                  "semua klien tercapai: ajukan banding (`appeal_url`); `Retry-After` menyebut kapan bisa lagi.",
                  (APPEAL_ERROR,))

OPERATIONS = (
    Operation("self_release_api.challenge", "getSelfReleaseChallenge", "Minta tantangan bukti kerja",
              SELF_RELEASE, {200: Envelope(ChallengeSchema)}, identity=True, rate_limited=True,
              errors={403: MUST_APPEAL, 409: "Klien tidak sedang diblokir.", 429: USED_UP,
                      422: Failure("Tanpa perangkat (cookie perangkat atau `X-Device-Id`) tidak ada yang bisa "
                                   "dibuka.", (VALIDATION_ERROR,))},
              description="Tantangan terikat pada alamat dan perangkat klien serta referensi blokirnya, berlaku "
                          "GUARDSVC_SELF_RELEASE_CHALLENGE_SECONDS detik."),
    Operation("self_release_api.release", "selfRelease", "Buka blokir sendiri dengan tantangan yang terpecahkan",
              SELF_RELEASE, {201: Envelope(ReleasedSchema, message=True)}, body=ReleaseRequestSchema,
              identity=True, rate_limited=True,
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
                          "GUARDSVC_SELF_RELEASE_HOURS jam) yang kalah oleh blokir yang dibuat sesudahnya."),
)
