"""The progress file of a bounded proof (``--resume FILE``).

JSON, rewritten atomically (a temporary file, then ``os.replace``) after
every finished chunk: the run it belongs to (policy, property, class and
bound, chunk size, and the digests of everything the verdict depends on:
the policy's and the property's definitions and fairalloc's version and
sources, :mod:`.digest`), the chunks done and the totals so far. A run
given the file again skips the chunks done, so an interrupted proof
continues where it stopped and ends with the same verdict and totals as an
uninterrupted one. A file written for another run, or under another
definition of any of those (a policy file edited since, another fairalloc),
is bad input: never a verdict replayed from it.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from models import PolicyError

#: Format version of the progress file (2: the run records the digests of
#: :mod:`.digest`; a version 1 file, without them, is refused).
VERSION = 2
#: The run's digests, in words (for the refusal's message).
DIGESTS = {"policy_definition": "the policy's definition (parameters and source)",
           "property_definition": "the property's definition", "fairalloc": "fairalloc's version or sources"}


@dataclass
class Progress:
    """Chunks done and totals of one run.

    Attributes
    ----------
    run : dict
        Identifies the run (policy, property, class, chunk size).
    done : set of int
        Starting indices of the chunks finished without a violation.
    orbits, covered, evaluations : int
        Totals over those chunks.
    """

    run: dict[str, Any]
    done: set[int] = field(default_factory=set)
    orbits: int = 0
    covered: int = 0
    evaluations: int = 0

    def add(self, lo: int, orbits: int, covered: int, evaluations: int) -> None:
        """Count one finished chunk."""
        self.done.add(lo)
        self.orbits += orbits
        self.covered += covered
        self.evaluations += evaluations

    def to_dict(self) -> dict[str, Any]:
        return {"version": VERSION, "run": self.run, "done": sorted(self.done), "orbits": self.orbits,
                "covered": self.covered, "evaluations": self.evaluations}


def load(path: str | Path | None, run: dict[str, Any]) -> Progress:
    """The progress in ``path`` (a fresh one when ``path`` is ``None`` or
    does not exist yet).

    Raises
    ------
    PolicyError
        When the file is not a progress file or belongs to another run
        (bad input: exit code 2 on the command line).
    """
    if path is None or not Path(path).exists():
        return Progress(run)
    try:
        data = json.loads(Path(path).read_text())
        if data.get("version") != VERSION:
            raise ValueError(f"version {data.get('version')!r}")
        done = {int(v) for v in data["done"]}
        totals = [int(data[k]) for k in ("orbits", "covered", "evaluations")]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise PolicyError(f"resume: {path} is not a progress file of fairalloc prove --discrete ({exc})") from None
    if data.get("run") != run:
        raise PolicyError(f"resume: {path} belongs to another run ({_differs(data.get('run'), run)})")
    return Progress(run, done, *totals)


def _differs(old: Any, new: dict[str, Any]) -> str:
    if not isinstance(old, dict):
        return "no run recorded"
    keys = [k for k in new if old.get(k) != new[k]]
    return ", ".join(f"{DIGESTS[k]} changed: {old.get(k)} there, {new[k]} here" if k in DIGESTS
                     else f"{k} {old.get(k)!r} there, {new[k]!r} here" for k in keys) or "other fields"


def save(path: str | Path | None, progress: Progress) -> None:
    """Write ``progress`` to ``path`` atomically (nothing when ``None``)."""
    if path is None:
        return
    target = Path(path)
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_text(json.dumps(progress.to_dict()))
    os.replace(tmp, target)
