"""Which files the served-folder guard lets doltlite's server open: only NAME.db and its
side files, and a missing NAME.db only where creation is allowed."""

from __future__ import annotations

import pytest

from collective.store.served_folder import admits


@pytest.mark.parametrize("name, exists, creating, allow_create, database_exists, expected", [
    ("commons.db", True, True, False, True, True),  # a push to a commons that is there
    ("commons.db", True, False, False, True, True),
    ("commons.db", False, True, False, False, False),  # a new one, not allowed
    ("commons.db", False, True, True, False, True),  # a new one, allowed
    (".commons.db-lock", False, True, False, True, True),  # the engine's lock beside one that is there
    (".commons.db-lock", False, True, False, False, False),  # ... beside one that may not be made
    ("commons.db-wal", False, True, True, False, True),
    ("commons", False, True, True, False, False),  # not NAME.db: never, even where creation is allowed
    ("commons", True, False, True, True, False),  # ... nor read when it is there
    (".commons-lock", False, True, True, False, False),
    ("commons.db.bak", True, False, True, True, False),
    (".hidden.db", False, True, True, False, False),
    ("-x.db", False, True, True, False, False),
])
def test_only_name_db_and_its_side_files_open(name, exists, creating, allow_create, database_exists, expected):
    assert admits(name, exists=exists, creating=creating, allow_create=allow_create,
                  database_exists=database_exists) is expected
