"""Sign-in history in the API document."""
from guardsvc.openapi.operations import Envelope, Operation, Tag
from guardsvc.signin.schemas import AdminLoginEventSchema, LoginEventSchema, LoginQuerySchema

SIGN_INS = Tag("Riwayat masuk", "Setiap upaya masuk: waktu, IP, perangkat, hasil.")

OPERATIONS = (
    Operation("signin_api.my_logins", "listMyLogins", "Riwayat masuk saya", SIGN_INS,
              {200: Envelope(LoginEventSchema, many=True)}, roles=("user", "admin"),
              description="50 upaya terakhir, terbaru dahulu."),
    Operation("signin_api.all_logins", "listAllLogins", "Riwayat masuk semua akun", SIGN_INS,
              {200: Envelope(AdminLoginEventSchema, many=True)}, roles=("admin",), query=LoginQuerySchema,
              description="Terbaru dahulu, dapat disaring menurut hasil."),
)
