"""Conformance: the engine protocol, the shipped test vectors and the kit that runs them."""
