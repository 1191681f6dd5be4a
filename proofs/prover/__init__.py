"""An SMT prover for fairness properties of allocation policies: the policy
and the negated property as one formula over the reals per case of a split
(z3, exact real arithmetic). UNSAT in every case proves the property for
every instance of the encoded size and domain; a satisfiable case yields a
counterexample, which :func:`analyzer.prove` re-verifies exactly.

z3 is imported by the modules of this package: import it only when proving.
"""

from .result import COUNTEREXAMPLE, PROVED, UNDECIDED, VACUOUS, CaseResult, ProofResult

__all__ = ["COUNTEREXAMPLE", "PROVED", "UNDECIDED", "VACUOUS", "CaseResult", "ProofResult"]
