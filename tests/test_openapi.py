"""The API document: valid OpenAPI 3, complete, and true to what the server answers."""
import re
import subprocess
import sys
from pathlib import Path

import pytest
from openapi_spec_validator import validate


def test_document_is_valid_openapi(client):
    document = client.get("/api/openapi.json").get_json()
    validate(document)
    assert document["openapi"].startswith("3.")


def _template(path):
    """``/x/<int(max=9):id>/y`` and ``/x/{id}/y`` both become ``/x/{}/y``."""
    return re.sub(r"\{[^}]+\}", "{}", re.sub(r"<[^>]+>", "{}", path))


def test_every_json_route_is_documented(app, client):
    documented = {_template(path): {m.upper() for m in ops}
                  for path, ops in client.get("/api/openapi.json").get_json()["paths"].items()}
    for rule in app.url_map.iter_rules():
        if rule.rule.startswith("/api/") and rule.rule != "/api/openapi.json":
            methods = rule.methods - {"HEAD", "OPTIONS"}
            assert methods <= documented.get(_template(rule.rule), set()), f"{rule.rule} {methods} undocumented"


@pytest.mark.live
def test_schemathesis_finds_no_server_error_and_no_mismatch(live_server, bearer, tmp_path):
    _, headers = bearer("admin")
    checks = ",".join(["not_a_server_error", "status_code_conformance", "content_type_conformance",
                       "response_schema_conformance", "response_headers_conformance"])
    command = [str(Path(sys.executable).with_name("schemathesis")), "run", f"{live_server.url}/api/openapi.json",
               "--checks", checks, "--max-examples", "25", "--seed", "20261122", "--no-color",
               "--header", f"Authorization: {headers['Authorization']}", "--report-dir", str(tmp_path)]
    result = subprocess.run(command, capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-2000:]
