"""Whether this build of the package is the compiled one, and the interpreter's constructors.

``pip install .`` compiles the modules listed in pyproject.toml (this one among
them) with mypyc; an editable or a pure install runs them as Python. A compiled
module's ``__file__`` is its extension module, not its ``.py`` source. The few
places where the two builds take different routes to the same result (the
slot-level constructors of :mod:`american_sniff.layout` and
:mod:`american_sniff._fast`, and the shuffle) read :data:`COMPILED` from here.

**Twin constructors.** In the compiled build a native class's constructor
stores its fields directly, and ``object.__setattr__`` written out becomes a
direct C call. The interpreter instead fills a plain *twin* class that has the
very same slots (so each store is the interpreter's specialised slot store) and
then switches the object's class to the frozen class, which CPython allows
between classes of identical layout. (That is why the classes built this way
have no ``__weakref__`` slot: a class with one never matches another's
layout.) :func:`twin_constructor` generates such a constructor, with the
keyword arguments of a model function, as attrs generates an ``__init__``.
This module imports nothing of the package (only attrs, for
:func:`attrs_fields`), so every core module may use it.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, Final

import attrs

__all__ = ["COMPILED", "attrs_fields", "same_names", "twin_constructor"]

#: True when this module, and so every module of the compile list, runs compiled.
COMPILED: Final = not __file__.endswith(".py")


def attrs_fields(name: str, fields: dict[str, Any]) -> Any:
    """The ``__attrs_attrs__`` of a class with ``fields`` (name: ``attrs.field(...)``).

    A class written out by hand to behave as a frozen attrs class (a native
    class when compiled) sets it, as attrs itself would have built it, so that
    attrs' own functions (``attrs.fields``, ``attrs.evolve``, ``attrs.asdict``,
    ``attrs.has``) work on it.
    """
    return attrs.fields(attrs.make_class(name, fields, frozen=True))


def twin_constructor(
    cls: type, like: Callable[..., object], slots: dict[str, str]
) -> Callable[..., Any]:
    """A constructor of ``cls`` with the keyword arguments of ``like``, through a twin class.

    ``slots`` maps each slot of ``cls`` to what it is set to: an argument of
    ``like``, or ``None``, or ``""`` to leave it unset (a cache filled later).
    The generated function takes the arguments as ``like`` does (by position
    or by keyword, or by keyword only), creates an instance of a plain class
    with ``cls``'s slots and bases, stores every slot, and switches the instance's class
    to ``cls``. Its docstring is ``like``'s.

    :raises TypeError: if ``slots`` does not name every slot of ``cls`` once,
        or names other than ``like``'s arguments, or if an argument has a
        default other than None (the generated function writes ``=None``).
    """
    signature = inspect.signature(like)
    names = set(signature.parameters)
    given = {value for value in slots.values() if value not in {"None", ""}}
    if set(slots) != set(vars(cls)["__slots__"]) or given != names:
        raise TypeError(f"{cls.__name__}: the slots and the arguments do not match")
    for name, parameter in signature.parameters.items():
        if parameter.default not in (inspect.Parameter.empty, None):
            raise TypeError(f"{like.__name__}: {name} may default to None only")
    arguments = ", ".join(
        ("*, " if parameter.kind is inspect.Parameter.KEYWORD_ONLY and first else "")
        + (name if parameter.default is inspect.Parameter.empty else f"{name}=None")
        for first, (name, parameter) in zip(
            _first_keyword_only(signature), signature.parameters.items(), strict=True
        )
    )
    stores = "".join(f"    twin.{slot} = {value}\n" for slot, value in slots.items() if value)
    source = (
        f"def {like.__name__}({arguments}):\n"
        "    twin = new(Twin)\n"
        f"{stores}"
        "    twin.__class__ = cls\n"
        "    return twin\n"
    )
    # The twin has the bases of ``cls``, so the same layout (the slots of a
    # base too), and none of its methods: it assigns as object does.
    twin_class = type(f"_{cls.__name__}Twin", cls.__bases__, {"__slots__": vars(cls)["__slots__"]})
    namespace: dict[str, Any] = {"new": object.__new__, "Twin": twin_class, "cls": cls}
    exec(source, namespace)  # the names in it were checked above
    constructor: Callable[..., Any] = namespace[like.__name__]
    constructor.__doc__ = like.__doc__
    return constructor


def _first_keyword_only(signature: inspect.Signature) -> list[bool]:
    """For each parameter, whether it is the first keyword-only one (where ``*`` goes)."""
    kinds = [parameter.kind for parameter in signature.parameters.values()]
    keyword = inspect.Parameter.KEYWORD_ONLY
    return [kind is keyword and keyword not in kinds[:i] for i, kind in enumerate(kinds)]


def same_names(cls: type) -> dict[str, str]:
    """Each slot of ``cls`` set from the argument of its name (``_log`` from ``log``).

    Only the class's own slots: the slot ``_hash`` of its base, where it keeps
    its hash once computed, is no constructor's.
    """
    return {slot: slot.lstrip("_") for slot in vars(cls)["__slots__"]}
