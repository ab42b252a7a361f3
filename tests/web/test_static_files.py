"""Static files: fingerprinted URLs from their content, kept for a year; any other URL revalidates."""
import hashlib
import re
from pathlib import Path

from guardsvc.web.static_files import IMMUTABLE, fingerprints

STATIC = Path(__file__).resolve().parents[2] / "static"


def content_hash(path):
    return hashlib.sha256((STATIC / path).read_bytes()).hexdigest()[:12]


def test_pages_name_each_static_file_by_the_hash_of_its_content(client):
    html = client.get("/banding").get_data(as_text=True)
    for path in ("css/site.css", "js/site.js", "js/passkeys.js"):
        assert f'/static/{path}?v={content_hash(path)}"' in html


def test_a_fingerprinted_url_is_kept_for_a_year_without_asking_again(client):
    html = client.get("/").get_data(as_text=True)
    url = re.search(r'href="(/static/css/site\.css\?v=[0-9a-f]+)"', html).group(1)
    response = client.get(url)
    assert response.status_code == 200 and response.headers["Cache-Control"] == IMMUTABLE
    assert response.get_data() == (STATIC / "css/site.css").read_bytes()
    # No words in it: a cookie the first page set must not make the browser fetch it again.
    assert "Vary" not in response.headers


def test_any_other_url_of_a_static_file_is_revalidated(client):
    for url in ("/static/css/site.css", "/static/css/site.css?v=000000000000", "/static/js/site.js?v="):
        response = client.get(url)
        assert response.status_code == 200
        assert "immutable" not in response.headers["Cache-Control"]
        assert "no-cache" in response.headers["Cache-Control"] and response.headers.get("ETag")


def test_a_revalidation_of_the_fingerprinted_url_stays_immutable(client):
    url = f"/static/js/site.js?v={content_hash('js/site.js')}"
    etag = client.get(url).headers["ETag"]
    again = client.get(url, headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.headers["Cache-Control"] == IMMUTABLE


def test_fingerprints_are_read_from_whatever_folder_holds_the_files(tmp_path):
    (tmp_path / "css").mkdir()
    (tmp_path / "css" / "a.css").write_text("body { color: red }")
    (tmp_path / "b.js").write_text("1")
    found = fingerprints(str(tmp_path))
    assert found == {"b.js": hashlib.sha256(b"1").hexdigest()[:12],
                     "css/a.css": hashlib.sha256(b"body { color: red }").hexdigest()[:12]}
    (tmp_path / "b.js").write_text("2")
    assert fingerprints(str(tmp_path))["b.js"] != found["b.js"]
    assert fingerprints(str(tmp_path / "missing")) == {}
