"""The package as a user installs it: the wheel built from this checkout,
installed offline into a fresh venv, and `cmem` run from outside the checkout
with empty HOME and caches, so only what the wheel ships can help.

The fresh venv gets the project's dependencies, not by downloading them, but
through a .pth line naming this interpreter's site-packages: plain path lines
are appended after the venv's own site-packages, so the wheel's `collective`
is imported, not the editable checkout (checked below).

dream/, sync/ and schema/ install inside collective (setup.py): `collective` is
the only top-level name in site-packages, so a PyPI library named `schema` (or
`sync`) installs beside this one and neither breaks the other.
"""

from __future__ import annotations

import fnmatch
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import textwrap
import venv
import zipfile
from pathlib import Path

import pytest

pytestmark = [pytest.mark.wheel, pytest.mark.heavy]

ROOT = Path(__file__).resolve().parents[2]
# repository folder -> its place in the wheel (setup.py's FOLDERS)
SOURCE_DIRS = {"collective": "collective", "dream": "collective/dream", "sync": "collective/sync",
               "schema": "collective/schema"}
MAX_WHEEL_BYTES = 30_000_000  # the int8 cross-encoder is ~21 MB zipped, the tokenizer ~0.5 MB; the rest is source


def _copy_ignore(folder: str, names: list[str]) -> set[str]:
    # Root: caches, venvs, tools and old build output (a stale build/lib would put
    # deleted modules back in the wheel). Anywhere: bytecode and egg-info.
    skipped = {n for n in names if fnmatch.fnmatch(n, "__pycache__") or n.endswith((".egg-info", ".db-lock"))}
    if Path(folder) == ROOT:
        skipped |= {n for n in names if n.startswith(".") or n in ("build", "dist", "demo-home")}
    return skipped


def _run(args: list, *, env: dict[str, str] | None = None, cwd: Path | None = None,
         timeout: float = 300) -> subprocess.CompletedProcess:
    done = subprocess.run([str(a) for a in args], env=env, cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, check=False)
    assert done.returncode == 0, f"{args} exited {done.returncode}\nstdout:\n{done.stdout}\nstderr:\n{done.stderr}"
    return done


def _offline_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("CMEM_", "PIP_", "PYTHON")) and k not in ("VIRTUAL_ENV", "XDG_CACHE_HOME")}
    env["PIP_NO_INDEX"] = "1"  # pip never asks an index: everything is local
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env.update(extra)
    return env


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    # Built from a copy so the build leaves nothing (build/, *.egg-info) in the checkout.
    src = tmp_path_factory.mktemp("src") / "collective-memory"
    shutil.copytree(ROOT, src, ignore=_copy_ignore)
    out = tmp_path_factory.mktemp("dist")
    _run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation",
          "--no-index", "--wheel-dir", out, src], env=_offline_env(), cwd=src, timeout=600)
    (built,) = out.glob("*.whl")
    return built


def test_wheel_ships_every_module_and_data_file(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = set()
    for top, installed in SOURCE_DIRS.items():
        for path in (ROOT / top).rglob("*"):
            if path.suffix in (".py", ".sql", ".html") and "__pycache__" not in path.parts:
                expected.add(f"{installed}/{path.relative_to(ROOT / top).as_posix()}")
    expected |= {f"collective/embed_data/{n}" for n in ("tokenizer.json", "NOTICE", "LICENSE")}
    expected |= {f"collective/judge/judge_data/{n}" for n in ("cross_encoder.onnx", "cascade.json", "combiner.json", "NOTICE")}
    assert sorted(expected - names) == []
    # every subpackage of collective/, however many there are by now
    subpackages = {p.name for p in (ROOT / "collective").iterdir() if p.is_dir() and any(p.glob("*.py"))}
    assert {n.split("/")[1] for n in names if n.startswith("collective/") and n.count("/") >= 2} >= subpackages
    entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    assert "cmem = collective.cli:main" in zipfile.ZipFile(wheel).read(entry_points).decode()
    assert wheel.stat().st_size < MAX_WHEEL_BYTES, f"{wheel.name} is {wheel.stat().st_size} bytes"


def _fresh_venv(fresh: Path, *wheels: Path) -> Path:
    """A new venv with `wheels` installed in that order and the project's dependencies
    reachable (see the module's docstring); its python."""
    venv.EnvBuilder(with_pip=True, symlinks=True).create(fresh)  # pip comes from ensurepip, offline
    py = fresh / "bin" / "python"
    for built in wheels:
        _run([py, "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", built], env=_offline_env())
    site = Path(_run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                     env=_offline_env()).stdout.strip())
    deps = dict.fromkeys(sysconfig.get_paths()[k] for k in ("purelib", "platlib"))
    (site / "project-deps.pth").write_text("".join(f"{p}\n" for p in deps))
    return py


def test_installed_cmem_stores_and_recalls_offline(wheel, tmp_path):
    fresh = tmp_path / "venv"
    py, cmem = _fresh_venv(fresh, wheel), fresh / "bin" / "cmem"

    work, home, cache = tmp_path / "work", tmp_path / "home", tmp_path / "cache"
    for d in (work, home, cache):
        d.mkdir()
    assert not work.resolve().is_relative_to(ROOT)
    env = _offline_env(HOME=str(home), XDG_CACHE_HOME=str(cache), CMEM_HOME=str(tmp_path / "cmem-home"),
                       PATH=f"{fresh / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}")

    where = json.loads(_run([py, "-c", "import json, collective, collective.embedders as e; "
                                       "print(json.dumps([collective.__file__, str(e.tokenizer_path())]))"],
                            env=env, cwd=work).stdout)
    for path in where:
        assert Path(path).resolve().is_relative_to(fresh.resolve()), where

    _run([cmem, "init", "--agent", "w1"], env=env, cwd=work)
    _run([cmem, "store", "Rover 5 battery was replaced on Tuesday"], env=env, cwd=work)
    stored = json.loads(_run([cmem, "store", "The coolant pump in module C is safe to operate", "--json"],
                             env=env, cwd=work).stdout)
    _run([cmem, "store", "Solar array B produced 41 kWh yesterday"], env=env, cwd=work)
    hits = json.loads(_run([cmem, "recall", "is the pump safe?", "--json"], env=env, cwd=work).stdout)["hits"]
    assert hits and hits[0]["id"] == stored["id"], hits
    assert hits[0]["content"] == "The coolant pump in module C is safe to operate"
    assert not [*home.rglob("tokenizer.json"), *cache.rglob("tokenizer.json")]



@pytest.fixture(scope="module")
def library_named_schema(tmp_path_factory) -> Path:
    """A wheel of another project whose top-level name is `schema`, like PyPI's: built here,
    offline, so the test needs no index."""
    src = tmp_path_factory.mktemp("other") / "schema"
    (src / "schema").mkdir(parents=True)
    (src / "schema" / "__init__.py").write_text("class Schema:\n    pass\n")
    (src / "pyproject.toml").write_text(textwrap.dedent("""\
        [build-system]
        requires = ["setuptools"]
        build-backend = "setuptools.build_meta"

        [project]
        name = "schema"
        version = "0.7.7"

        [tool.setuptools]
        packages = ["schema"]
        """))
    out = tmp_path_factory.mktemp("other-dist")
    _run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "--no-index",
          "--wheel-dir", out, src], env=_offline_env(), cwd=src)
    (built,) = out.glob("*.whl")
    return built


def test_wheel_puts_only_collective_at_the_top_level(wheel):
    dist_info = "collective_memory-0.1.0.dist-info"
    with zipfile.ZipFile(wheel) as z:
        record = [line.split(",")[0] for line in z.read(f"{dist_info}/RECORD").decode().splitlines() if line]
        assert z.read(f"{dist_info}/top_level.txt").decode().split() == ["collective"]
    assert {path.split("/")[0] for path in record} == {"collective", dist_info}


def test_wheel_installs_beside_a_library_named_schema(wheel, library_named_schema, tmp_path):
    """The other library first, then this project: neither replaces the other's files."""
    fresh = tmp_path / "venv"
    py = _fresh_venv(fresh, library_named_schema, wheel)
    env = _offline_env(HOME=str(tmp_path), CMEM_HOME=str(tmp_path / "cmem-home"))
    found = json.loads(_run([py, "-c", textwrap.dedent("""\
        import json
        from schema import Schema
        import collective.schema, schema
        from collective.store.sql import migrations
        print(json.dumps({"schema": schema.__file__, "ours": collective.schema.__file__,
                          "migrations": [len(migrations("sqlite")), len(migrations("mysql"))]}))
        """)], env=env, cwd=tmp_path).stdout)
    for name in ("schema", "ours"):
        assert Path(found[name]).resolve().is_relative_to(fresh.resolve()), found
    assert Path(found["schema"]).parent.name == "schema" and Path(found["ours"]).parent.parent.name == "collective"
    assert found["migrations"] == [len(list((ROOT / "schema" / d).glob("*.sql"))) for d in ("sqlite", "mysql")]
    assert 0 not in found["migrations"]
    assert "Usage: cmem" in _run([fresh / "bin" / "cmem", "--help"], env=env, cwd=tmp_path).stdout
