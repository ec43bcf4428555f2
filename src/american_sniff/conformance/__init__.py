"""Conformance: the engine protocol, the shipped test vectors, and the kit that runs them.

* :mod:`~american_sniff.conformance.protocol`: the JSON-lines engine protocol,
  and :class:`Session`, the library answering it (``american-sniff engine``);
* :mod:`~american_sniff.conformance.loading`: the vector files (package data)
  and :func:`load_vectors`;
* :mod:`~american_sniff.conformance.kit`: :func:`run_kit`, which runs the
  vectors against an engine (``american-sniff conformance``);
* :mod:`~american_sniff.conformance.coverage` and
  :mod:`~american_sniff.conformance.fuzz`: the classes the vectors reach, and
  the lockstep fuzzer; :mod:`~american_sniff.conformance.inputs`: the bad
  inputs both send.

The vectors are made by ``tools/generate_vectors.py``, a tool of the
repository that the package does not hold.

``docs/protocol.md`` and ``docs/conformance.md`` describe the protocol and the
vectors field by field.
"""

from .kit import (
    Engine,
    EngineError,
    KitReport,
    LocalEngine,
    SubprocessEngine,
    VectorResult,
    run_kit,
)
from .loading import KINDS, VECTORS_FORMAT, InvalidVectors, Vector, load_vectors
from .protocol import PROTOCOL, PROTOCOL_VERSION, ProtocolError, Session, serve

__all__ = [
    "KINDS",
    "PROTOCOL",
    "PROTOCOL_VERSION",
    "VECTORS_FORMAT",
    "Engine",
    "EngineError",
    "InvalidVectors",
    "KitReport",
    "LocalEngine",
    "ProtocolError",
    "Session",
    "SubprocessEngine",
    "Vector",
    "VectorResult",
    "load_vectors",
    "run_kit",
    "serve",
]
