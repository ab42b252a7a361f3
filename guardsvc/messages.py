"""Every Indonesian sentence the service says outside its templates, in one place.

JSON messages, field errors, flashed notices, e-mail subjects and the words
that go into e-mails, and the notes the service writes on people's behalf.
Templates keep their own page text.

Each is a message id (lazy): its Indonesian text is the source, and it reads
in the language of the request (or of the person a message is for) when it is
used as text — ``str()``, ``.format()``, a template, a JSON answer.
``scripts/translations update`` extracts them with the templates' text.
"""
from flask_babel.speaklater import LazyString

from guardsvc.translation import lazy_gettext as _


def as_text(value):
    """``json.dumps(..., default=as_text)``: a message id becomes its text in the current language."""
    if isinstance(value, LazyString):
        return str(value)
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")

# Generic HTTP conditions (contract section 1).
BAD_JSON = _("Isi permintaan bukan JSON yang valid atau bukan objek JSON.")
CSRF_FAILED = _("Token CSRF tidak ada atau tidak valid. Muat ulang halaman lalu coba lagi.")
UNAUTHORIZED = _("Anda harus masuk terlebih dahulu atau menyertakan token akses yang valid.")
FORBIDDEN = _("Anda tidak memiliki izin untuk tindakan ini.")
BLOCKED = _("Akses Anda diblokir. Anda dapat mengajukan permohonan pembukaan blokir.")
NOT_FOUND = _("Halaman atau data yang Anda cari tidak ditemukan.")
METHOD_NOT_ALLOWED = _("Metode HTTP ini tidak diizinkan untuk alamat ini.")
CONFLICT = _("Permintaan bertentangan dengan keadaan data saat ini.")
TOO_LARGE = _("Isi permintaan terlalu besar (maksimal 64 KiB).")
BODY_TIMEOUT = _("Isi permintaan tidak tiba utuh pada waktunya.")
UNSUPPORTED_MEDIA = _("Content-Type harus application/json.")
VALIDATION_FAILED = _("Data yang dikirim tidak valid. Periksa kembali isian Anda.")
RATE_LIMITED = _("Terlalu banyak permintaan. Silakan coba lagi nanti.")
INTERNAL_ERROR = _("Terjadi kesalahan pada server. Silakan coba lagi nanti.")
UNAVAILABLE = _("Layanan sedang tidak dapat menjangkau basis data. Silakan coba lagi sebentar lagi.")
BAD_REQUEST = _("Permintaan tidak valid.")
LANGUAGE_UNKNOWN = _("Bahasa itu tidak tersedia. Pilih Bahasa Indonesia atau English.")
FORM_EXPIRED = _("Sesi formulir sudah kedaluwarsa. Isian Anda masih ada; silakan kirim ulang.")

# Field validation.
FIELD_REQUIRED = _("Wajib diisi.")
FIELD_NOT_STRING = _("Harus berupa teks.")
FIELD_TOO_LONG = _("Maksimal {max} karakter.")
FIELD_BAD_CHARS = _("Mengandung karakter yang tidak diizinkan.")
FIELD_BAD_EMAIL = _("Format alamat e-mail tidak valid.")
FIELD_BAD_CHOICE = _("Harus salah satu dari: {choices}.")
FIELD_BAD_IP = _("Harus berupa alamat IPv4 atau IPv6 yang valid.")
FIELD_BAD_IP_OR_CIDR = _("Harus berupa alamat IP atau rentang CIDR yang valid.")
FIELD_IP_ZONE_ID = _("Tanpa id zona (bagian setelah tanda persen): alamat dengan id zona tidak pernah cocok "
                     "dengan klien mana pun.")
FIELD_BAD_DEVICE_ID = _("Harus 1-64 karakter: huruf, angka, titik, garis bawah, titik dua, atau tanda hubung.")
FIELD_BAD_INTEGER = _("Harus berupa bilangan bulat.")
FIELD_GIVEN_TWICE = _("Sebutkan sekali saja: parameter ini hanya menerima satu nilai.")
FIELD_BAD_BOOLEAN = _("Harus berupa nilai benar/salah.")
FIELD_OUT_OF_RANGE = _("Nilai di luar rentang yang diizinkan.")
FIELD_UNKNOWN = _("Kolom tidak dikenal.")

# Accounts and tokens.
BAD_CREDENTIALS = _("E-mail atau kata sandi salah.")
TOKEN_CREATED = _("Token akses berhasil dibuat. Simpan sekarang; token ini tidak akan ditampilkan lagi.")
TOKEN_REVOKED = _("Token akses berhasil dicabut.")
TOKEN_NOT_FOUND = _("Token akses tidak ditemukan.")
DEFAULT_TOKEN_NAME = _("Token akses")
EMAIL_TAKEN = _("Alamat e-mail sudah terdaftar.")

# Trusted IPs.
TRUSTED_IP_SAVED = _("IP {ip} di perangkat ini kini tepercaya.")
TRUSTED_IP_REFRESHED = _("IP {ip} di perangkat ini sudah tepercaya; data perangkat diperbarui.")
TRUSTED_IP_REVOKED = _("Perangkat itu tidak lagi tepercaya.")
TRUSTED_IP_NOT_FOUND = _("Perangkat tepercaya tidak ditemukan.")
UNNAMED_DEVICE = _("Perangkat tanpa nama")
# A device name made from the User-Agent: "Chrome di Windows".
BROWSER_ON_SYSTEM = _("{browser} di {system}")
UNRECOGNISED_DEVICE = _("Perangkat tidak dikenali")
UNKNOWN = _("Tidak diketahui")

# Unblock tickets.
TICKET_SUBMITTED = _("Permohonan pembukaan blokir berhasil diajukan.")
TICKET_COOLDOWN = (
    _("Anda sudah memiliki tiket permohonan yang sedang diproses. Mohon tunggu peninjauan administrator.")
)
TICKET_COOLDOWN_NOT_SHOWN = (_("Perangkat ini sudah memiliki tiket permohonan yang sedang diproses. Nomor tiketnya "
                             "ada di e-mail konfirmasi yang dikirim saat permohonan diajukan."))
TICKET_NETWORK_CEILING = (_("Terlalu banyak permohonan dari jaringan Anda yang sedang menunggu peninjauan. "
                          "Silakan coba lagi nanti."))
APPEAL_FORM_REFUSED = (_("Permohonan belum dapat dikirim. Mohon periksa isian Anda, tunggu sebentar, "
                       "lalu kirim lagi."))
APPEAL_FORM_TOO_FAST = (_("Formulir ini terkirim kurang dari {minimum} detik setelah dibuka. Untuk menahan kiriman "
                          "otomatis, permohonan baru diterima sesudah itu. Tidak ada yang salah dengan isian Anda: "
                          "kirim sekali lagi."))
TICKET_NOT_FOUND = _("Nomor tiket tidak ditemukan.")
TICKET_NOT_PENDING = _("Tiket ini sudah diputuskan sebelumnya dan tidak dapat diubah lagi.")
TICKET_APPROVED_DEFAULT_NOTES = _("Permohonan disetujui.")
TICKET_REJECTED_DEFAULT_NOTES = _("Permohonan ditolak.")
TICKET_APPROVED = _("Tiket {ticket} disetujui; blokir yang cocok telah dibuka.")
TICKET_REJECTED = _("Tiket {ticket} ditolak.")
# Starts the reason on the appeal form reached from a block page (?ref=BLK-...).
APPEAL_REASON_REFERENCE = _("Nomor referensi blokir: {reference}\n\n")
# Why a block was lifted, when an approved appeal lifted it.
APPEAL_APPROVED_LIFT_REASON = _("Banding {ticket} disetujui")
DECISION_MAIL_SUBJECT = _("Keputusan banding {ticket}: {decision}")
TICKET_PENDING_LABEL = _("Menunggu peninjauan")
TICKET_APPROVED_LABEL = _("Disetujui")
TICKET_REJECTED_LABEL = _("Ditolak")
TICKET_PENDING_EXPLAINED = _("Permohonan Anda sudah kami terima dan sedang menunggu keputusan administrator.")
TICKET_APPROVED_EXPLAINED = (
    _("Permohonan Anda disetujui dan blokir yang sesuai telah dibuka. Muat ulang halaman yang tadinya diblokir.")
)
TICKET_REJECTED_EXPLAINED = (
    _("Permohonan Anda ditolak; blokir tetap berlaku. Baca catatan administrator di bawah. "
    "Anda dapat mengajukan permohonan baru.")
)

# Blocks.
BLOCK_NOT_FOUND = _("Blokir tidak ditemukan.")
BLOCK_NOT_ACTIVE = _("Blokir ini sudah tidak aktif.")
BLOCK_ONE_TARGET = _("Isi salah satu: alamat IP/CIDR atau ID perangkat.")
BLOCK_EXPIRY_PAST = _("Waktu berakhir harus di masa depan.")
BLOCK_BOTH_EXPIRY = _("Isi salah satu: durasi (menit) atau waktu berakhir.")
BLOCK_CREATED = _("Blokir {reference} berhasil dibuat.")
BLOCK_LIFTED = _("Blokir {reference} berhasil dibuka.")
FIELD_BAD_TIMESTAMP = _("Harus berupa waktu ISO 8601, misalnya 2026-11-22T08:50:00Z.")
FIELD_TIMESTAMP_OUT_OF_RANGE = _("Waktu ini keluar dari tahun 1 sampai 9999 setelah diubah ke UTC.")
BLOCK_TOO_WIDE = _("Rentang {network} terlalu luas untuk diblokir: paling luas /{widest} untuk IPv{version}.")
BLOCK_NEVER_BLOCKED = _("{network} tidak boleh diblokir: mengenai jaringan {never} yang tidak pernah diblokir.")
BLOCK_COVERAGE_EXCEEDED = _("{network} tidak dapat diblokir: bersama blokir yang aktif, blokir akan menutupi {share} "
                            "ruang alamat IPv4 publik, melebihi batas {cap}.")
BLOCKLIST_IMPORT_REASON = _("Daftar blokir {source}")
# ``flask blocks import`` (contract section 15): what the command prints.
BLOCKLIST_IMPORTED = _("{added} blokir ditambahkan, {skipped} dilewati ({existing} sudah diblokir, {duplicates} "
                       "ganda dalam daftar, {bad} baris salah) dari {lines} baris.")
BLOCKLIST_BAD_LINE = _("baris {number}: {text}: {why}")
BLOCKLIST_MORE_BAD = _("... dan {count} baris salah lainnya")
BLOCKLIST_REFUSED = _("{count} baris salah: tidak ada yang diimpor (--skip-bad melewati baris salah).")
BLOCKLIST_COVERAGE_REFUSED = _("Tidak ada yang diimpor: daftar ini akan membuat blokir menutupi lebih dari {cap} "
                               "ruang alamat IPv4 publik; baris {number} yang pertama melewatinya.")
BLOCK_CHECK_NEEDS_TARGET = _("Isi ip atau device_id.")
LIFT_REASON_PROBLEM = _("Alasan: {problem}")

# Web pages (sign-in and account).
SERVICE_ACCOUNT_NO_WEB = _("Akun layanan tidak dapat masuk melalui halaman web; gunakan token akses.")
SIGNED_OUT = _("Anda sudah keluar.")
DEVICE_RENAMED = _("Nama perangkat berhasil diubah.")

# Two-step verification and sign-in.
TOTP_ALREADY_ENABLED = _("Verifikasi dua langkah sudah aktif untuk akun ini.")
TOTP_NOT_STARTED = _("Mulai penyiapan verifikasi dua langkah terlebih dahulu.")
TOTP_NOT_ENABLED = _("Verifikasi dua langkah belum aktif untuk akun ini.")
TOTP_WRONG_CODE = _("Kode verifikasi salah atau sudah pernah dipakai.")
TOTP_CODE_REQUIRED = (
    _("Akun ini memakai verifikasi dua langkah. Sertakan kode dari aplikasi autentikator "
    "(atau kode pemulihan) pada kolom otp.")
)
WRONG_PASSWORD = _("Kata sandi salah.")
SIGNIN_CODE_EXPIRED = _("Waktu untuk memasukkan kode sudah habis. Silakan masuk kembali.")
PASSWORD_TOO_SHORT = _("Kata sandi minimal {min} karakter.")
PASSWORD_UNCHANGED = _("Kata sandi baru harus berbeda dari kata sandi lama.")
PASSWORD_MISMATCH = _("Konfirmasi kata sandi tidak sama.")
QR_CODE_TITLE = _("Kode QR verifikasi dua langkah")
SIGNIN_ALERT_SUBJECT = _("Peringatan keamanan: akun guardsvc Anda dimasuki dari perangkat baru")
TOTP_DISABLED = _("Verifikasi dua langkah sudah dinonaktifkan.")
SIGNED_OUT_EVERYWHERE = _("Anda telah keluar dari semua perangkat. Silakan masuk kembali.")
PASSWORD_CHANGED = _("Kata sandi berhasil diubah. Semua perangkat lain telah dikeluarkan dari akun Anda.")

# Forward auth and the block page
FORWARDED_ADDRESS_INVALID = _("Alamat klien yang diteruskan oleh proxy tidak dapat dibaca.")
FORWARD_AUTH_SECRET_INVALID = _("Rahasia forward auth tidak ada atau salah.")

# Allow entries
ALLOW_NOT_FOUND = _("Daftar izin tidak ditemukan.")
# Self-release (contract section 14).
SELF_RELEASE_NOT_BLOCKED = _("Anda tidak sedang diblokir; tidak ada yang perlu dibuka.")
SELF_RELEASE_APPEAL = _("Blokir ini tidak dapat dibuka sendiri. Ajukan banding melalui formulir: {url}")
SELF_RELEASE_USED_UP = _("Alamat IP atau perangkat ini sudah membuka blokir sendiri baru-baru ini. "
                         "Ajukan banding melalui formulir: {url}")
SELF_RELEASE_CLOSED = _("Pembukaan blokir sendiri sedang tidak tersedia karena terlalu banyak permintaan. "
                        "Ajukan banding melalui formulir: {url}")
SELF_RELEASE_NETWORK_USED_UP = _("Jaringan alamat IP ini sudah membuka blokir sendiri baru-baru ini. "
                                 "Ajukan banding melalui formulir: {url}")
SELF_RELEASE_NETWORK_CLOSED = _("Terlalu banyak pembukaan blokir sendiri dari jaringan ini atau di bawah blokir ini "
                                "dalam satu jam terakhir. Ajukan banding melalui formulir: {url}")
SELF_RELEASE_NEEDS_DEVICE = _("Pembukaan blokir sendiri memerlukan ID perangkat (cookie perangkat atau X-Device-Id).")
SELF_RELEASE_PROOF_MALFORMED = _("Bukti kerja tidak terbaca. Muat ulang halaman lalu coba lagi.")
SELF_RELEASE_PROOF_WRONG = _("Bukti kerja tidak sah.")
SELF_RELEASE_PROOF_EXPIRED = _("Tantangan sudah kedaluwarsa. Minta tantangan baru lalu coba lagi.")
SELF_RELEASE_PROOF_OTHER_CLIENT = _("Tantangan ini dibuat untuk alamat IP atau perangkat lain.")
SELF_RELEASE_PROOF_USED = _("Bukti kerja ini sudah dipakai. Minta tantangan baru lalu coba lagi.")
SELF_RELEASE_BLOCKS_CHANGED = _("Blokir Anda berubah sejak tantangan dibuat. Minta tantangan baru lalu coba lagi.")
SELF_RELEASE_DONE = _("Blokir dibuka untuk alamat IP dan perangkat ini.")
SELF_RELEASE_ALLOW_REASON = _("Dibuka sendiri oleh pengunjung: {references}")
SELF_RELEASE_SWITCHED_ON = _("Blokir {reference} kini dapat dibuka sendiri oleh pengunjung.")
SELF_RELEASE_SWITCHED_OFF = _("Blokir {reference} kini tidak dapat dibuka sendiri oleh pengunjung.")
ALLOW_NOT_ACTIVE = _("Daftar izin ini sudah tidak aktif.")

# CrowdSec bouncers (the decision stream).
BOUNCER_NAME_TAKEN = _("Nama bouncer ini sudah dipakai.")
BOUNCER_NOT_FOUND = _("Bouncer tidak ditemukan.")
BOUNCER_NAME_INVALID = _("Nama bouncer wajib diisi, maksimal 100 karakter.")
# Reasons on blocks imported from a CrowdSec LAPI (administrators read them on the desk).
CROWDSEC_BLOCK_REASON = _("Keputusan CrowdSec #{decision_id}: {scenario}")
CROWDSEC_DECISION_ENDED = _("Keputusan CrowdSec #{decision_id} sudah dihapus atau berakhir.")
WEBHOOK_URL_INVALID = _("Alamat webhook harus berupa URL http:// atau https:// tanpa nama pengguna dan kata sandi.")
WEBHOOK_URL_PRIVATE = _("Alamat webhook ini menuju alamat yang tidak publik ({address}): loopback, jaringan pribadi, "
                        "link-local atau layanan metadata. Gunakan alamat publik, atau minta operator menyetel "
                        "GUARDSVC_WEBHOOK_ALLOW_PRIVATE_TARGETS=true bila penerimanya memang di jaringan sendiri.")
WEBHOOK_EVENTS_INVALID = _("Jenis peristiwa tidak dikenal: {unknown}. Pilihan: {choices}.")
WEBHOOK_NOT_FOUND = _("Webhook tidak ditemukan.")
ALLOW_CREATED = _("Daftar izin untuk {target} berhasil dibuat.")
ALLOW_REMOVED = _("Daftar izin untuk {target} berhasil dihapus.")

# Server-side sessions and re-authentication
SESSION_NOT_FOUND = _("Sesi tidak ditemukan atau sudah berakhir.")
SESSION_ENDED = _("Sesi di perangkat itu sudah diakhiri.")
OTHER_SESSIONS_ENDED = _("Anda telah keluar dari semua perangkat lain.")
REAUTH_DONE = _("Terima kasih, identitas Anda sudah dikonfirmasi. Silakan lanjutkan.")
TICKET_HAS_NO_DEVICE = _("Tiket ini tidak membawa ID perangkat.")
TICKET_DEVICE_BLOCK_REASON = _("Perangkat dari tiket {ticket}")
SCHEMA_BEHIND = _("Layanan sedang diperbarui. Silakan coba lagi sebentar lagi.")
HASHING_BUSY = _("Layanan sedang sibuk memeriksa kata sandi. Silakan coba lagi sebentar lagi.")
NOTICE_LOCKED_SUBJECT = _("Banyak percobaan masuk yang salah ke akun Anda")
NOTICE_LOCKED = (_("Ada banyak kata sandi atau kode yang salah untuk akun Anda dari perangkat yang tidak dikenal, "
                 "jadi percobaan dari perangkat lain dihentikan sementara. Peramban yang pernah Anda pakai untuk "
                 "masuk tetap bisa masuk. Bila itu bukan Anda, ganti kata sandi Anda."))
REAUTH_NEEDED_API = (_("Konfirmasi ulang identitas Anda (kata sandi dan kode verifikasi) di halaman akun /akun, "
                     "lalu coba lagi."))
# Ticket conversation and the administrators' desk
CONFIRMATION_MAIL_SUBJECT = _("Permohonan {ticket} diterima")
MESSAGE_MAIL_SUBJECT = _("Pesan administrator tentang permohonan {ticket}")
DIGEST_MAIL_SUBJECT = _("{count} permohonan baru menunggu peninjauan")
CONVERSATION_NOT_FOUND = _("Tautan tiket tidak ditemukan. Periksa kembali tautan dari e-mail Anda.")
CONVERSATION_CLOSED = _("Tiket ini sudah diputuskan; percakapan ditutup.")
REPLY_SENT = _("Jawaban Anda terkirim.")
ADMIN_MESSAGE_SENT = _("Pesan terkirim dan dikirim ke e-mail pemohon.")
ADMIN_NOTE_SAVED = _("Catatan internal disimpan.")
TICKET_CLAIMED = _("Tiket {ticket} Anda klaim.")
TICKET_CLAIMED_BY_OTHER = _("Tiket ini sudah diklaim oleh {admin}.")
TICKET_RELEASED = _("Klaim tiket {ticket} dilepas.")
TICKET_NOT_CLAIMED_BY_YOU = _("Tiket ini tidak sedang Anda klaim.")
TEMPLATE_NOT_FOUND = _("Templat tidak ditemukan.")
TEMPLATE_SAVED = _("Templat \"{title}\" disimpan.")
TEMPLATE_DELETED = _("Templat \"{title}\" dihapus.")
DIGEST_ON = _("Anda akan menerima e-mail saat ada permohonan baru.")
# Tickets grouped by their block, one decision for a group, the desk's service levels (contract section 18).
APPEAL_GROUP_LIFT_REASON = _("Kelompok banding {reference} disetujui")
GROUP_NOTHING_PENDING = _("Tidak ada tiket yang menunggu untuk blokir {reference}: kelompok ini sudah diputuskan. "
                          "Tidak ada tiket yang diputuskan.")
GROUP_BLOCK_ALREADY_LIFTED = _("Blokir {reference} sudah dibuka. Tidak ada tiket yang diputuskan; putuskan lagi tanpa "
                               "membuka blokir.")
GROUP_LIFT_ONLY_ON_APPROVAL = _("Blokir hanya dapat dibuka bersama persetujuan.")
GROUP_APPROVED = _("Tiket untuk blokir {reference} disetujui: {count}.")
GROUP_REJECTED = _("Tiket untuk blokir {reference} ditolak: {count}.")
DIGEST_OVERDUE = _("Tiket tertua sudah menunggu {age}, melewati target {hours} jam.")
DIGEST_OVERDUE_SUBJECT = _("Melewati target: tiket tertua menunggu {age}")
DIGEST_OFF = _("E-mail permohonan baru dimatikan.")
# Account recovery, the password rule and security notices
PASSWORD_IS_EMAIL = _("Kata sandi tidak boleh sama dengan alamat e-mail atau bagian sebelum tanda @.")
PASSWORD_TOO_COMMON = _("Kata sandi ini termasuk yang paling sering dipakai sehingga mudah ditebak. Pilih yang lain.")
RESET_REQUESTED = (_("Jika alamat itu terdaftar dan aktif, kami sudah mengirim tautan untuk mengatur ulang "
                   "kata sandi. Periksa kotak masuk Anda; tautan berlaku {minutes} menit dan hanya sekali pakai."))
RESET_MAIL_SUBJECT = _("Atur ulang kata sandi akun guardsvc Anda")
RESET_DONE = _("Kata sandi baru sudah disimpan. Silakan masuk dengan kata sandi baru.")
NOTICE_PASSWORD_CHANGED_SUBJECT = _("Pemberitahuan keamanan: kata sandi akun guardsvc Anda diganti")
NOTICE_PASSWORD_CHANGED = _("Kata sandi akun Anda baru saja diganti.")
NOTICE_PASSWORD_RESET_SUBJECT = _("Pemberitahuan keamanan: kata sandi akun guardsvc Anda diatur ulang")
NOTICE_PASSWORD_RESET = _("Kata sandi akun Anda baru saja diatur ulang melalui tautan lupa kata sandi.")
NOTICE_2FA_ON_SUBJECT = _("Pemberitahuan keamanan: verifikasi dua langkah diaktifkan")
NOTICE_2FA_ON = _("Verifikasi dua langkah baru saja diaktifkan untuk akun Anda.")
NOTICE_2FA_OFF_SUBJECT = _("Pemberitahuan keamanan: verifikasi dua langkah dinonaktifkan")
NOTICE_2FA_OFF = _("Verifikasi dua langkah baru saja dinonaktifkan untuk akun Anda.")
NOTICE_RECOVERY_CODES_SUBJECT = _("Pemberitahuan keamanan: kode pemulihan baru dibuat")
NOTICE_RECOVERY_CODES = _("Kode pemulihan baru baru saja dibuat untuk akun Anda; kode yang lama tidak berlaku lagi.")
NOTICE_TOKEN_SUBJECT = _("Pemberitahuan keamanan: token akses baru dibuat")
NOTICE_TOKEN = _("Token akses pribadi baru baru saja dibuat untuk akun Anda.")
NOTICE_TOKEN_NAME = _("Nama token")
NOTICE_TRUSTED_DEVICE_SUBJECT = _("Pemberitahuan keamanan: perangkat tepercaya baru")
NOTICE_TRUSTED_DEVICE = _("Sebuah perangkat baru saja ditambahkan sebagai perangkat tepercaya akun Anda.")
NOTICE_DEVICE_NAME = _("Nama perangkat")
NOTICE_DISABLED_SUBJECT = _("Pemberitahuan keamanan: akun guardsvc Anda dinonaktifkan")
NOTICE_DISABLED = (_("Akun Anda baru saja dinonaktifkan: semua sesi diakhiri dan semua token akses dicabut. "
                   "Hubungi administrator bila Anda merasa ini keliru."))
NOTICE_2FA_RESET_SUBJECT = _("Pemberitahuan keamanan: verifikasi dua langkah diatur ulang")
NOTICE_2FA_RESET = _("Verifikasi dua langkah akun Anda baru saja diatur ulang (dinonaktifkan) oleh administrator.")
NOTICE_BY_COMMAND_LINE = _("Administrator, melalui baris perintah")
# Exact approvals
TICKET_APPROVED_NOTHING_OPENED = _("Tiket {ticket} disetujui; tidak ada blokir yang perlu dibuka.")
TICKET_APPROVED_NOTHING_OPENED_EXPLAINED = (
    _("Permohonan Anda disetujui. Saat diputuskan, tidak ada blokir yang berlaku untuk alamat IP atau "
    "perangkat Anda, jadi tidak ada yang perlu dibuka.")
)
# Account throttles and second-step codes
SIGNIN_THROTTLED = _("Terlalu banyak percobaan masuk yang gagal untuk akun ini. Silakan coba lagi nanti.")
FIELD_BAD_CODE = _("Kode hanya berisi angka 0-9 (kode aplikasi) atau huruf, angka dan tanda hubung (kode pemulihan).")

# Passkeys (WebAuthn).
PASSKEY_REFUSED = _("Passkey tidak dapat diverifikasi. Silakan coba lagi.")
PASSKEY_UNKNOWN = (_("Passkey ini tidak dikenal: tidak terdaftar pada akun ini atau pada akun mana pun di layanan ini. "
                   "Masuk dengan e-mail dan kata sandi, lalu tambahkan passkey di halaman akun."))
PASSKEY_CHALLENGE_EXPIRED = _("Permintaan passkey sudah kedaluwarsa atau sudah dipakai. Silakan coba lagi.")
PASSKEY_SIGN_COUNT_BACK = (_("Passkey ini ditolak karena penghitung penggunaannya mundur; passkey itu mungkin telah "
                           "disalin. Pemilik akun sudah diberi tahu lewat e-mail."))
PASSKEY_ALREADY_ADDED = _("Passkey ini sudah terdaftar.")
PASSKEY_NONE = _("Akun ini belum memiliki passkey.")
PASSKEY_NOT_FOUND = _("Passkey tidak ditemukan.")
PASSKEY_ADDED = _("Passkey \"{name}\" berhasil ditambahkan.")
PASSKEY_REMOVED = _("Passkey \"{name}\" sudah dihapus.")
PASSKEY_RENAMED = _("Nama passkey sudah diubah.")
PASSKEY_MISSING = _("Tidak ada jawaban passkey. Aktifkan JavaScript lalu coba lagi, atau gunakan kode verifikasi.")
# The name of a passkey whose owner gave none: "Passkey 2".
DEFAULT_PASSKEY_NAME = _("Passkey {number}")
NOTICE_PASSKEY_ADDED_SUBJECT = _("Pemberitahuan keamanan: passkey baru ditambahkan")
NOTICE_PASSKEY_ADDED = _("Sebuah passkey baru saja ditambahkan ke akun Anda.")
NOTICE_PASSKEY_REMOVED_SUBJECT = _("Pemberitahuan keamanan: passkey dihapus")
NOTICE_PASSKEY_REMOVED = _("Sebuah passkey baru saja dihapus dari akun Anda.")
NOTICE_PASSKEY_COUNT_SUBJECT = _("Pemberitahuan keamanan: passkey Anda mungkin telah disalin")
NOTICE_PASSKEY_COUNT = (_("Sebuah upaya masuk dengan salah satu passkey Anda ditolak karena penghitung penggunaannya "
                        "mundur. Ini dapat berarti passkey itu telah disalin. Bila bukan Anda, hapus passkey itu "
                        "dari halaman akun dan ganti kata sandi Anda."))
NOTICE_PASSKEY_NAME = _("Nama passkey")

# The audit log in words: what each entry records (its action) ...
AUDIT_TICKET_APPROVED = _("Tiket disetujui")
AUDIT_TICKET_REJECTED = _("Tiket ditolak")
AUDIT_TICKET_CLAIMED = _("Tiket diklaim")
AUDIT_TICKET_RELEASED = _("Klaim dilepas")
AUDIT_TICKET_MESSAGE = _("Pesan ke pemohon")
AUDIT_TICKET_NOTE = _("Catatan internal")
AUDIT_BLOCK_CREATED = _("Blokir dibuat")
AUDIT_BLOCK_LIFTED = _("Blokir dibuka")
AUDIT_BLOCK_SELF_RELEASED = _("Dibuka sendiri oleh pengunjung")
AUDIT_BLOCKLIST_IMPORTED = _("Daftar blokir diimpor")
AUDIT_BLOCK_SELF_RELEASE_CHANGED = _("Izin buka sendiri diubah")
AUDIT_ALLOW_CREATED = _("Izin ditambahkan")
AUDIT_ALLOW_REMOVED = _("Izin dihapus")
AUDIT_USER_CREATED = _("Akun dibuat")
AUDIT_USER_ROLE_SET = _("Peran akun diubah")
AUDIT_USER_DISABLED = _("Akun dinonaktifkan")
AUDIT_USER_ENABLED = _("Akun diaktifkan kembali")
AUDIT_USER_PASSWORD_SET = _("Kata sandi diatur oleh administrator")
AUDIT_USER_2FA_RESET = _("Verifikasi dua langkah diatur ulang oleh administrator")
AUDIT_TOKEN_REVOKED = _("Token akses dicabut")
AUDIT_PASSKEY_ADDED = _("Passkey ditambahkan")
AUDIT_PASSKEY_REMOVED = _("Passkey dihapus")
AUDIT_PASSKEY_COUNT_BACK = _("Passkey ditolak: penghitungnya mundur")
AUDIT_PASSKEY_USED = _("Passkey dipakai")
AUDIT_SIGNIN_CODE_SENT = _("Kode masuk dikirim lewat e-mail")
AUDIT_SIGNIN_CODE_PASSED = _("Kode masuk dari e-mail dimasukkan dengan benar")
AUDIT_BREACHED_LOADED = _("Daftar kata sandi yang bocor dimuat")
# ... the names of its details ...
AUDIT_DETAILS = _("Rincian")
AUDIT_EMAIL = _("E-mail")
AUDIT_ROLE = _("Peran")
AUDIT_OLD = _("Sebelumnya")
AUDIT_NEW = _("Sekarang")
AUDIT_TOKENS_REVOKED = _("Token yang dicabut")
AUDIT_TOKEN_ID = _("Nomor token")
AUDIT_TOKEN_NAME = _("Nama token")
AUDIT_PASSKEY = _("Passkey")
AUDIT_PASSKEY_ID = _("Nomor passkey")
AUDIT_IMPORT_ADDED = _("Ditambahkan")
AUDIT_IMPORT_EXISTING = _("Sudah diblokir")
AUDIT_IMPORT_DUPLICATES = _("Ganda dalam daftar")
AUDIT_IMPORT_BAD_LINES = _("Baris salah (dilewati)")
AUDIT_IMPORT_LINES = _("Baris")
AUDIT_COUNT_STORED = _("Penghitung tersimpan")
AUDIT_COUNT_PRESENTED = _("Penghitung yang dikirim")
AUDIT_PURPOSE = _("Dipakai untuk")
AUDIT_NOTES = _("Catatan untuk pemohon")
AUDIT_LIFTED_BLOCKS = _("Blokir yang dibuka")
AUDIT_GROUP_DECIDED = _("Kelompok tiket diputuskan")
AUDIT_DECISION = _("Keputusan")
AUDIT_DECIDED = _("Tiket yang diputuskan")
AUDIT_LIFT_BLOCK = _("Blokir kelompok dibuka")
AUDIT_GROUP = _("Diputuskan bersama kelompok blokir")
AUDIT_ALLOW_ENTRIES = _("Izin yang ditambahkan")
AUDIT_SITE = _("Situs")
AUDIT_KIND = _("Sasaran")
AUDIT_NARROWED = _("Hanya untuk IP lokal tertentu")
AUDIT_REASON = _("Alasan")
AUDIT_EXPIRES = _("Berakhir")
AUDIT_ORIGIN = _("Asal")
AUDIT_RELEASE = _("Nomor pelepasan")
AUDIT_ALLOWED_UNTIL = _("Diizinkan sampai")
AUDIT_SELF_RELEASE = _("Boleh dibuka sendiri")
AUDIT_COUNTRY = _("Negara")
AUDIT_ENTRIES = _("Jumlah entri")
AUDIT_SOURCE = _("Sumber")
AUDIT_MIN_COUNT = _("Paling sedikit terlihat")
AUDIT_REASON_NEW_COUNTRY = _("Masuk dari negara baru")
AUDIT_REASON_FAST_TRAVEL = _("Perjalanan terlalu cepat sejak masuk sebelumnya")
# ... and its values.
AUDIT_YES = _("Ya")
AUDIT_NO = _("Tidak")
AUDIT_NONE = _("Tidak ada")
AUDIT_UNTIL_LIFTED = _("Sampai dibuka")
AUDIT_KIND_IP = _("Satu alamat IP")
AUDIT_KIND_CIDR = _("Rentang alamat IP")
AUDIT_KIND_DEVICE = _("Perangkat")
AUDIT_ROLE_USER = _("Pengguna")
AUDIT_ROLE_ADMIN = _("Administrator")
AUDIT_ROLE_SERVICE = _("Akun layanan")
AUDIT_PURPOSE_SECOND_FACTOR = _("Langkah kedua (masuk atau konfirmasi identitas)")
AUDIT_PURPOSE_PASSWORDLESS = _("Masuk tanpa kata sandi")
AUDIT_ALLOW_ENTRY = _("izin #{id}")
# Where a sign-in comes from (guardsvc.places), the e-mailed sign-in code, breached passwords.
PLACE_UNKNOWN = _("Tidak diketahui")
SIGNIN_ALERT_NEW_COUNTRY_SUBJECT = _("Peringatan keamanan: masuk dari negara baru ({place})")
EMAIL_CODE_SUBJECT = _("Kode untuk masuk ke guardsvc dari {place}")
EMAIL_CODE_SENT = _("Akun ini dimasuki dari tempat baru. Kami mengirim kode 8 angka ke alamat e-mail akun; "
                    "masukkan kode itu untuk menyelesaikan masuk (kolom email_code).")
EMAIL_CODE_RENEWED = _("Kode itu sudah tidak berlaku (waktunya habis atau terlalu banyak percobaan salah). "
                       "Kami mengirim kode baru ke alamat e-mail akun.")
EMAIL_CODE_WRONG = _("Kode dari e-mail salah.")
EMAIL_CODE_RESENT = _("Kode baru sudah dikirim. Kode sebelumnya tidak berlaku lagi.")
EMAIL_CODE_RESEND_WAIT = _("Kode terakhir dikirim kurang dari satu menit yang lalu. Tunggu sebentar, lalu minta "
                           "kode baru.")
FIELD_BAD_EMAIL_CODE = _("Kode dari e-mail terdiri dari 8 angka.")
PASSWORD_BREACHED = _("Kata sandi ini ada dalam daftar kata sandi yang bocor dari pelanggaran data, sehingga "
                      "penyerang mencobanya lebih dulu. Pilih yang lain.")
PASSWORD_BREACHED_AT_SIGNIN = _("Kata sandi Anda ada dalam daftar kata sandi yang bocor dari pelanggaran data. "
                                "Ganti sekarang, sebelum orang lain memakainya.")
