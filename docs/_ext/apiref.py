"""Two small additions to autodoc for this project's API reference.

**Fields.** The project documents the fields of an attrs class once, in the
class docstring, as ``:ivar name: meaning`` lines (``:cvar:`` for enum
members), so that ``help()`` shows them too. Sphinx renders those lines as a
"Variables" list but does not make them linkable, does not show their types,
and, with ``autodoc_typehints = "description"``, also lists the constructor's
arguments, which for an attrs class are the very same fields, as
"Parameters" without a meaning. For each class description this extension
therefore

* gives each ``:ivar:``/``:cvar:`` line an anchor and records it in the Python
  domain as an attribute of the class, so ``:attr:`Layout.end_sum``` links to
  it (the fields have no docstrings of their own, so autodoc documents none of
  them a second time);
* adds the field's annotated type to its line (as ``:vartype:``);
* drops the "Parameters" entries that autodoc added for constructor arguments
  that are attrs fields: the "Variables" list already says what they are.

**Names of the package.** Classes and functions are documented under the
package (``american_sniff.Tile``), or under the subpackage that re-exports
them (``american_sniff.serial.state_to_json``), and autodoc records where
they are defined (``american_sniff.tiles.Tile``) as an alias by itself.
Constants are documented in their own module, where autodoc finds their
``#:`` comments; each package above that module that re-exports one (in its
``__all__``) has its name there recorded here as an alias
(``american_sniff.ALL_TILES``, ``american_sniff.serial.FORMAT_VERSION`` for
``american_sniff.serial.conventions.FORMAT_VERSION``), so that every
spelling links.

**Completeness.** Once every page is read, each name in the package's
``__all__``, and in the ``__all__`` of each of its modules that the reference
documents (with ``automodule``), must have been documented, under that
module or under a package above it that re-exports the same object; a
missing one is a warning, and so fails the ``-W`` build, naming what to add.
"""

from __future__ import annotations

import importlib
import sys
import typing
from types import SimpleNamespace
from typing import Any

import attrs
from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.domains.python import PythonDomain
from sphinx.environment import BuildEnvironment
from sphinx.util import logging
from sphinx.util.typing import stringify_annotation

#: The package whose ``__all__`` re-exports names documented in its modules.
PACKAGE = "american_sniff"
#: The field-list names under which a class docstring describes its fields.
FIELD_KINDS = ("ivar", "cvar", "var")


#: The order of the groups of a field list: the rest keep their own order.
FIELD_ORDER = {
    "param": 0,
    "parameter": 0,
    "arg": 0,
    "argument": 0,
    "type": 0,
    "ivar": 1,
    "cvar": 1,
    "var": 1,
    "vartype": 1,
    "returns": 2,
    "return": 2,
    "rtype": 2,
    "raises": 3,
    "raise": 3,
    "except": 3,
    "exception": 3,
}


def _field_rank(field: nodes.Node) -> int:
    """Where a field of a field list goes: see :data:`FIELD_ORDER`."""
    if not isinstance(field, nodes.field):
        return len(FIELD_ORDER)
    words = field.children[0].astext().split()
    return FIELD_ORDER.get(words[0], len(FIELD_ORDER)) if words else len(FIELD_ORDER)


def _documented(content: addnodes.desc_content) -> tuple[str, str] | None:
    """``(module, qualified name)`` of the object whose description holds ``content``."""
    desc = content.parent
    if desc is None:
        return None
    for signature in desc.findall(addnodes.desc_signature):
        if signature.get("fullname"):
            return str(signature.get("module") or ""), str(signature["fullname"])
    return None


def _lookup(module: str, qualname: str) -> object:
    """The documented object itself, or None if it cannot be imported."""
    try:
        found: object = importlib.import_module(module)
        for part in qualname.split("."):
            found = getattr(found, part)
    except (ImportError, AttributeError):
        return None
    return found


def _field_types(cls: type) -> dict[str, str]:
    """The annotated type of each field of ``cls``, as text for ``:vartype:``.

    Each annotation is evaluated on its own, in the namespace of the class's
    module. One that names something imported only for type checkers cannot
    be evaluated; it is shown as written, and its names are then looked up
    like any other reference of the class's description.
    """
    namespace = vars(sys.modules[cls.__module__])
    types = {}
    for klass in reversed(cls.__mro__):
        for name, annotation in getattr(klass, "__annotations__", {}).items():
            if not isinstance(annotation, str):
                types[name] = stringify_annotation(annotation, "smart")
                continue
            probe = SimpleNamespace(__annotations__={name: annotation})
            try:
                hint = typing.get_type_hints(probe, globalns=dict(namespace))[name]
            except Exception:  # not defined at run time: show it as written
                types[name] = annotation
            else:
                types[name] = stringify_annotation(hint, "smart")
    return types


def _fields(app: Sphinx, domain: str, objtype: str, content: addnodes.desc_content) -> None:
    """Anchor, type and register each ``:ivar:`` line; drop duplicate parameters."""
    if domain != "py":
        return
    documented = _documented(content)
    if documented is None:
        return
    if objtype not in ("class", "exception"):
        for field_list in [n for n in content.children if isinstance(n, nodes.field_list)]:
            field_list.children.sort(key=_field_rank)
        return
    module, qualname = documented
    owner = f"{module}.{qualname}" if module else qualname
    cls = _lookup(module, qualname)
    types = _field_types(cls) if isinstance(cls, type) else {}
    # Constructor arguments of an attrs class are its fields (by their alias).
    arguments = (
        {field.alias for field in attrs.fields(cls)}
        if isinstance(cls, type) and attrs.has(cls)
        else set()
    )
    python = app.env.get_domain("py")
    assert isinstance(python, PythonDomain)
    for field_list in [n for n in content.children if isinstance(n, nodes.field_list)]:
        described = set()
        for field in list(field_list.children):
            name_node, body = field.children
            words = name_node.astext().split()
            if len(words) != 2:  # not "kind name"
                continue
            kind, name = words
            if kind in ("param", "type") and name in arguments:
                field_list.remove(field)
                continue
            if kind not in FIELD_KINDS:
                continue
            described.add(name)
            # The anchor is the full name, as the Python domain's own objects have.
            full_name = f"{owner}.{name}"
            anchor = nodes.inline("", "", ids=[full_name])
            first = body.children[0] if body.children else None
            if isinstance(first, nodes.paragraph):
                first.insert(0, anchor)
            elif isinstance(body, nodes.Element):
                body.insert(0, nodes.paragraph("", "", anchor))
            python.note_object(full_name, "attribute", full_name, location=field)
        for name in sorted(described & types.keys()):
            field_list.append(
                nodes.field(
                    "",
                    nodes.field_name("", f"vartype {name}"),
                    nodes.field_body("", nodes.paragraph("", types[name])),
                )
            )
        # Parameters first, then fields, the return value, and what is raised.
        field_list.children.sort(key=_field_rank)
        if not field_list.children:
            field_list.parent.remove(field_list)


def _packages_above(module: str) -> list[str]:
    """The packages above ``module`` within the package, outermost first.

    >>> _packages_above("american_sniff.serial.conventions")
    ['american_sniff', 'american_sniff.serial']
    """
    parts = module.split(".")
    return [".".join(parts[:length]) for length in range(1, len(parts))]


def _package_alias(app: Sphinx, domain: str, objtype: str, content: addnodes.desc_content) -> None:
    """Record ``PACKAGE.NAME`` for a constant documented in its own module, for each re-export."""
    if domain != "py" or objtype != "data":
        return
    documented = _documented(content)
    if documented is None:
        return
    module, name = documented
    if module == PACKAGE or not module.startswith(f"{PACKAGE}."):
        return
    value = _lookup(module, name)
    python = app.env.get_domain("py")
    assert isinstance(python, PythonDomain)
    for above in _packages_above(module):
        package = importlib.import_module(above)
        if name in getattr(package, "__all__", ()) and getattr(package, name) is value:
            python.note_object(f"{above}.{name}", "data", f"{module}.{name}", aliased=True)


def _check_complete(app: Sphinx, env: BuildEnvironment) -> None:
    """Warn about each public name that the API reference leaves out."""
    python = env.get_domain("py")
    assert isinstance(python, PythonDomain)
    documented = set(python.objects)
    modules = [PACKAGE] + sorted(
        name
        for name, entry in python.objects.items()
        if entry.objtype == "module" and name.startswith(f"{PACKAGE}.")
    )
    logger = logging.getLogger(__name__)
    for module_name in modules:
        module = importlib.import_module(module_name)
        above = [importlib.import_module(name) for name in _packages_above(module_name)]
        for name in getattr(module, "__all__", ()):
            value = getattr(module, name)
            spellings = {f"{module_name}.{name}"} | {
                f"{outer.__name__}.{name}" for outer in above if getattr(outer, name, None) is value
            }
            if not spellings & documented:
                logger.warning(
                    "%s.%s is public (in __all__) but missing from the API reference: "
                    "add it to the page of its module under docs/api/",
                    module_name,
                    name,
                    type="apiref",
                    subtype="missing",
                )


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the extension with Sphinx."""
    # After autodoc (priority 500), which adds the parameter lists first.
    app.connect("object-description-transform", _fields, priority=600)
    app.connect("object-description-transform", _package_alias, priority=600)
    app.connect("env-check-consistency", _check_complete)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
