"""An authenticated commons, on both engines, and the file modes that keep a home private.

doltlite: the engine's own server with TLS, an auth-keys folder and an audience; agents
push with their credential (cmem credential --export). Dolt: a sql-server whose remotesapi
asks for a Dolt user; the managed server has a generated root password.
"""

from __future__ import annotations

import datetime as dt
import json
import ipaddress
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from collective.agent import Agent
from collective.cli import cli
from collective.errors import BadInput, CommonsRefused, RemoteUnreachable, ServerUnreachable
from collective.store.commons_server import CommonsServer
from collective.store.credentials import CREDS_DIR
from collective.store.dolt_process import ManagedDoltServer
from collective.store.doltserver import ServerAddress, connect


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def tls_pair(tmp_path, monkeypatch):
    """A self-signed certificate for 127.0.0.1 and its key; clients trust it (DOLTLITE_CA_FILE)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = dt.datetime.now(dt.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - dt.timedelta(minutes=5)).not_valid_after(now + dt.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                           critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    cert_file, key_file = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    monkeypatch.setenv("DOLTLITE_CA_FILE", str(cert_file))
    return cert_file, key_file


@pytest.fixture
def locked_commons(tmp_path, tls_pair):
    """doltlite's server over https, answering only credentials in its auth-keys folder."""
    served, keys = tmp_path / "served", tmp_path / "auth-keys"
    served.mkdir()
    keys.mkdir()
    cert, key = tls_pair
    with CommonsServer(served, cert=cert, key=key, auth_keys=keys, audience="127.0.0.1",
                        allow_create=True) as server:
        yield server


def test_a_push_needs_a_credential_the_commons_knows(home, hash_embedder, locked_commons):
    url = locked_commons.url_for("commons.db")
    assert url.startswith("https://")
    with Agent.init("earth-1", home=home, embedder=hash_embedder) as earth, \
            Agent.init("mars-1", home=home, embedder=hash_embedder) as mars:
        for agent in (earth, mars):
            agent.add_remote("origin", url)
            agent.store(f"{agent.agent_id} saw the dust storm reach the ridge")
        with pytest.raises(CommonsRefused) as refused:  # earth-1 has a credential, not authorised yet
            earth.push()
        assert refused.value.remote == "origin" and "cmem credential --export" in str(refused.value)
        earth.credential(export_to=locked_commons.auth_keys)
        earth.push()
        with pytest.raises(CommonsRefused):  # mars-1 is not authorised: it can neither read ...
            mars.pull()
        with pytest.raises(CommonsRefused):  # ... nor write
            mars.push()
        assert mars.repo.count("memories") == 1

        mars.credential(export_to=locked_commons.auth_keys)
        mars.push()
        assert mars.pull()["peers"][0]["peer"] == "earth-1"
        assert mars.repo.count("memories") == 2


def test_without_any_credential_the_server_refuses_and_the_cli_says_so(home, hash_embedder, locked_commons, cmem):
    with Agent.init("earth-1", home=home, embedder=hash_embedder) as earth:
        earth.add_remote("origin", locked_commons.url_for("commons.db"))
        earth.store("The rover's left wheel motor draws too much current")
        folder = Path(earth.credential()["folder"])
    for file in folder.iterdir():  # an agent made before credentials existed
        file.unlink()
    folder.rmdir()
    result = cmem("push", "--agent", "earth-1")
    assert result.exit_code == 1
    assert "refused this agent" in result.output and "Traceback" not in result.output
    assert not list((locked_commons.folder).glob("*.db"))  # nothing was written


def test_the_engine_cannot_keep_an_authorised_agent_off_another_agents_branch(home, hash_embedder, locked_commons):
    """What is and is not enforced: the doltlite server checks who may use the commons at all,
    not which branches each credential writes. A pull trusts a peer's rows only when signed
    by that peer's key, so another agent can overwrite the branch but not speak for its owner."""
    with Agent.init("earth-1", home=home, embedder=hash_embedder) as earth, \
            Agent.init("mars-1", home=home, embedder=hash_embedder) as mars:
        for agent in (earth, mars):
            agent.add_remote("origin", locked_commons.url_for("commons.db"))
            agent.credential(export_to=locked_commons.auth_keys)
        earth.store("Ridge survey done")
        earth.push()
        mars.store("Mars' own note")
        mars.repo.create_branch("earth-1/working", start=mars.branch)
        mars.repo.push("origin", "earth-1/working", force=True)  # accepted: the engine has no branch rules
        assert mars.repo.fetch("origin")["earth-1/working"] == mars.repo.head(mars.branch)


def test_credential_files_are_private_and_only_the_public_half_is_exported(home, hash_embedder, tmp_path):
    keys = tmp_path / "keys"
    keys.mkdir()
    with Agent.init("earth-1", home=home, embedder=hash_embedder) as earth:
        made = earth.credential()
        exported = earth.credential(export_to=keys)
    assert made["id"] == exported["id"] and made["exported_to"] is None
    creds = home / "agents" / "earth-1" / CREDS_DIR
    assert mode(creds) == 0o700
    assert [mode(f) for f in creds.iterdir()] == [0o600]
    public = Path(exported["exported_to"]).read_text()
    assert '"x"' in public and '"d"' not in public  # the private seed stays home
    with pytest.raises(BadInput):
        earth_again = Agent.open("earth-1", home=home, embedder=hash_embedder)
        try:
            earth_again.credential(export_to=tmp_path / "missing")
        finally:
            earth_again.close()


@pytest.mark.parametrize("options, field", [
    ({"auth_keys": "KEYS", "audience": "127.0.0.1"}, "auth-keys"),  # credentials need https
    ({"cert": "CERT"}, "cert"),
    ({"auth_keys": "KEYS", "cert": "CERT", "key": "KEY"}, "audience"),
])
def test_serve_options_that_do_not_go_together_are_bad_input(tmp_path, tls_pair, options, field):
    cert, key = tls_pair
    (tmp_path / "keys").mkdir()
    given = {"KEYS": tmp_path / "keys", "CERT": cert, "KEY": key}
    with pytest.raises(BadInput) as e:
        CommonsServer(tmp_path, **{k: given.get(v, v) for k, v in options.items()})
    assert e.value.field == field


def test_serve_commons_with_auth_keys_but_no_tls_exits_2(tmp_path):
    result = CliRunner().invoke(cli, ["serve-commons", str(tmp_path), "--auth-keys", str(tmp_path),
                                      "--audience", "127.0.0.1"])
    assert result.exit_code == 2 and "https" in result.output


def test_a_new_home_is_private(tmp_path, hash_embedder):
    home = tmp_path / "new" / "home"
    with Agent.init("earth-1", home=home, embedder=hash_embedder):
        pass
    folder = home / "agents" / "earth-1"
    assert [mode(p) for p in (tmp_path / "new", home, home / "agents", folder)] == [0o700] * 4
    assert mode(folder / "memory.db") == 0o600
    assert mode(folder / "ed25519.pem") == 0o600


def test_an_existing_home_keeps_working(home, hash_embedder):
    home.chmod(0o755)  # made before homes were private
    with Agent.init("earth-1", home=home, embedder=hash_embedder) as earth:
        earth.store("the old home still opens")
    (home / "agents" / "earth-1" / "memory.db").chmod(0o644)
    with Agent.open("earth-1", home=home, embedder=hash_embedder) as earth:
        assert earth.repo.count("memories") == 1


# --- Dolt ---------------------------------------------------------------------------


def test_the_managed_dolt_server_refuses_root_without_its_password(tmp_path, dolt_binary):
    server = ManagedDoltServer(tmp_path / "home" / "dolt-server")
    try:
        port = server.ensure_running()
        with pytest.raises(ServerUnreachable, match="Access denied"):
            connect(ServerAddress("127.0.0.1", port, "root", "", "mysql"))
        connect(server.address("mysql")).close()
        assert len(server.root_password()) >= 32
        assert mode(server.password_file) == 0o600 and mode(server.folder) == 0o700
        server.stop()
        password = server.root_password()
        server.ensure_running()  # a restart keeps the password
        assert server.root_password() == password
        connect(server.address("mysql")).close()
    finally:
        server.stop()


def test_a_dolt_commons_refuses_a_push_without_a_dolt_user(tmp_path, dolt_server, monkeypatch, hash_embedder,
                                                          remotesapi_commons_at):
    monkeypatch.setenv("CMEM_DOLT_SERVER", dolt_server)
    with remotesapi_commons_at(tmp_path / "commons-server") as url, \
            Agent.init("earth-1", home=tmp_path / "home", backend="dolt", embedder=hash_embedder) as earth:
        anonymous = "http://" + url.split("@", 1)[1]
        earth.add_remote("anonymous", anonymous)
        earth.add_remote("origin", url)
        earth.store("Dust on the solar array cut output by a fifth")
        with pytest.raises(CommonsRefused):
            earth.push("anonymous")
        earth.push("origin")
        assert "earth-1/working" in earth.repo.fetch("origin")


def test_dolt_grants_cannot_keep_a_commons_user_off_another_agents_branch(tmp_path, dolt_server, monkeypatch,
                                                                         hash_embedder, remotesapi_commons_at):
    """Pushing through remotesapi takes a superuser, and Dolt's branch permissions
    (dolt_branch_control) were measured not to hold a push back: as on doltlite, the
    server decides who may use the commons, the row signatures who speaks for whom."""
    monkeypatch.setenv("CMEM_DOLT_SERVER", dolt_server)
    with remotesapi_commons_at(tmp_path / "commons-server") as url, \
            Agent.init("mars-1", home=tmp_path / "home", backend="dolt", embedder=hash_embedder) as mars:
        mars.add_remote("origin", url)
        mars.store("Mars' own note")
        mars.repo.create_branch("earth-1/working", start=mars.branch)
        mars.repo.push("origin", "earth-1/working")
        assert mars.repo.fetch("origin")["earth-1/working"] == mars.repo.head(mars.branch)


def test_a_managed_server_made_before_passwords_gets_one_on_its_next_start(tmp_path, dolt_binary, monkeypatch):
    server = ManagedDoltServer(tmp_path / "home" / "dolt-server")
    try:
        with monkeypatch.context() as old:  # as before: root without a password, a user made since
            old.setattr(ManagedDoltServer, "root_password", lambda self: "")
            port = server.ensure_running()
            connect(ServerAddress("127.0.0.1", port, "root", "", "mysql")).close()
            server.add_user("someone", "their-password")
            server.stop()
        port = server.ensure_running()
        with pytest.raises(ServerUnreachable, match="Access denied"):
            connect(ServerAddress("127.0.0.1", port, "root", "", "mysql"))
        connect(server.address("mysql")).close()
    finally:
        server.stop()


def test_cmem_credential_exports_for_doltlite_and_explains_itself_for_dolt(tmp_path, home, cmem, dolt_server,
                                                                          monkeypatch):
    keys = tmp_path / "keys"
    keys.mkdir()
    assert cmem("init", "--agent", "earth-1").exit_code == 0
    result = cmem("credential", "--agent", "earth-1", "--export", str(keys), "--json")
    assert result.exit_code == 0
    assert [p.name for p in keys.iterdir()] == [Path(json.loads(result.output)["exported_to"]).name]
    monkeypatch.setenv("CMEM_DOLT_SERVER", dolt_server)
    assert cmem("init", "--agent", "mars-1", "--backend", "dolt").exit_code == 0
    assert mode(home / "agents" / "mars-1" / "backend.json") == 0o600  # it names the server, password and all
    result = cmem("credential", "--agent", "mars-1")
    assert result.exit_code == 2 and "DOLT_REMOTE_PASSWORD" in result.output


def test_an_untrusted_certificate_is_named_in_the_error(home, hash_embedder, locked_commons, monkeypatch):
    monkeypatch.delenv("DOLTLITE_CA_FILE")
    with Agent.init("earth-1", home=home, embedder=hash_embedder) as earth:
        earth.add_remote("origin", locked_commons.url_for("commons.db"))
        earth.credential(export_to=locked_commons.auth_keys)
        earth.store("A note that stays home")
        with pytest.raises(RemoteUnreachable, match="DOLTLITE_CA_FILE"):
            earth.push()


def test_serve_commons_with_tls_and_auth_keys_from_the_cli(tmp_path, home, hash_embedder, tls_pair):
    served, keys = tmp_path / "served", tmp_path / "keys"
    served.mkdir()
    keys.mkdir()
    cert, key = tls_pair
    server = subprocess.Popen([sys.executable, "-m", "collective.cli", "serve-commons", str(served), "--json",
                               "--cert", str(cert), "--key", str(key), "--auth-keys", str(keys),
                               "--audience", "127.0.0.1", "--allow-create"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        started = json.loads(server.stdout.readline())
        assert started["url"].startswith("https://127.0.0.1:") and started["authenticated"] is True
        with Agent.init("earth-1", home=home, embedder=hash_embedder) as earth:
            earth.add_remote("origin", f"{started['url']}/commons.db")
            earth.store("served through an authenticated commons")
            with pytest.raises(CommonsRefused):
                earth.push()
            earth.credential(export_to=keys)
            earth.push()
        assert (served / "commons.db").read_bytes()[:4] == b"CTLD"
    finally:
        server.send_signal(signal.SIGINT)
        server.communicate(timeout=30)
    assert server.returncode == 0
