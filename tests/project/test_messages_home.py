"""Every Indonesian sentence in the Python code lives in guardsvc/messages.py."""
import ast
import re
from pathlib import Path

SOURCE = Path(__file__).resolve().parents[2] / "guardsvc"
# The API document's own descriptions (like a template's page text) stay with the document: the
# openapi package, a view's declaration (``@operation(...)`` and the vocabulary it uses), the
# ``metadata=`` of a schema field, a field's ``json_schema()`` and the ``*_DESCRIPTION`` texts it uses.
DOCUMENT_PREFIX = "openapi"
DOCUMENT_CALLS = {"operation", "Operation", "Tag", "Failure", "PathParam", "Envelope", "Link"}
# Words that mark a text as Indonesian and never occur in the English of code, logs and the CLI.
INDONESIAN = {
    "yang", "tidak", "dan", "dari", "untuk", "dengan", "anda", "ini", "itu", "sudah", "belum",
    "harus", "wajib", "berhasil", "gagal", "perangkat", "blokir", "banding", "tiket", "akun",
    "masuk", "kata", "sandi", "disetujui", "ditolak", "menunggu", "diketahui", "dikenali", "nomor",
    "alasan", "kolom", "dikenal", "akses", "alamat", "verifikasi", "langkah", "keputusan",
    "peringatan", "keamanan", "baru", "atau", "silakan", "mohon", "di", "ke", "kode",
}


def _docstrings(tree):
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                yield first.value


def _document_texts(tree):
    """The nodes under a call of the document's vocabulary, a ``metadata=`` argument, a field's
    ``json_schema`` or a ``*_DESCRIPTION`` constant."""
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == "json_schema":
            yield from ast.walk(node)
        elif isinstance(node, ast.Assign) and any(isinstance(target, ast.Name) and target.id.endswith("_DESCRIPTION")
                                                  for target in node.targets):
            yield from ast.walk(node.value)
        elif isinstance(node, ast.Call):
            name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
            roots = [node] if name in DOCUMENT_CALLS else [
                keyword.value for keyword in node.keywords if keyword.arg == "metadata"]
            for root in roots:
                yield from ast.walk(root)


def _texts(tree):
    """Every string literal and the literal parts of every f-string, docstrings and the API document's
    descriptions left out."""
    skip = {id(node) for node in _docstrings(tree)} | {id(node) for node in _document_texts(tree)}
    parts_of_fstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            parts = [value for value in node.values if isinstance(value, ast.Constant)]
            parts_of_fstrings.update(id(part) for part in parts)
            yield node.lineno, "".join(part.value for part in parts)
    for node in ast.walk(tree):
        if (isinstance(node, ast.Constant) and isinstance(node.value, str)
                and id(node) not in skip and id(node) not in parts_of_fstrings):
            yield node.lineno, node.value


def looks_indonesian(text):
    """Words apart (URL rules and identifiers have no spaces) and at least one Indonesian one."""
    words = [word.lower() for word in re.findall(r"[A-Za-z]+", text)]
    return " " in text.strip() and any(word in INDONESIAN for word in words)


def sentences_outside_messages(source=SOURCE):
    found = []
    for path in sorted(source.rglob("*.py")):
        name = path.relative_to(source).as_posix()
        if name == "messages.py" or name.startswith(DOCUMENT_PREFIX + "/") or Path(name).name.startswith(DOCUMENT_PREFIX):
            continue
        for line, text in _texts(ast.parse(path.read_text(encoding="utf-8"))):
            if looks_indonesian(text):
                found.append(f"{name}:{line}: {text!r}")
    return found


def test_no_indonesian_sentence_outside_messages():
    assert sentences_outside_messages() == []


def test_the_check_finds_a_sentence_written_in_a_door(tmp_path):
    (tmp_path / "views.py").write_text(
        '"""Docstrings may say anything: yang tidak."""\n'
        'LOG = "could not load the user"\n'
        'def reason(reference):\n'
        '    return f"Nomor referensi blokir: {reference}"\n')
    assert sentences_outside_messages(tmp_path) == ["views.py:4: 'Nomor referensi blokir: '"]


def test_the_api_document_says_its_own_descriptions(tmp_path):
    (tmp_path / "api.py").write_text(
        'TAG = Tag("Banding", "Permohonan pembukaan blokir.")\n'
        '@operation("checkTicket", "Cek status tiket", TAG, {}, errors={404: "Nomor tiket tidak ditemukan."})\n'
        'def check():\n'
        '    return "Tiket tidak ditemukan di sini."\n')
    assert sentences_outside_messages(tmp_path) == ["api.py:4: 'Tiket tidak ditemukan di sini.'"]


def test_the_messages_module_reads_as_indonesian():
    from flask_babel.speaklater import LazyString

    from guardsvc import messages

    # Outside a request a message id reads as its source text: Indonesian.
    texts = [str(value) for name, value in vars(messages).items() if name.isupper() and isinstance(value, LazyString)]
    assert len(texts) > 150
    assert sum(looks_indonesian(text) for text in texts) > len(texts) * 0.8
