"""Proving: the SMT front door (``prove``), the encoding guard, and the bounded discrete prover."""
