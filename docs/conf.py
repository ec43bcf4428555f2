"""Sphinx configuration for the american-sniff documentation.

Build it as CI does (every warning, a broken reference included, fails)::

    pip install -e '.[docs]'
    sphinx-build -W -n --keep-going -b html docs docs/_build/html

The pages are Markdown (MyST). Their ``>>>`` examples are run by pytest (see
``testpaths`` and ``--doctest-glob`` in pyproject.toml), not by Sphinx's
doctest builder: plain ``>>>`` blocks read well on GitHub too, and pytest
tests them from a checkout, from the sdist, against the installed wheel, and
on every supported Python (the docstrings' examples likewise, through
``--doctest-modules``). ``sphinx.ext.doctest`` is loaded for the pages that
need its ``{testcode}`` or ``{doctest}`` directives (say, for an example with
setup code to hide); .ci/run runs those with ``sphinx-build -b doctest``.
"""

from __future__ import annotations

import sys
import zlib
from pathlib import Path

from sphinx.util.inventory import InventoryFile

import american_sniff

HERE = Path(__file__).resolve().parent
# The project's own small Sphinx extensions live in docs/_ext.
sys.path.insert(0, str(HERE / "_ext"))

# -- project -----------------------------------------------------------------

project = "american-sniff"
author = "american-sniff developers"
copyright = "american-sniff developers"
release = american_sniff.__version__
version = release

# -- general -----------------------------------------------------------------

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.doctest",
    "sphinx.ext.intersphinx",
    "sphinx.ext.viewcode",
    "sphinxarg.ext",
    "cliexamples",
    "sphinx_copybutton",
    "apiref",  # docs/_ext: fields listed as :ivar: lines; package-level names
]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
root_doc = "index"
exclude_patterns = ["_build", "_inventories", "_ext", "Thumbs.db", ".DS_Store"]
# Any unresolved reference is a warning, and -W makes it an error.
nitpicky = True
# Command lines and quoted examples must copy and paste as written: no curly
# quotes or dashes made from "--".
smartquotes = False

# -- MyST ----------------------------------------------------------------------

myst_heading_anchors = 3  # rules.md links to its own sections by their titles

# -- autodoc -------------------------------------------------------------------

autodoc_member_order = "bysource"
autodoc_default_options = {"members": True}
# Types go into the parameter lists under each signature, not into it.
autodoc_typehints = "description"
autodoc_typehints_format = "short"
# A generic TypeVar is private to its module and has nothing to link to.
nitpick_ignore = [
    ("py:class", "american_sniff.rng._T"),
    ("py:class", "american_sniff.serial.parsing._T"),
    ("py:class", "american_sniff.serial.parsing._E"),
    ("py:class", "american_sniff.testing._S"),
    # The readers' errors share a private base that bounds their messages; the
    # errors themselves (InvalidState and the others) are documented.
    ("py:class", "american_sniff.errors._BoundedError"),
    # Gymnasium's enum of the vector environment's auto-reset, which has no
    # inventory to link to.
    ("py:class", "AutoresetMode"),
    # The Gymnasium environment, which the MaskablePPO adapter wraps, is shown
    # on ai.md rather than in the API reference.
    ("py:class", "AmericanSniffGymEnv"),
    ("py:class", "american_sniff.envs.gymnasium.AmericanSniffGymEnv"),
]

# -- sphinx.ext.doctest ----------------------------------------------------------
# Only the {testcode}/{doctest} directives: the plain ">>>" blocks of pages and
# docstrings are pytest's (see the module docstring), not run twice.
doctest_test_doctest_blocks = ""
doctest_global_setup = "from american_sniff import *"

# -- intersphinx, offline --------------------------------------------------------
# CI and the sandboxes that build these docs reach package registries only, so
# intersphinx cannot download objects.inv from the Python or attrs sites. The
# names we actually link to are listed, in objects.inv's own line format, in
# readable text files under docs/_inventories/ (with each site's real base
# URL, so the links lead to the real docs). Here each list is compressed into
# a regular version-2 inventory under docs/_build/, read back with Sphinx's
# own loader (a malformed line fails the build), and given to intersphinx as a
# local file. A new link to Python or attrs needs one line in that list; -n
# reports the missing one.

_INVENTORY_SOURCES = HERE / "_inventories"
_INVENTORY_BUILD = HERE / "_build" / "inventories"


def _inventory(name: str) -> tuple[str, str]:
    """Build ``docs/_build/inventories/<name>.inv``; return ``(base_url, path)``."""
    source = _INVENTORY_SOURCES / f"{name}.txt"
    headers: dict[str, str] = {}
    entries: list[str] = []
    for raw in source.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if line.startswith("#"):
            key, colon, value = line[1:].partition(":")
            if colon and key.strip() in ("Project", "Version", "Base"):
                headers[key.strip()] = value.strip()
        elif line:
            entries.append(" ".join(line.split()))
    missing = {"Project", "Version", "Base"} - headers.keys()
    if missing:
        raise ValueError(f"{source}: missing header lines: {', '.join(sorted(missing))}")
    data = (
        "# Sphinx inventory version 2\n"
        f"# Project: {headers['Project']}\n"
        f"# Version: {headers['Version']}\n"
        "# The remainder of this file is compressed using zlib.\n"
    ).encode() + zlib.compress(("\n".join(entries) + "\n").encode())
    _INVENTORY_BUILD.mkdir(parents=True, exist_ok=True)
    target = _INVENTORY_BUILD / f"{name}.inv"
    if not target.is_file() or target.read_bytes() != data:
        target.write_bytes(data)
    with target.open("rb") as stream:
        loaded = InventoryFile.load(stream, headers["Base"], lambda base, rest: f"{base}/{rest}")
    found = sum(len(items) for items in loaded.values())
    if found != len(entries):
        raise ValueError(f"{source}: {len(entries)} lines, but only {found} read back as entries")
    return headers["Base"], str(target)


intersphinx_mapping = {
    "python": _inventory("python"),
    "attrs": _inventory("attrs"),
    "cattrs": _inventory("cattrs"),
}

# -- copy buttons ----------------------------------------------------------------
# Copy the code of an example without its ">>> " and "... " prompts or output.
copybutton_prompt_text = r">>> |\.\.\. |\$ "
copybutton_prompt_is_regexp = True
copybutton_only_copy_prompt_lines = True

# -- HTML ----------------------------------------------------------------------

html_theme = "furo"
html_title = f"american-sniff {release}"
html_static_path: list[str] = []
