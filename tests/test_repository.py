"""The repository port's contract, run on both engines (doltlite and Dolt sql-server)."""

from __future__ import annotations

import pytest

from collective.errors import NonFastForward, NotFound, StorageError
from collective.store import Location
from collective.store.base import quote

pytestmark = pytest.mark.usefixtures("engine")

AUTHOR = "tester"


def new_repo(tmp_path, name: str):
    folder = tmp_path / name
    location = Location.new(folder, tmp_path, name)
    repo = location.create()
    repo.migrate(author=AUTHOR, now="2026-01-01T00:00:00.000000Z")
    repo.close()
    location.finish()
    return location.open()


def link(source: str, target: str, weight: float = 1.0) -> dict:
    return {"source_id": source, "target_id": target, "link_type": "consensus", "weight": weight,
            "created_by": AUTHOR, "created_at": "2026-01-01T00:00:00.000000Z"}


@pytest.fixture
def repo(tmp_path):
    r = new_repo(tmp_path, "agent")
    yield r
    r.close()


def test_rows_round_trip_with_upsert_update_delete(repo):
    with repo.transaction():
        assert repo.insert("skip_links", [link("a", "b"), link("b", "c")]) >= 1
    repo.upsert("skip_links", [link("a", "b", 0.25), link("c", "d")], key=["source_id", "target_id", "link_type"])
    rows = {(r["source_id"], r["target_id"]): r["weight"] for r in repo.select("skip_links")}
    assert rows == {("a", "b"): 0.25, ("b", "c"): 1.0, ("c", "d"): 1.0}
    assert repo.update("skip_links", {"weight": 0.5}, {"source_id": "b"}) == 1
    assert repo.count("skip_links", {"weight": 0.5}) == 1
    assert [r["target_id"] for r in repo.select_in("skip_links", "source_id", ["a", "c"], columns=("target_id",))] \
        in (["b", "d"], ["d", "b"])
    assert repo.delete("skip_links", {"source_id": "c"}) == 1
    assert repo.count("skip_links") == 2
    assert repo.select("skip_links", {"source_id": []}) == []


def test_a_failed_transaction_leaves_nothing(repo):
    head = repo.head()
    with pytest.raises(RuntimeError):
        with repo.transaction():
            repo.insert("skip_links", [link("x", "y")])
            raise RuntimeError("boom")
    assert repo.count("skip_links") == 0
    assert repo.head() == head


def test_commit_log_diff_and_time_travel(repo):
    first = repo.head()
    with repo.transaction():
        repo.insert("skip_links", [link("a", "b")])
        second = repo.commit("add a link", author="earth-1")
    with repo.transaction():
        repo.update("skip_links", {"weight": 0.1}, {"source_id": "a"})
        third = repo.commit("weaken it", author="earth-1")
    log = repo.log(limit=3)
    assert [c.hash for c in log[:2]] == [third, second]
    assert log[0].author == "earth-1" and log[0].message == "weaken it"
    changes = list(repo.diff(first, third, "skip_links"))
    assert len(changes) == 1 and changes[0].kind == "added" and changes[0].new["weight"] == pytest.approx(0.1)
    changes = list(repo.diff(second, third, "skip_links"))
    assert changes[0].kind == "modified" and changes[0].old["weight"] == pytest.approx(1.0)
    assert repo.count("skip_links", as_of=first) == 0
    assert repo.select("skip_links", as_of=second)[0]["weight"] == pytest.approx(1.0)
    assert repo.resolve(second) == second
    with pytest.raises(NotFound):
        repo.resolve("no-such-branch")
    with pytest.raises(NotFound):
        repo.select("skip_links", as_of="no-such-branch")


def test_branches_and_a_moment_on_another(repo):
    main = repo.active_branch()
    repo.create_branch("x/working")
    with repo.on_branch("x/working"):
        assert repo.active_branch() == "x/working"
        with repo.transaction():
            repo.insert("skip_links", [link("on", "x")])
            repo.commit("on x", author=AUTHOR)
    assert repo.active_branch() == main
    assert repo.count("skip_links") == 0
    assert repo.count("skip_links", as_of="x/working") == 1
    repo.create_branch_at("y", "x/working")
    assert repo.branches()["y"] == repo.branches()["x/working"]


def test_merge_reports_conflicts_inside_the_transaction(repo):
    repo.create_branch("other")
    with repo.transaction():
        repo.insert("skip_links", [link("a", "b", 0.3)])
        repo.commit("ours", author=AUTHOR)
    with repo.on_branch("other"):
        with repo.transaction():
            repo.insert("skip_links", [link("a", "b", 0.7)])
            repo.commit("theirs", author=AUTHOR)
    with repo.transaction():
        conflicts = repo.merge("other", message="merge other", author=AUTHOR)
        assert [c.table for c in conflicts] == ["skip_links"]
        assert conflicts[0].ours["weight"] == pytest.approx(0.3)
        assert conflicts[0].theirs["weight"] == pytest.approx(0.7)
        repo.resolve_conflicts("skip_links", "theirs")
        repo.commit("merged", author=AUTHOR)
    assert repo.select("skip_links")[0]["weight"] == pytest.approx(0.7)


def test_push_fetch_and_a_refused_non_fast_forward(tmp_path, engine):
    a, b = new_repo(tmp_path, "a"), new_repo(tmp_path, "b")
    url = f"file://{tmp_path / 'commons.db'}" if engine == "doltlite" else f"file://{tmp_path / 'commons'}"
    if engine == "dolt":
        (tmp_path / "commons").mkdir()
    try:
        for r in (a, b):
            r.add_remote("origin", url)
        assert a.remotes() == {"origin": url}
        a.create_branch("shared")
        with a.on_branch("shared"):
            with a.transaction():
                a.insert("skip_links", [link("from", "a")])
                a.commit("a writes", author="a")
        a.push("origin", "shared")
        heads = b.fetch("origin")
        assert heads["shared"] == a.branches()["shared"]
        assert b.count("skip_links", as_of="origin/shared") == 1
        b.create_branch("shared")  # unrelated history: b's push must be refused
        with b.on_branch("shared"):
            with b.transaction():
                b.insert("skip_links", [link("from", "b")])
                b.commit("b writes", author="b")
        with pytest.raises(NonFastForward):
            b.push("origin", "shared")
        with pytest.raises((NotFound, StorageError)):
            b.fetch("nowhere")
    finally:
        a.close()
        b.close()


def test_identifiers_are_checked_and_quoted():
    assert quote("vector") == "`vector`"
    with pytest.raises(ValueError):
        quote("memories; DROP TABLE x")
