"""Exact arithmetic: rational solutions, optimality certificates and symbolic
derivations. Depends on :mod:`models` only."""
