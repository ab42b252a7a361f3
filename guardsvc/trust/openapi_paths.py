"""Trusted IPs and devices in the API document."""
from guardsvc.openapi.operations import RECORD_ID, Envelope, Link, Operation, Tag
from guardsvc.trust.schemas import SaveMyIpSchema, TrustCheckQuerySchema, TrustCheckSchema, TrustedIpSchema

TRUST = Tag("IP terpercaya", "IP dan perangkat yang dipercayai pemilik akun; cek oleh aplikasi induk.")
ACCOUNT_ROLES = ("user", "admin")
RECORD = Envelope(TrustedIpSchema, message=True)
REVOKE_IT = {"revokeTrustedIp": Link("revokeTrustedIp", {"id": "$response.body#/data/id"})}

OPERATIONS = (
    Operation("trust_api.save_my_ip", "saveMyIp", "Percayai IP dan perangkat saat ini", TRUST,
              {201: RECORD, 200: RECORD}, roles=ACCOUNT_ROLES, body=SaveMyIpSchema, links=REVOKE_IT,
              description="201 saat pertama kali, 200 saat (pengguna, IP, perangkat) yang sama disimpan lagi."),
    Operation("trust_api.list_trusted_ips", "listTrustedIps", "Daftar IP terpercaya milik saya", TRUST,
              {200: Envelope(TrustedIpSchema, many=True)}, roles=ACCOUNT_ROLES,
              description="Termasuk yang sudah dicabut (`is_active` false)."),
    Operation("trust_api.revoke_trusted_ip", "revokeTrustedIp", "Cabut IP terpercaya", TRUST,
              {200: RECORD}, roles=ACCOUNT_ROLES, path_params={"record_id": RECORD_ID},
              errors={404: "Tidak ada rekaman dengan id ini milik Anda."}),
    Operation("trust_api.check_trusted_ip", "checkTrustedIp", "Cek apakah (pengguna, IP, perangkat) terpercaya",
              TRUST, {200: Envelope(TrustCheckSchema)}, roles=("admin", "service"),
              query=TrustCheckQuerySchema),
)
