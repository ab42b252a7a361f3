"""The shipped nginx files with their placeholders filled, for the suite and the benchmarks.

nginx.conf is written the way an operator assembles it: guardsvc-main.conf in
the main context (the Lua module), guardsvc-http.conf in ``http``, the site
file in a ``server``, and guardsvc_edge.lua copied into the @STATE@ folder.
"""
import os
import shutil
import textwrap
from pathlib import Path

NGINX = Path("/usr/sbin/nginx")
LUA_MODULE = Path("/usr/lib/nginx/modules/ngx_http_lua_module.so")
ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy" / "nginx"
EDGE_LOG = '$remote_addr "$request" $status $pid $guardsvc_judged'


def missing():
    """Why nginx with Lua cannot run here, or None."""
    if not NGINX.exists():
        return f"{NGINX} is not installed"
    if not LUA_MODULE.exists():
        return f"{LUA_MODULE} is not installed (libnginx-mod-http-lua)"
    return None


def fill(text, values):
    for placeholder, value in values.items():
        text = text.replace(placeholder, value)
    return text


def nginx_conf(prefix, *, port, guardsvc, app, secret, workers=0, site_changes=(), http_changes=(), http_extra="",
               edge_module=True):
    """The whole nginx.conf under ``prefix`` (a folder of its own); ``workers=0``: one process, no master.

    ``site_changes`` and ``http_changes`` are (old, new) replacements made in the site file and in
    guardsvc-http.conf; ``http_extra`` is more of the http context (a server of the test's own);
    ``edge_module=False``: an operator who did not copy guardsvc_edge.lua into @STATE@.
    """
    prefix = Path(prefix)
    state = prefix / "state"
    state.mkdir(exist_ok=True)
    if edge_module:
        shutil.copy(DEPLOY / "guardsvc_edge.lua", state / "guardsvc_edge.lua")
    values = {"@LISTEN@": f"127.0.0.1:{port}", "@GUARDSVC@": guardsvc, "@APP@": app, "@SECRET@": secret,
              "@STATE@": str(state)}
    site = _changed(fill((DEPLOY / "guardsvc.conf").read_text(), values), site_changes)
    http = _changed(fill((DEPLOY / "guardsvc-http.conf").read_text(), values), http_changes)
    temp = "\n".join(f"{name}_temp_path {prefix}/{name};"
                     for name in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    processes = "master_process off;" if not workers else f"worker_processes {workers};"
    if workers and os.geteuid() == 0:
        # Workers would run as "nobody", who cannot read the test's private temporary folder.
        processes += "\nuser root;"
    return "\n".join([
        fill((DEPLOY / "guardsvc-main.conf").read_text(), values),
        textwrap.dedent(f"""\
            daemon off;
            {processes}
            pid {prefix}/nginx.pid;
            error_log {prefix}/error.log warn;
            events {{ worker_connections 1024; }}
            http {{
            log_format guardsvc_edge '{EDGE_LOG}';
            access_log {prefix}/access.log guardsvc_edge;
            """),
        temp, http_extra,
        http, site, "}", ""])


def _changed(text, changes):
    for old, new in changes:
        assert old in text, old
        text = text.replace(old, new)
    return text
