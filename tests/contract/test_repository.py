"""The repository port's contract, run on every store: doltlite files in tmp_path and
databases on the session's Dolt sql-server. Real engines only."""

from __future__ import annotations

import shutil
import socket
import uuid
from pathlib import Path

import pytest

from collective.errors import (BadInput, NoCommonsYet, NonFastForward, NotACommons, NotFound,
                               RemoteUnreachable, RowShapeMismatch, ServerUnreachable, StorageError)
from collective.store import Repository, doltlite_url, open_repository
from collective.store.sql import migrations, quote

AUTHOR = "tester"
NOW = "2026-01-01T00:00:00.000000Z"
ENGINES = ["doltlite", "dolt"]


class Stores:
    """New repositories of one engine for one test, and commons for them."""

    def __init__(self, engine: str, root: Path, server: str | None):
        self.engine = engine
        self.root = root
        self.server = server
        self.tag = uuid.uuid4().hex[:8]
        self.opened: list = []
        self.databases: list[str] = []

    def url(self, name: str) -> str:
        if self.engine == "doltlite":
            return doltlite_url(self.root / f"{name}.db")
        database = f"ct_{self.tag}_{name}"
        self.databases.append(database)
        return f"{self.server}/{database}"

    def new(self, name: str = "repo") -> Repository:
        repo = open_repository(self.url(name), create=True)
        self.opened.append(repo)
        repo.migrate(author=AUTHOR, now=NOW)
        return repo

    def commons(self, name: str = "commons") -> str:
        """A file commons URL of this engine, not yet made (the first push makes it)."""
        return f"file://{self.root / (name + '.db' if self.engine == 'doltlite' else name)}"

    def close(self) -> None:
        for repo in self.opened:
            repo.close()
        if self.databases:
            from collective.store.doltserver import ServerAddress, drop_database
            for database in self.databases:
                drop_database(ServerAddress.parse(f"{self.server}/{database}"))


@pytest.fixture(params=ENGINES)
def stores(request, tmp_path):
    server = request.getfixturevalue("dolt_server") if request.param == "dolt" else None
    made = Stores(request.param, tmp_path, server)
    yield made
    made.close()


@pytest.fixture
def repo(stores):
    return stores.new()


def link(source: str, target: str, weight: float = 1.0, by: str = AUTHOR) -> dict:
    return {"source_id": source, "target_id": target, "link_type": "consensus", "weight": weight,
            "created_by": by, "created_at": NOW}


def run(run_id: str, status: str, finished: str | None = None) -> dict:
    return {"id": run_id, "agent_id": "a", "branch_name": "main", "status": status, "stats": "{}",
            "started_at": NOW, "finished_at": finished}


def commit_link(repo, source: str, target: str, weight: float = 1.0, *, author: str = AUTHOR) -> str:
    with repo.transaction():
        repo.upsert("skip_links", [link(source, target, weight, by=author)],
                    key=["source_id", "target_id", "link_type"])
        return repo.commit(f"{source}->{target}", author=author)


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# --- the port itself -----------------------------------------------------------------

def test_every_store_is_a_repository_of_its_engine(stores, repo):
    assert isinstance(repo, Repository)
    assert repo.engine == stores.engine
    assert repo.dialect == {"doltlite": "sqlite", "dolt": "mysql"}[stores.engine]


def test_every_port_member_is_exercised_here():
    """A method added to the port without a contract test fails here."""
    members = {name for name in [*dir(Repository), *Repository.__annotations__] if not name.startswith("_")}
    assert {"engine", "dialect", "push", "gc"} <= members
    source = Path(__file__).read_text()
    untested = sorted(m for m in members if f".{m}" not in source)
    assert untested == []


# --- rows ----------------------------------------------------------------------------

def test_rows_round_trip_with_insert_upsert_update_delete(repo):
    assert repo.insert("skip_links", [link("a", "b"), link("b", "c")]) == 2
    repo.upsert("skip_links", [link("a", "b", 0.25), link("c", "d")], key=["source_id", "target_id", "link_type"])
    rows = {(r["source_id"], r["target_id"]): r["weight"] for r in repo.select("skip_links")}
    assert rows == {("a", "b"): 0.25, ("b", "c"): 1.0, ("c", "d"): 1.0}
    assert repo.update("skip_links", {"weight": 0.5}, {"source_id": "b"}) == 1
    assert repo.count("skip_links", {"weight": 0.5}) == 1
    assert repo.delete("skip_links", {"source_id": "c"}) == 1
    assert repo.count("skip_links") == 2
    with pytest.raises(ValueError):
        repo.update("skip_links", {"weight": 0.0}, {})
    with pytest.raises(ValueError):
        repo.delete("skip_links", {})
    assert repo.count("skip_links") == 2


def test_select_columns_order_and_limit(repo):
    repo.insert("skip_links", [link("a", "b", 0.2), link("a", "c", 0.9), link("a", "d", 0.5)])
    rows = repo.select("skip_links", {"source_id": "a"}, columns=("target_id",), order_by="weight DESC", limit=2)
    assert rows == [{"target_id": "c"}, {"target_id": "d"}]
    assert [r["target_id"] for r in repo.select("skip_links", order_by="weight")] == ["b", "d", "c"]


def test_none_matches_null_and_a_list_matches_any(repo):
    repo.insert("dream_runs", [run("r1", "done", NOW), run("r2", "running"), run("r3", "failed")])
    assert repo.count("dream_runs", {"finished_at": None}) == 2
    assert {r["id"] for r in repo.select("dream_runs", {"finished_at": None, "status": ["running", "done"]})} == {"r2"}
    assert repo.count("dream_runs", {"status": ["done", "failed"]}) == 2
    assert repo.select("dream_runs", {"status": []}) == []
    assert repo.count("dream_runs", {"status": []}) == 0


def test_select_in_asks_in_chunks_and_finds_every_row(repo):
    repo.insert("skip_links", [link(f"s{n}", "t") for n in range(7)])
    rows = repo.select_in("skip_links", "source_id", [f"s{n}" for n in (0, 2, 3, 5, 6, 9)],
                          columns=("source_id",), chunk=2)
    assert sorted(r["source_id"] for r in rows) == ["s0", "s2", "s3", "s5", "s6"]
    assert repo.select_in("skip_links", "source_id", []) == []


# --- transactions ----------------------------------------------------------------------

def test_a_failed_transaction_leaves_nothing(repo):
    head = repo.head()
    with pytest.raises(RuntimeError):
        with repo.transaction():
            repo.insert("skip_links", [link("x", "y")])
            with repo.transaction():  # nested: joins the outer one
                assert repo.in_transaction
                repo.insert("skip_links", [link("y", "z")])
            raise RuntimeError("boom")
    assert not repo.in_transaction
    assert repo.count("skip_links") == 0
    assert repo.head() == head


def test_an_insert_that_clashes_writes_none_of_its_rows(repo):
    repo.insert("skip_links", [link("a", "b")])
    with pytest.raises(StorageError):
        repo.insert("skip_links", [link("c", "d"), link("a", "b")])
    assert repo.count("skip_links") == 1


def test_an_insert_or_upsert_of_rows_that_differ_in_columns_writes_none_and_names_them(repo):
    """A batch is one shape: a row that lost a column (or gained one) is the caller's bug,
    refused before anything is written, whichever row comes first."""
    key = ["source_id", "target_id", "link_type"]
    short = {k: v for k, v in link("c", "d").items() if k != "weight"}
    extra = {**link("e", "f"), "note": "not a column"}
    writes = {"insert": lambda rows: repo.insert("skip_links", rows),
              "upsert": lambda rows: repo.upsert("skip_links", rows, key=key)}
    for name, write in writes.items():
        for rows, differing in (([link("a", "b"), short], ["weight"]), ([short, link("a", "b")], ["weight"]),
                                ([link("a", "b"), extra], ["note"]), ([short, link("a", "b"), extra], ["note", "weight"])):
            with pytest.raises(RowShapeMismatch) as refused:
                write(rows)
            assert (refused.value.table, refused.value.columns) == ("skip_links", differing), name
            assert "skip_links" in str(refused.value) and all(c in str(refused.value) for c in differing)
            assert not isinstance(refused.value, (BadInput, StorageError))  # a programming error, not input
    assert repo.count("skip_links") == 0
    repo.upsert("skip_links", [link("a", "b"), link("c", "d")], key=key)  # one shape: written
    assert repo.count("skip_links") == 2


# --- schema ----------------------------------------------------------------------------

def test_migrate_is_idempotent(repo):
    latest = migrations(repo.dialect)[-1][0]
    assert repo.schema_version() == latest
    head = repo.head()
    assert repo.migrate(author=AUTHOR, now=NOW) == []
    assert repo.head() == head and repo.schema_version() == latest


def test_a_new_database_migrates_every_version(stores):
    fresh = open_repository(stores.url("fresh"), create=True)
    stores.opened.append(fresh)
    assert fresh.schema_version() == 0
    commits = len(fresh.log())
    applied = fresh.migrate(author=AUTHOR, now=NOW)
    assert applied == [v for v, _ in migrations(fresh.dialect)]
    assert fresh.applied_versions() == set(applied)
    # A new database takes the whole schema in one commit (each commit costs more than its statements).
    assert len(fresh.log()) == commits + 1
    assert fresh.log(limit=1)[0].message == (f"schema: create at version {applied[-1]} "
                                             f"(migrations {applied[0]}-{applied[-1]})")


def test_local_tables_are_made_on_the_branch_checked_out(repo):
    repo.create_branch("elsewhere")
    repo.checkout("elsewhere")
    repo.ensure_local_tables()
    repo.insert("local_state", [{"name": "k", "value": "v"}])
    assert repo.count("local_state") == 1
    with pytest.raises(StorageError):
        repo.commit("local tables are never committed", author=AUTHOR)


# --- commits, branches, history ------------------------------------------------------

def test_commit_head_and_log(repo):
    first = repo.head()
    second = commit_link(repo, "a", "b", author="earth-1")
    assert second != first and repo.head() == second == repo.head(repo.active_branch())
    third = repo.commit("nothing changed", author="earth-2", allow_empty=True)
    log = repo.log(limit=3)
    assert [c.hash for c in log[:3]] == [third, second, first]
    assert (log[0].author, log[0].message) == ("earth-2", "nothing changed")
    assert log[1].author == "earth-1" and log[1].email == "earth-1@cmem.local"
    assert [c.hash for c in repo.log(second, limit=1)] == [second]
    assert log[0].to_dict()["commit"] == third
    with pytest.raises(StorageError):
        repo.commit("nothing to commit", author=AUTHOR)


def test_branches_and_a_moment_on_another(repo):
    main = repo.active_branch()
    repo.create_branch("x/working")
    with repo.on_branch("x/working"):
        assert repo.active_branch() == "x/working"
        on_x = commit_link(repo, "on", "x")
    assert repo.active_branch() == main
    assert repo.count("skip_links") == 0
    assert repo.branches()["x/working"] == on_x and repo.branches()[main] != on_x
    repo.create_branch("from-x", start="x/working")
    assert repo.branches()["from-x"] == on_x
    with pytest.raises(StorageError):
        repo.create_branch("from-x")
    repo.checkout("from-x")
    assert repo.active_branch() == "from-x" and repo.count("skip_links") == 1
    with pytest.raises(NotFound):
        repo.checkout("no-such-branch")


def test_create_branch_at_makes_or_moves_a_branch(repo):
    base = repo.head()
    repo.create_branch_at("y", base)
    assert repo.branches()["y"] == base
    ahead = commit_link(repo, "a", "b")
    repo.create_branch_at("y", ahead)
    assert repo.branches()["y"] == ahead
    repo.create_branch_at("y", base)
    assert repo.branches()["y"] == base


def test_is_ancestor_follows_history_not_time(stores, repo):
    first = repo.head()
    second = commit_link(repo, "a", "b")
    repo.create_branch_at("side", first)
    with repo.on_branch("side"):
        side = commit_link(repo, "c", "d")  # after second in time, not after it in history
    assert repo.is_ancestor(first, second) and repo.is_ancestor(first, "side")
    assert repo.is_ancestor(second, second)
    assert not repo.is_ancestor(second, first)
    assert not repo.is_ancestor(second, side) and not repo.is_ancestor(side, second)
    elsewhere = commit_link(stores.new("other"), "e", "f")  # a commit this database never held
    assert not repo.is_ancestor(elsewhere, second)
    with pytest.raises(NotFound):
        repo.is_ancestor(first, "no-such-branch")


def test_merge_base_of_related_and_unrelated_histories(stores, pair):
    a, b = pair
    first = commit_link(a, "a", "b")
    second = commit_link(a, "b", "c")
    a.create_branch_at("side", first)
    with a.on_branch("side"):
        side = commit_link(a, "c", "d")
    assert a.merge_base(second, side) == first and a.merge_base("side", first) == first
    commit_link(b, "e", "f")  # a history of its own, held here after a fetch
    b.push("origin", "main")
    a.fetch("origin")
    base = a.merge_base(second, "origin/main")
    # doltlite databases start from the same commits (the same migration, made at the same time, too); Dolt's share none
    assert base is None if stores.engine == "dolt" else a.is_ancestor(base, first) and a.is_ancestor(base, "origin/main")
    assert not a.is_ancestor("origin/main", second) and not a.is_ancestor(second, "origin/main")


def test_resolve_and_time_travel(repo):
    before = repo.head()
    after = commit_link(repo, "a", "b", 0.4)
    repo.create_branch("kept")
    commit_link(repo, "a", "b", 0.8)
    assert repo.resolve(after) == after and repo.resolve("kept") == after
    assert repo.count("skip_links", as_of=before) == 0
    assert repo.select("skip_links", as_of="kept")[0]["weight"] == pytest.approx(0.4)
    assert repo.select("skip_links")[0]["weight"] == pytest.approx(0.8)
    assert repo.select_in("skip_links", "source_id", ["a"], as_of=after)[0]["weight"] == pytest.approx(0.4)
    for bad in ("no-such-branch", "x'; DROP TABLE skip_links; --"):
        with pytest.raises(NotFound):
            repo.resolve(bad)
        with pytest.raises(NotFound):
            repo.select("skip_links", as_of=bad)


def test_diff_between_commits(repo):
    first = repo.head()
    with repo.transaction():
        repo.insert("skip_links", [link("a", "b"), link("c", "d")])
        second = repo.commit("two links", author=AUTHOR)
    with repo.transaction():
        repo.update("skip_links", {"weight": 0.1}, {"source_id": "a"})
        repo.delete("skip_links", {"source_id": "c"})
        third = repo.commit("change one, drop one", author=AUTHOR)
    added = list(repo.diff(first, second, "skip_links"))
    assert sorted(c.kind for c in added) == ["added", "added"] and all(c.old is None for c in added)
    changes = {c.kind: c for c in repo.diff(second, third, "skip_links")}
    assert set(changes) == {"modified", "removed"}
    assert changes["modified"].old["weight"] == pytest.approx(1.0)
    assert changes["modified"].new["weight"] == pytest.approx(0.1)
    assert changes["removed"].new is None and changes["removed"].old["source_id"] == "c"
    assert list(repo.diff(third, third, "skip_links")) == []


def test_a_narrow_diff_reads_the_columns_asked_and_compares_others_in_the_engine(repo):
    first = repo.head()
    with repo.transaction():
        repo.insert("dream_runs", [run("r1", "running"), run("r2", "running"), run("r3", "running")])
        second = repo.commit("three runs", author=AUTHOR)
    with repo.transaction():
        repo.update("dream_runs", {"status": "done", "finished_at": NOW}, {"id": "r1"})  # compared column changed
        repo.update("dream_runs", {"stats": '{"n": 1}'}, {"id": "r2"})  # another one
        repo.delete("dream_runs", {"id": "r3"})
        third = repo.commit("finish one, count one, drop one", author=AUTHOR)
    added = list(repo.diff(first, second, "dream_runs", columns=("id", "status"), compare=("status",)))
    assert sorted(c.new["id"] for c in added) == ["r1", "r2", "r3"]
    assert all(c.kind == "added" and c.old is None and not c.same and set(c.new) == {"id", "status"} for c in added)
    changes = {(c.new or c.old)["id"]: c for c in repo.diff(second, third, "dream_runs", columns=("id", "status"),
                                                             compare=("status", "agent_id"))}
    assert {k: (c.kind, c.same) for k, c in changes.items()} == {
        "r1": ("modified", False), "r2": ("modified", True), "r3": ("removed", False)}
    assert changes["r1"].new == {"id": "r1", "status": "done"} and changes["r1"].old == {"id": "r1"}
    assert changes["r3"].new is None and changes["r3"].old == {"id": "r3"}
    # nothing compared: no change counts as the same
    assert not any(c.same for c in repo.diff(second, third, "dream_runs", columns=("id",)))


def test_row_history_lists_the_commits_that_changed_a_row_newest_first(repo):
    added = commit_link(repo, "a", "b", 1.0, author="earth-1")
    commit_link(repo, "c", "d", author="earth-2")  # another row: not in a's history
    changed = commit_link(repo, "a", "b", 0.25, author="mars-1")
    repo.update("skip_links", {"weight": 0.5}, {"source_id": "a"})  # uncommitted: not history yet
    history = repo.row_history("skip_links", "source_id", "a")
    assert [(h["commit"], h["kind"], h["committer"]) for h in history] == [
        (changed, "modified", "mars-1"), (added, "added", "earth-1")]
    assert history[0]["message"] == "a->b" and history[0]["email"] == "mars-1@cmem.local"
    assert history[0]["row"]["weight"] == pytest.approx(0.25) and history[1]["row"]["weight"] == pytest.approx(1.0)
    assert history[0]["date"] >= history[1]["date"] and len(history[0]["date"]) == 19
    with repo.transaction():
        repo.delete("skip_links", {"source_id": "a"})
        removed = repo.commit("drop a", author=AUTHOR)
    latest = repo.row_history("skip_links", "source_id", "a", limit=1)
    assert [(h["commit"], h["kind"], h["row"]["target_id"]) for h in latest] == [(removed, "removed", "b")]
    assert repo.row_history("skip_links", "source_id", "nobody") == []


# --- merging -------------------------------------------------------------------------

def diverge(repo, ours: float, theirs: float) -> None:
    """Branch `other` and the current branch each set the same link's weight."""
    repo.create_branch("other")
    commit_link(repo, "a", "b", ours)
    with repo.on_branch("other"):
        commit_link(repo, "a", "b", theirs)


def test_a_clean_merge_commits(repo):
    repo.create_branch("other")
    commit_link(repo, "ours", "x")
    with repo.on_branch("other"):
        theirs = commit_link(repo, "theirs", "x")
    before = repo.head()
    with repo.transaction():
        assert repo.merge("other", message="merge other", author=AUTHOR) == []
    assert repo.head() not in (before, theirs)
    assert {r["source_id"] for r in repo.select("skip_links")} == {"ours", "theirs"}
    assert repo.conflicts() == []


@pytest.mark.parametrize("side, weight", [("theirs", 0.7), ("ours", 0.3)])
def test_a_conflicting_merge_is_settled_by_the_caller(repo, side, weight):
    diverge(repo, 0.3, 0.7)
    with repo.transaction():
        conflicts = repo.merge("other", message="merge other", author=AUTHOR)
        assert [c.table for c in conflicts] == ["skip_links"]
        assert conflicts[0].base is None
        assert conflicts[0].ours["weight"] == pytest.approx(0.3)
        assert conflicts[0].theirs["weight"] == pytest.approx(0.7)
        assert repo.conflicts() == conflicts
        repo.resolve_conflicts("skip_links", side)
        assert repo.conflicts() == []
        repo.commit("merged", author=AUTHOR)
    assert repo.select("skip_links")[0]["weight"] == pytest.approx(weight)


def test_a_merge_abandoned_with_its_transaction_leaves_the_branch(repo):
    diverge(repo, 0.3, 0.7)
    head = repo.head()
    with pytest.raises(RuntimeError):
        with repo.transaction():
            assert repo.merge("other", message="merge other", author=AUTHOR)
            raise RuntimeError("not now")
    assert repo.head() == head and repo.conflicts() == []
    assert repo.select("skip_links")[0]["weight"] == pytest.approx(0.3)


def test_merge_needs_a_transaction(repo):
    repo.create_branch("other")
    with pytest.raises(StorageError):
        repo.merge("other", message="outside", author=AUTHOR)


# --- remotes ---------------------------------------------------------------------------

def test_remotes_are_added_and_checked(stores, repo):
    url = stores.commons()
    repo.add_remote("origin", url)
    assert repo.remotes() == {"origin": url}
    with pytest.raises(BadInput) as bad:
        repo.add_remote("other", "ftp://example.org/commons.db")
    assert bad.value.field == "url" and repo.remotes() == {"origin": url}
    with pytest.raises(StorageError):
        repo.add_remote("origin", stores.commons("elsewhere"))
    assert repo.remotes() == {"origin": url}
    repo.remove_remote("origin")
    assert repo.remotes() == {}
    with pytest.raises(NotFound):
        repo.remove_remote("origin")


def test_remote_urls_are_checked_before_use(stores, repo, tmp_path):
    assert repo.validate_remote_url(stores.commons()) == stores.commons()
    assert repo.validate_remote_url("http://127.0.0.1:9/commons.db") == "http://127.0.0.1:9/commons.db"
    bad = {
        "file://relative/commons.db": "file remotes need an absolute path: file:///abs/path/commons.db",
        f"file://{tmp_path}/missing/commons.db": f"folder {tmp_path}/missing does not exist",
        "http://127.0.0.1:9/": "bad path '/' in 'http://127.0.0.1:9/' (expected http(s)://",
        "http://127.0.0.1:99999/commons.db": "the port must be a number from 1 to 65535, got '99999'",
        "http://127.0.0.1:9/commons.db?q=1": "a commons URL has no query or fragment",
        "file:///tmp/a?b/commons.db": "a file URL has no query or fragment",
        "ftp://example.org/commons.db": "unsupported remote 'ftp://example.org/commons.db'",
        "commons.db": "unsupported remote",
    }
    for url, message in bad.items():
        with pytest.raises(BadInput) as e:
            repo.validate_remote_url(url)
        assert e.value.field == "url" and not isinstance(e.value, NotACommons)
        assert message in str(e.value), url


@pytest.fixture
def pair(stores):
    """Two repositories sharing a file commons named origin."""
    a, b = stores.new("a"), stores.new("b")
    url = stores.commons()
    for r in (a, b):
        r.add_remote("origin", url)
    return a, b


def test_push_and_fetch_through_a_commons(pair):
    a, b = pair
    a.create_branch("shared")
    with a.on_branch("shared"):
        pushed = commit_link(a, "from", "a")
    a.push("origin", "shared")
    a.push("origin", "main")
    heads = b.fetch("origin")
    assert heads == {"shared": pushed, "main": a.branches()["main"]}
    assert b.remote_branches() == {"origin/shared": pushed, "origin/main": a.branches()["main"]}
    assert b.resolve("origin/shared") == pushed
    assert b.count("skip_links", as_of="origin/shared") == 1
    with a.on_branch("shared"):
        moved = commit_link(a, "again", "a")
    a.push("origin", "shared")
    assert b.fetch("origin", "shared")["shared"] == moved
    with pytest.raises(NotFound):
        b.fetch("origin", "no-such-branch")
    assert b.remote_head("origin", "shared") == moved and b.remote_head("origin", "no-such-branch") == ""


def test_fetch_and_push_of_an_unknown_remote(repo):
    for call in (lambda: repo.fetch("nowhere"), lambda: repo.push("nowhere", "main")):
        with pytest.raises(NotFound) as e:
            call()
        assert e.value.field == "remote" and "'nowhere'" in str(e.value)


def test_push_of_an_unknown_branch(pair):
    a, _ = pair
    with pytest.raises(NotFound):
        a.push("origin", "no-such-branch")


def test_a_push_that_is_no_fast_forward_is_refused_with_both_heads(pair):
    a, b = pair
    theirs = commit_link(a, "from", "a")
    a.push("origin", "main")
    ours = commit_link(b, "from", "b")  # diverged from a's
    with pytest.raises(NonFastForward) as refused:
        b.push("origin", "main")
    e = refused.value
    assert (e.branch, e.ours, e.theirs) == ("main", ours, theirs)
    assert "push of main is not a fast-forward" in str(e)
    assert b.fetch("origin")["main"] == theirs  # nothing was pushed


def test_a_push_behind_the_remote_is_refused(pair):
    a, b = pair
    a.create_branch("shared")
    with a.on_branch("shared"):
        commit_link(a, "a", "starts")
    a.push("origin", "shared")
    b.fetch("origin")
    b.create_branch("shared", start="origin/shared")  # b builds on a's history
    with a.on_branch("shared"):
        theirs = commit_link(a, "a", "moves")
    a.push("origin", "shared")
    with b.on_branch("shared"):
        ours = commit_link(b, "b", "moves")
    with pytest.raises(NonFastForward) as refused:
        b.push("origin", "shared")
    assert (refused.value.ours, refused.value.theirs) == (ours, theirs)


def test_push_with_expect_is_a_compare_and_swap(pair):
    a, b = pair
    first = a.head()
    a.push("origin", "main", expect="")  # "" : the branch is not there yet
    second = commit_link(a, "a", "b")
    with pytest.raises(NonFastForward) as wrong:
        a.push("origin", "main", expect="0" * 32)
    assert (wrong.value.branch, wrong.value.ours, wrong.value.theirs) == ("main", second, first)
    assert b.fetch("origin")["main"] == first  # refused: nothing moved
    with pytest.raises(NonFastForward) as exists:
        a.push("origin", "main", expect="")
    assert exists.value.theirs == first
    a.push("origin", "main", expect=first)
    assert b.fetch("origin")["main"] == second


def test_a_forced_push_with_expect_overwrites_only_what_it_saw(pair):
    a, b = pair
    theirs = commit_link(a, "from", "a")
    a.push("origin", "main")
    ours = commit_link(b, "from", "b")  # diverged from a's
    with pytest.raises(NonFastForward) as stale:
        b.push("origin", "main", expect="0" * 32, force=True)
    assert (stale.value.ours, stale.value.theirs) == (ours, theirs)
    b.push("origin", "main", expect=theirs, force=True)
    assert a.fetch("origin")["main"] == ours


def test_an_unreachable_remote(repo):
    repo.add_remote("dead", f"http://127.0.0.1:{closed_port()}/commons.db")
    for call in (lambda: repo.fetch("dead"), lambda: repo.push("dead", "main"),
                 lambda: repo.push("dead", "main", expect="")):
        with pytest.raises(RemoteUnreachable) as e:
            call()
        assert e.value.remote == "dead" and str(e.value).startswith("remote 'dead' is unreachable: ")


def test_fetch_from_a_file_remote_with_no_commons_yet(stores, repo):
    repo.add_remote("origin", stores.commons())
    path = stores.commons()[len("file://"):]
    if Path(path).is_dir():  # Dolt made an empty remote folder when the remote was added
        Path(path).rmdir()
    with pytest.raises(NoCommonsYet) as e:
        repo.fetch("origin")
    assert str(e.value) == f"remote 'origin' is unreachable: no commons at {path} yet"
    assert isinstance(e.value, RemoteUnreachable) and e.value.remote == "origin"
    assert repo.remote_head("origin", "main") == ""  # no commons: no branch there
    repo.push("origin", "main")  # the first push makes it
    assert repo.fetch("origin")["main"] == repo.head()


def test_commons_exists_says_whether_a_commons_is_there(stores, repo, tmp_path):
    url = stores.commons()
    assert repo.commons_exists(url) is False
    repo.add_remote("origin", url)
    assert repo.commons_exists(url) is False  # Dolt's empty remote folder is no commons yet
    repo.push("origin", "main")
    assert repo.commons_exists(url) is True
    assert repo.commons_exists("http://127.0.0.1:9/commons.db") is None  # only a fetch can tell
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not a database\n" * 20)
    with pytest.raises(NotACommons):
        repo.commons_exists(f"file://{junk}")


def test_a_remote_that_is_no_commons(stores, repo, tmp_path):
    junk = tmp_path / "junk.db"
    repo.add_remote("junk", f"file://{junk}")
    if junk.is_dir():
        shutil.rmtree(junk)
    junk.write_bytes(b"this is not a database\n" * 200)
    calls = [lambda: repo.fetch("junk"), lambda: repo.push("junk", "main"),
             lambda: repo.push("junk", "main", expect="")]
    for call in calls:
        with pytest.raises(NotACommons) as e:
            call()
        assert e.value.field == "remote" and e.value.remote == "junk"
        expected = ("'junk' is not a commons database" if stores.engine == "doltlite"
                    else "is a file, not a Dolt remote folder")
        assert expected in str(e.value)
    assert junk.read_bytes() == b"this is not a database\n" * 200
    with pytest.raises(NotACommons):
        repo.validate_remote_url(f"file://{junk}")


def test_a_commons_that_looks_right_but_is_corrupt(stores, repo, tmp_path):
    """Past the checks on the path: the engine itself finds no database there."""
    path = tmp_path / ("corrupt.db" if stores.engine == "doltlite" else "corrupt")
    repo.add_remote("corrupt", f"file://{path}")
    if stores.engine == "doltlite":
        path.write_bytes(b"CTLD" + b"not really a database\n" * 50)
    else:
        (path / "manifest").write_bytes(b"not a Dolt manifest\n" * 20)
    for call in (lambda: repo.fetch("corrupt"), lambda: repo.push("corrupt", "main")):
        with pytest.raises(NotACommons) as e:
            call()
        assert str(e.value) == "remote: 'corrupt' is not a commons database" and e.value.remote == "corrupt"


def test_a_file_commons_of_the_other_engine(stores, repo, tmp_path):
    """doltlite keeps a commons in one file, Dolt in a folder: they cannot share one."""
    path = tmp_path / "foreign"
    if stores.engine == "doltlite":
        path.mkdir()  # what Dolt makes for a file remote
        (path / "manifest").write_text("")
        message = f"{path} is a Dolt remote folder; a doltlite agent needs a doltlite commons file"
    else:
        lite = open_repository(tmp_path / "lite.db", create=True)
        try:
            lite.add_remote("origin", f"file://{path}")
            lite.push("origin", "main")
        finally:
            lite.close()
        message = f"{path} is a doltlite commons; a Dolt agent needs a Dolt remote (a folder or remotesapi URL)"
    with pytest.raises(NotACommons) as e:
        repo.validate_remote_url(f"file://{path}")
    assert str(e.value) == f"remote: {message}"
    with pytest.raises(NotACommons):
        repo.add_remote("origin", f"file://{path}")
    assert repo.remotes() == {}


def test_a_commons_that_became_the_other_engines(stores, repo, tmp_path):
    path = tmp_path / ("commons.db" if stores.engine == "doltlite" else "commons")
    repo.add_remote("origin", f"file://{path}")
    if stores.engine == "doltlite":
        path.mkdir()
    else:
        path.rmdir()
        path.write_bytes(b"CTLD" + bytes(100))
    for call in (lambda: repo.fetch("origin"), lambda: repo.push("origin", "main")):
        with pytest.raises(NotACommons) as e:
            call()
        assert e.value.remote == "origin"
        assert ("Dolt remote folder" if stores.engine == "doltlite" else "is a doltlite commons") in str(e.value)


@pytest.fixture(scope="module")
def remotesapi_commons(tmp_path_factory, remotesapi_commons_at):
    """A Dolt sql-server serving a database `commons` over remotesapi (an http Dolt commons)."""
    with remotesapi_commons_at(tmp_path_factory.mktemp("remotesapi")) as url:
        yield url


@pytest.fixture
def lite_server(tmp_path):
    """doltlite's own server: every *.db in a folder served over http (a doltlite commons)."""
    from collective.store.commons_server import CommonsServer
    folder = tmp_path / "served"
    folder.mkdir()
    with CommonsServer(folder, allow_create=True) as server:  # the first push makes a commons
        yield server


@pytest.fixture
def http_commons(stores, request):
    """(this engine's http commons URL, the other engine's)."""
    lite = request.getfixturevalue("lite_server").url_for("commons.db")
    dolt = request.getfixturevalue("remotesapi_commons")
    anonymous = "http://" + dolt.split("@", 1)[1]  # a doltlite agent knows no Dolt users
    return (lite, anonymous) if stores.engine == "doltlite" else (dolt, lite)


def test_push_and_fetch_through_an_http_commons(stores, http_commons):
    a, b = stores.new("a"), stores.new("b")
    branch = f"contract-{stores.tag}"  # the remotesapi commons is shared by the module's tests
    a.create_branch(branch)
    with a.on_branch(branch):
        pushed = commit_link(a, "over", "http")
    for r in (a, b):
        r.add_remote("origin", http_commons[0])
    a.push("origin", branch, expect="")
    assert b.fetch("origin", branch)[branch] == pushed
    assert b.count("skip_links", as_of=f"origin/{branch}") == 1


def test_an_http_remote_with_no_commons_yet(stores, repo, http_commons):
    url = http_commons[0].rsplit("/", 1)[0] + f"/absent{stores.tag}" + (".db" if stores.engine == "doltlite" else "")
    repo.add_remote("origin", url)
    with pytest.raises(NoCommonsYet) as e:
        repo.fetch("origin")
    assert str(e.value) == f"remote 'origin' is unreachable: no commons at {url} yet"
    if stores.engine == "doltlite":  # doltlite's server takes the first push as the new commons
        repo.push("origin", "main", expect="")
        assert repo.fetch("origin")["main"] == repo.head()
    else:  # a remotesapi serves the server's databases; it makes none
        with pytest.raises(NoCommonsYet):
            repo.push("origin", "main")


def test_an_http_commons_of_the_other_engine(stores, repo, http_commons):
    if stores.engine == "doltlite":  # a remotesapi URL names a database without .db: no doltlite commons
        with pytest.raises(BadInput) as refused:
            repo.add_remote("foreign", http_commons[1])
        assert refused.value.field == "url"
        repo._vc("remote", "add", "foreign", http_commons[1])  # as an older version let it be added
    else:
        repo.add_remote("foreign", http_commons[1])
    for call in (lambda: repo.fetch("foreign"), lambda: repo.push("foreign", "main")):
        with pytest.raises(NotACommons) as e:
            call()
        assert e.value.remote == "foreign"
        assert str(e.value) == (f"remote: 'foreign' is not a {stores.engine} commons "
                                "(doltlite and Dolt agents cannot share a commons)")


# --- upkeep ----------------------------------------------------------------------------

def test_gc_keeps_every_commit_branch_and_row(repo):
    repo.create_branch("kept")
    repo.checkout("kept")
    for n in range(5):  # churn: rows written and taken back
        with repo.transaction():
            repo.insert("skip_links", [link(f"tmp{n}", "x")])
        repo.delete("skip_links", {"source_id": f"tmp{n}"})
    head = commit_link(repo, "a", "b")
    branches = repo.branches()
    repo.gc()
    assert repo.active_branch() == "kept"
    assert repo.head() == head and repo.branches() == branches
    assert [r["source_id"] for r in repo.select("skip_links")] == ["a"]
    commit_link(repo, "after", "gc")  # still writable
    assert repo.count("skip_links") == 2


def test_close_is_idempotent(stores):
    repo = stores.new("closing")
    repo.close()
    repo.close()


# --- opening by URL --------------------------------------------------------------------

def test_open_repository_picks_the_engine_by_scheme(tmp_path, request):
    from collective.store.doltlite import DoltliteRepository
    made = open_repository(doltlite_url(tmp_path / "a.db"), create=True)
    made.close()
    assert (tmp_path / "a.db").read_bytes()[:4] == b"CTLD"
    for where in (f"doltlite://{tmp_path / 'a.db'}", tmp_path / "a.db", str(tmp_path / "a.db")):
        repo = open_repository(where)
        try:
            assert isinstance(repo, DoltliteRepository) and repo.engine == "doltlite"
        finally:
            repo.close()
    with pytest.raises(NotFound):
        open_repository(doltlite_url(tmp_path / "missing.db"))
    assert not (tmp_path / "missing.db").exists()


@pytest.mark.parametrize("url", ["ftp://host/db", "sqlite:///tmp/a.db", "doltlite://host/a.db",
                                 "doltlite://relative.db", "mysql://host-only", "dolt:///no-host"])
def test_open_repository_refuses_what_it_cannot_open(url):
    with pytest.raises(BadInput) as e:
        open_repository(url)
    assert e.value.field == "url"


def test_a_dolt_server_that_is_not_there():
    with pytest.raises(ServerUnreachable, match="cannot reach the Dolt sql-server at 127.0.0.1:"):
        open_repository(f"mysql://root@127.0.0.1:{closed_port()}/cmem")


@pytest.mark.parametrize("scheme", ["mysql", "dolt"], ids=["mysql_url", "dolt_url"])
def test_open_repository_reaches_a_dolt_server_by_either_scheme(dolt_server, scheme):
    from collective.store.doltserver import DoltServerRepository, ServerAddress, drop_database
    url = f"{dolt_server}/ct_{uuid.uuid4().hex[:8]}_scheme".replace("mysql://", f"{scheme}://", 1)
    repo = open_repository(url, create=True)
    try:
        assert isinstance(repo, DoltServerRepository) and repo.engine == "dolt"
        assert repo.schema_version() == 0
    finally:
        repo.close()
        drop_database(ServerAddress.parse(url))


def test_identifiers_are_checked_and_quoted():
    assert quote("vector") == "`vector`"
    with pytest.raises(ValueError):
        quote("memories; DROP TABLE x")
