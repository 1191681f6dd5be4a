"""Re-check SMT-LIB2 scripts written by `fairalloc prove ... --emit-smt2 DIR`
with z3 and cvc5, each reading the file itself, without fairalloc.

    python examples/recheck_smt2.py DIR/*.smt2

Prints one line per file: z3's and cvc5's answers (`unsat`: the case holds
no counterexample). cvc5 is asked with cylindrical algebraic coverings first,
then with its default procedures (the prover tries a third, incremental
linearisation, the same way). Exits 1 unless every answer is `unsat`.
"""

from __future__ import annotations

import sys

import cvc5
import z3


def z3_answer(path: str) -> str:
    solver = z3.Solver()
    solver.from_file(path)
    return str(solver.check())


def cvc5_answer(path: str, options: dict[str, str]) -> str:
    tm = cvc5.TermManager()
    solver = cvc5.Solver(tm)
    for key, value in options.items():
        solver.setOption(key, value)
    symbols = cvc5.SymbolManager(tm)
    parser = cvc5.InputParser(solver, symbols)
    parser.setFileInput(cvc5.InputLanguage.SMT_LIB_2_6, path)
    out = []
    while not (command := parser.nextCommand()).isNull():
        out.append(command.invoke(solver, symbols))
    return "".join(out).strip().splitlines()[-1]


def main(paths: list[str]) -> int:
    ok = True
    for path in paths:
        first = z3_answer(path)
        second = cvc5_answer(path, {"nl-ext": "none", "tlimit-per": "60000"})
        if second not in ("sat", "unsat"):
            second = cvc5_answer(path, {"tlimit-per": "60000"})
        print(f"{path}: z3 {first}, cvc5 {second}")
        ok = ok and first == second == "unsat"
    return 0 if ok and paths else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
