"""The package layout only; everything else is in pyproject.toml.

dream/, sync/ and schema/ sit beside collective/ in the repository but install
as collective.dream, collective.sync and collective.schema: `collective` is the
only top-level name this project puts in site-packages (`schema` and `sync` are
other projects' names on PyPI). pyproject.toml can map a folder to a package
name, but cannot put a prefix on the subpackages it finds, hence this file.
"""

from setuptools import find_namespace_packages, setup

# package name -> folder. Every folder below one is a package, with or without
# __init__.py (namespaces), so new subpackages ship without touching this list.
FOLDERS = {"collective": "collective", "collective.dream": "dream", "collective.sync": "sync",
           "collective.schema": "schema"}

setup(packages=[name for package, folder in FOLDERS.items()
                for name in (package, *(f"{package}.{sub}" for sub in find_namespace_packages(folder)))],
      package_dir={package: folder for package, folder in FOLDERS.items() if package != folder})
