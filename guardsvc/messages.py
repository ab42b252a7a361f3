"""Every Indonesian sentence the service says outside its templates, in one place.

JSON messages, field errors, flashed notices, e-mail subjects and the words
that go into e-mails, and the notes the service writes on people's behalf.
Templates keep their own page text.
"""

# Generic HTTP conditions (contract section 1).
BAD_JSON = "Isi permintaan bukan JSON yang valid atau bukan objek JSON."
CSRF_FAILED = "Token CSRF tidak ada atau tidak valid. Muat ulang halaman lalu coba lagi."
UNAUTHORIZED = "Anda harus masuk terlebih dahulu atau menyertakan token akses yang valid."
FORBIDDEN = "Anda tidak memiliki izin untuk tindakan ini."
BLOCKED = "Akses Anda diblokir. Anda dapat mengajukan permohonan pembukaan blokir."
NOT_FOUND = "Halaman atau data yang Anda cari tidak ditemukan."
METHOD_NOT_ALLOWED = "Metode HTTP ini tidak diizinkan untuk alamat ini."
CONFLICT = "Permintaan bertentangan dengan keadaan data saat ini."
TOO_LARGE = "Isi permintaan terlalu besar (maksimal 64 KiB)."
UNSUPPORTED_MEDIA = "Content-Type harus application/json."
VALIDATION_FAILED = "Data yang dikirim tidak valid. Periksa kembali isian Anda."
RATE_LIMITED = "Terlalu banyak permintaan. Silakan coba lagi nanti."
INTERNAL_ERROR = "Terjadi kesalahan pada server. Silakan coba lagi nanti."
UNAVAILABLE = "Layanan sedang tidak dapat menjangkau basis data. Silakan coba lagi sebentar lagi."
BAD_REQUEST = "Permintaan tidak valid."
FORM_EXPIRED = "Sesi formulir sudah kedaluwarsa. Isian Anda masih ada; silakan kirim ulang."

# Field validation.
FIELD_REQUIRED = "Wajib diisi."
FIELD_NOT_STRING = "Harus berupa teks."
FIELD_TOO_LONG = "Maksimal {max} karakter."
FIELD_BAD_CHARS = "Mengandung karakter yang tidak diizinkan."
FIELD_BAD_EMAIL = "Format alamat e-mail tidak valid."
FIELD_BAD_CHOICE = "Harus salah satu dari: {choices}."
FIELD_BAD_IP = "Harus berupa alamat IPv4 atau IPv6 yang valid."
FIELD_BAD_IP_OR_CIDR = "Harus berupa alamat IP atau rentang CIDR yang valid."
FIELD_BAD_DEVICE_ID = "Harus 1-64 karakter: huruf, angka, titik, garis bawah, titik dua, atau tanda hubung."
FIELD_BAD_INTEGER = "Harus berupa bilangan bulat."
FIELD_BAD_BOOLEAN = "Harus berupa nilai benar/salah."
FIELD_OUT_OF_RANGE = "Nilai di luar rentang yang diizinkan."
FIELD_UNKNOWN = "Kolom tidak dikenal."

# Accounts and tokens.
BAD_CREDENTIALS = "E-mail atau kata sandi salah."
TOKEN_CREATED = "Token akses berhasil dibuat. Simpan sekarang; token ini tidak akan ditampilkan lagi."
TOKEN_REVOKED = "Token akses berhasil dicabut."
TOKEN_NOT_FOUND = "Token akses tidak ditemukan."
DEFAULT_TOKEN_NAME = "Token akses"
EMAIL_TAKEN = "Alamat e-mail sudah terdaftar."

# Trusted IPs.
TRUSTED_IP_SAVED = "IP {ip} di perangkat ini kini tepercaya."
TRUSTED_IP_REFRESHED = "IP {ip} di perangkat ini sudah tepercaya; data perangkat diperbarui."
TRUSTED_IP_REVOKED = "Perangkat itu tidak lagi tepercaya."
TRUSTED_IP_NOT_FOUND = "Perangkat tepercaya tidak ditemukan."
UNNAMED_DEVICE = "Perangkat tanpa nama"
# A device name made from the User-Agent: "Chrome di Windows".
BROWSER_ON_SYSTEM = "{browser} di {system}"
UNRECOGNISED_DEVICE = "Perangkat tidak dikenali"
UNKNOWN = "Tidak diketahui"

# Unblock tickets.
TICKET_SUBMITTED = "Permohonan pembukaan blokir berhasil diajukan."
TICKET_COOLDOWN = (
    "Anda sudah memiliki tiket permohonan yang sedang diproses. Mohon tunggu peninjauan administrator."
)
TICKET_COOLDOWN_NOT_SHOWN = ("Perangkat ini sudah memiliki tiket permohonan yang sedang diproses. Nomor tiketnya "
                             "ada di e-mail konfirmasi yang dikirim saat permohonan diajukan.")
TICKET_NETWORK_CEILING = ("Terlalu banyak permohonan dari jaringan Anda yang sedang menunggu peninjauan. "
                          "Silakan coba lagi nanti.")
APPEAL_FORM_REFUSED = ("Permohonan belum dapat dikirim. Mohon periksa isian Anda, tunggu sebentar, "
                       "lalu kirim lagi.")
TICKET_NOT_FOUND = "Nomor tiket tidak ditemukan."
TICKET_NOT_PENDING = "Tiket ini sudah diputuskan sebelumnya dan tidak dapat diubah lagi."
TICKET_APPROVED_DEFAULT_NOTES = "Permohonan disetujui."
TICKET_REJECTED_DEFAULT_NOTES = "Permohonan ditolak."
TICKET_APPROVED = "Tiket {ticket} disetujui; blokir yang cocok telah dibuka."
TICKET_REJECTED = "Tiket {ticket} ditolak."
# Starts the reason on the appeal form reached from a block page (?ref=BLK-...).
APPEAL_REASON_REFERENCE = "Nomor referensi blokir: {reference}\n\n"
# Why a block was lifted, when an approved appeal lifted it.
APPEAL_APPROVED_LIFT_REASON = "Banding {ticket} disetujui"
DECISION_MAIL_SUBJECT = "Keputusan banding {ticket}: {decision}"
TICKET_PENDING_LABEL = "Menunggu peninjauan"
TICKET_APPROVED_LABEL = "Disetujui"
TICKET_REJECTED_LABEL = "Ditolak"
TICKET_PENDING_EXPLAINED = "Permohonan Anda sudah kami terima dan sedang menunggu keputusan administrator."
TICKET_APPROVED_EXPLAINED = (
    "Permohonan Anda disetujui dan blokir yang sesuai telah dibuka. Muat ulang halaman yang tadinya diblokir."
)
TICKET_REJECTED_EXPLAINED = (
    "Permohonan Anda ditolak; blokir tetap berlaku. Baca catatan administrator di bawah. "
    "Anda dapat mengajukan permohonan baru."
)

# Blocks.
BLOCK_NOT_FOUND = "Blokir tidak ditemukan."
BLOCK_NOT_ACTIVE = "Blokir ini sudah tidak aktif."
BLOCK_ONE_TARGET = "Isi salah satu: alamat IP/CIDR atau ID perangkat."
BLOCK_EXPIRY_PAST = "Waktu berakhir harus di masa depan."
BLOCK_BOTH_EXPIRY = "Isi salah satu: durasi (menit) atau waktu berakhir."
BLOCK_CREATED = "Blokir {reference} berhasil dibuat."
BLOCK_LIFTED = "Blokir {reference} berhasil dibuka."
FIELD_BAD_TIMESTAMP = "Harus berupa waktu ISO 8601, misalnya 2026-11-22T08:50:00Z."
BLOCK_CHECK_NEEDS_TARGET = "Isi ip atau device_id."
LIFT_REASON_PROBLEM = "Alasan: {problem}"

# Web pages (sign-in and account).
SERVICE_ACCOUNT_NO_WEB = "Akun layanan tidak dapat masuk melalui halaman web; gunakan token akses."
SIGNED_OUT = "Anda sudah keluar."
DEVICE_RENAMED = "Nama perangkat berhasil diubah."

# Two-step verification and sign-in.
TOTP_ALREADY_ENABLED = "Verifikasi dua langkah sudah aktif untuk akun ini."
TOTP_NOT_STARTED = "Mulai penyiapan verifikasi dua langkah terlebih dahulu."
TOTP_NOT_ENABLED = "Verifikasi dua langkah belum aktif untuk akun ini."
TOTP_WRONG_CODE = "Kode verifikasi salah atau sudah pernah dipakai."
TOTP_CODE_REQUIRED = (
    "Akun ini memakai verifikasi dua langkah. Sertakan kode dari aplikasi autentikator "
    "(atau kode pemulihan) pada kolom otp."
)
WRONG_PASSWORD = "Kata sandi salah."
SIGNIN_CODE_EXPIRED = "Waktu untuk memasukkan kode sudah habis. Silakan masuk kembali."
PASSWORD_TOO_SHORT = "Kata sandi minimal {min} karakter."
PASSWORD_UNCHANGED = "Kata sandi baru harus berbeda dari kata sandi lama."
PASSWORD_MISMATCH = "Konfirmasi kata sandi tidak sama."
QR_CODE_TITLE = "Kode QR verifikasi dua langkah"
SIGNIN_ALERT_SUBJECT = "Peringatan keamanan: akun guardsvc Anda dimasuki dari perangkat baru"
TOTP_DISABLED = "Verifikasi dua langkah sudah dinonaktifkan."
SIGNED_OUT_EVERYWHERE = "Anda telah keluar dari semua perangkat. Silakan masuk kembali."
PASSWORD_CHANGED = "Kata sandi berhasil diubah. Semua perangkat lain telah dikeluarkan dari akun Anda."

# Forward auth and the block page
FORWARDED_ADDRESS_INVALID = "Alamat klien yang diteruskan oleh proxy tidak dapat dibaca."
FORWARD_AUTH_SECRET_INVALID = "Rahasia forward auth tidak ada atau salah."

# Allow entries
ALLOW_NOT_FOUND = "Daftar izin tidak ditemukan."
ALLOW_NOT_ACTIVE = "Daftar izin ini sudah tidak aktif."

# CrowdSec bouncers (the decision stream).
BOUNCER_NAME_TAKEN = "Nama bouncer ini sudah dipakai."
BOUNCER_NOT_FOUND = "Bouncer tidak ditemukan."
BOUNCER_NAME_INVALID = "Nama bouncer wajib diisi, maksimal 100 karakter."
# Reasons on blocks imported from a CrowdSec LAPI (administrators read them on the desk).
CROWDSEC_BLOCK_REASON = "Keputusan CrowdSec #{decision_id}: {scenario}"
CROWDSEC_DECISION_ENDED = "Keputusan CrowdSec #{decision_id} sudah dihapus atau berakhir."
WEBHOOK_URL_INVALID = "Alamat webhook harus berupa URL http:// atau https:// tanpa nama pengguna dan kata sandi."
WEBHOOK_EVENTS_INVALID = "Jenis peristiwa tidak dikenal: {unknown}. Pilihan: {choices}."
WEBHOOK_NOT_FOUND = "Webhook tidak ditemukan."
ALLOW_CREATED = "Daftar izin untuk {target} berhasil dibuat."
ALLOW_REMOVED = "Daftar izin untuk {target} berhasil dihapus."

# Server-side sessions and re-authentication
SESSION_NOT_FOUND = "Sesi tidak ditemukan atau sudah berakhir."
SESSION_ENDED = "Sesi di perangkat itu sudah diakhiri."
OTHER_SESSIONS_ENDED = "Anda telah keluar dari semua perangkat lain."
REAUTH_DONE = "Terima kasih, identitas Anda sudah dikonfirmasi. Silakan lanjutkan."
TICKET_HAS_NO_DEVICE = "Tiket ini tidak membawa ID perangkat."
TICKET_DEVICE_BLOCK_REASON = "Perangkat dari tiket {ticket}"
SCHEMA_BEHIND = "Layanan sedang diperbarui. Silakan coba lagi sebentar lagi."
HASHING_BUSY = "Layanan sedang sibuk memeriksa kata sandi. Silakan coba lagi sebentar lagi."
NOTICE_LOCKED_SUBJECT = "Banyak percobaan masuk yang salah ke akun Anda"
NOTICE_LOCKED = ("Ada banyak kata sandi atau kode yang salah untuk akun Anda dari perangkat yang tidak dikenal, "
                 "jadi percobaan dari perangkat lain dihentikan sementara. Peramban yang pernah Anda pakai untuk "
                 "masuk tetap bisa masuk. Bila itu bukan Anda, ganti kata sandi Anda.")
REAUTH_NEEDED_API = ("Konfirmasi ulang identitas Anda (kata sandi dan kode verifikasi) di halaman akun /akun, "
                     "lalu coba lagi.")
# Ticket conversation and the administrators' desk
CONFIRMATION_MAIL_SUBJECT = "Permohonan {ticket} diterima"
MESSAGE_MAIL_SUBJECT = "Pesan administrator tentang permohonan {ticket}"
DIGEST_MAIL_SUBJECT = "{count} permohonan baru menunggu peninjauan"
CONVERSATION_NOT_FOUND = "Tautan tiket tidak ditemukan. Periksa kembali tautan dari e-mail Anda."
CONVERSATION_CLOSED = "Tiket ini sudah diputuskan; percakapan ditutup."
REPLY_SENT = "Jawaban Anda terkirim."
ADMIN_MESSAGE_SENT = "Pesan terkirim dan dikirim ke e-mail pemohon."
ADMIN_NOTE_SAVED = "Catatan internal disimpan."
TICKET_CLAIMED = "Tiket {ticket} Anda klaim."
TICKET_CLAIMED_BY_OTHER = "Tiket ini sudah diklaim oleh {admin}."
TICKET_RELEASED = "Klaim tiket {ticket} dilepas."
TICKET_NOT_CLAIMED_BY_YOU = "Tiket ini tidak sedang Anda klaim."
TEMPLATE_NOT_FOUND = "Templat tidak ditemukan."
TEMPLATE_SAVED = "Templat \"{title}\" disimpan."
TEMPLATE_DELETED = "Templat \"{title}\" dihapus."
DIGEST_ON = "Anda akan menerima e-mail saat ada permohonan baru."
DIGEST_OFF = "E-mail permohonan baru dimatikan."
# Account recovery, the password rule and security notices
PASSWORD_IS_EMAIL = "Kata sandi tidak boleh sama dengan alamat e-mail atau bagian sebelum tanda @."
PASSWORD_TOO_COMMON = "Kata sandi ini termasuk yang paling sering dipakai sehingga mudah ditebak. Pilih yang lain."
RESET_REQUESTED = ("Jika alamat itu terdaftar dan aktif, kami sudah mengirim tautan untuk mengatur ulang "
                   "kata sandi. Periksa kotak masuk Anda; tautan berlaku {minutes} menit dan hanya sekali pakai.")
RESET_MAIL_SUBJECT = "Atur ulang kata sandi akun guardsvc Anda"
RESET_DONE = "Kata sandi baru sudah disimpan. Silakan masuk dengan kata sandi baru."
NOTICE_PASSWORD_CHANGED_SUBJECT = "Pemberitahuan keamanan: kata sandi akun guardsvc Anda diganti"
NOTICE_PASSWORD_CHANGED = "Kata sandi akun Anda baru saja diganti."
NOTICE_PASSWORD_RESET_SUBJECT = "Pemberitahuan keamanan: kata sandi akun guardsvc Anda diatur ulang"
NOTICE_PASSWORD_RESET = "Kata sandi akun Anda baru saja diatur ulang melalui tautan lupa kata sandi."
NOTICE_2FA_ON_SUBJECT = "Pemberitahuan keamanan: verifikasi dua langkah diaktifkan"
NOTICE_2FA_ON = "Verifikasi dua langkah baru saja diaktifkan untuk akun Anda."
NOTICE_2FA_OFF_SUBJECT = "Pemberitahuan keamanan: verifikasi dua langkah dinonaktifkan"
NOTICE_2FA_OFF = "Verifikasi dua langkah baru saja dinonaktifkan untuk akun Anda."
NOTICE_RECOVERY_CODES_SUBJECT = "Pemberitahuan keamanan: kode pemulihan baru dibuat"
NOTICE_RECOVERY_CODES = "Kode pemulihan baru baru saja dibuat untuk akun Anda; kode yang lama tidak berlaku lagi."
NOTICE_TOKEN_SUBJECT = "Pemberitahuan keamanan: token akses baru dibuat"
NOTICE_TOKEN = "Token akses pribadi baru baru saja dibuat untuk akun Anda."
NOTICE_TOKEN_NAME = "Nama token"
NOTICE_TRUSTED_DEVICE_SUBJECT = "Pemberitahuan keamanan: perangkat tepercaya baru"
NOTICE_TRUSTED_DEVICE = "Sebuah perangkat baru saja ditambahkan sebagai perangkat tepercaya akun Anda."
NOTICE_DEVICE_NAME = "Nama perangkat"
NOTICE_DISABLED_SUBJECT = "Pemberitahuan keamanan: akun guardsvc Anda dinonaktifkan"
NOTICE_DISABLED = ("Akun Anda baru saja dinonaktifkan: semua sesi diakhiri dan semua token akses dicabut. "
                   "Hubungi administrator bila Anda merasa ini keliru.")
NOTICE_2FA_RESET_SUBJECT = "Pemberitahuan keamanan: verifikasi dua langkah diatur ulang"
NOTICE_2FA_RESET = "Verifikasi dua langkah akun Anda baru saja diatur ulang (dinonaktifkan) oleh administrator."
NOTICE_BY_COMMAND_LINE = "Administrator, melalui baris perintah"
# Exact approvals
TICKET_APPROVED_NOTHING_OPENED = "Tiket {ticket} disetujui; tidak ada blokir yang perlu dibuka."
TICKET_APPROVED_NOTHING_OPENED_EXPLAINED = (
    "Permohonan Anda disetujui. Saat diputuskan, tidak ada blokir yang berlaku untuk alamat IP atau "
    "perangkat Anda, jadi tidak ada yang perlu dibuka."
)
# Account throttles and second-step codes
SIGNIN_THROTTLED = "Terlalu banyak percobaan masuk yang gagal untuk akun ini. Silakan coba lagi nanti."
FIELD_BAD_CODE = "Kode hanya berisi angka 0-9 (kode aplikasi) atau huruf, angka dan tanda hubung (kode pemulihan)."

# Passkeys (WebAuthn).
PASSKEY_REFUSED = "Passkey tidak dapat diverifikasi. Silakan coba lagi."
PASSKEY_UNKNOWN = ("Passkey ini tidak dikenal: tidak terdaftar pada akun ini atau pada akun mana pun di layanan ini. "
                   "Masuk dengan e-mail dan kata sandi, lalu tambahkan passkey di halaman akun.")
PASSKEY_CHALLENGE_EXPIRED = "Permintaan passkey sudah kedaluwarsa atau sudah dipakai. Silakan coba lagi."
PASSKEY_SIGN_COUNT_BACK = ("Passkey ini ditolak karena penghitung penggunaannya mundur; passkey itu mungkin telah "
                           "disalin. Pemilik akun sudah diberi tahu lewat e-mail.")
PASSKEY_ALREADY_ADDED = "Passkey ini sudah terdaftar."
PASSKEY_NONE = "Akun ini belum memiliki passkey."
PASSKEY_NOT_FOUND = "Passkey tidak ditemukan."
PASSKEY_ADDED = "Passkey \"{name}\" berhasil ditambahkan."
PASSKEY_REMOVED = "Passkey \"{name}\" sudah dihapus."
PASSKEY_RENAMED = "Nama passkey sudah diubah."
PASSKEY_MISSING = "Tidak ada jawaban passkey. Aktifkan JavaScript lalu coba lagi, atau gunakan kode verifikasi."
# The name of a passkey whose owner gave none: "Passkey 2".
DEFAULT_PASSKEY_NAME = "Passkey {number}"
NOTICE_PASSKEY_ADDED_SUBJECT = "Pemberitahuan keamanan: passkey baru ditambahkan"
NOTICE_PASSKEY_ADDED = "Sebuah passkey baru saja ditambahkan ke akun Anda."
NOTICE_PASSKEY_REMOVED_SUBJECT = "Pemberitahuan keamanan: passkey dihapus"
NOTICE_PASSKEY_REMOVED = "Sebuah passkey baru saja dihapus dari akun Anda."
NOTICE_PASSKEY_COUNT_SUBJECT = "Pemberitahuan keamanan: passkey Anda mungkin telah disalin"
NOTICE_PASSKEY_COUNT = ("Sebuah upaya masuk dengan salah satu passkey Anda ditolak karena penghitung penggunaannya "
                        "mundur. Ini dapat berarti passkey itu telah disalin. Bila bukan Anda, hapus passkey itu "
                        "dari halaman akun dan ganti kata sandi Anda.")
NOTICE_PASSKEY_NAME = "Nama passkey"
