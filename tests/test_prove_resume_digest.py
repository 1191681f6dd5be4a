"""A resumed bounded proof never replays another definition's run (issue
27, item 4): the progress file records digests of the policy's definition,
the property, and fairalloc, and a resume under any other is refused with
one line (exit 2)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from analyzer.bounded import digest
from analyzer.policy_file import forget_policy_file, load_policy_file
from analyzer.properties.base import get_property
from analyzer.proving_discrete import prove_discrete
from models import PolicyError, get_policy

ROOT = Path(__file__).resolve().parents[1]

#: Max-min on task counts: every user gets as many tasks as the others (its
#: resource monotonicity holds); then the same file with DRF's share.
TASKS = '''from models import FillingPolicy, register


@register
class TaskMaxMin(FillingPolicy):
    name = "task-maxmin"
    description = "max-min on task counts"

    def share_per_task(self, demands, capacity):
        s = demands / capacity
        return SHARE
'''
EQUAL, DOMINANT = "s.max(axis=1) * 0 + 1", "s.max(axis=1)"


def _fairalloc(*argv: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-m", "analyzer", *argv], cwd=cwd, capture_output=True, text=True,
                          env=env, timeout=600, check=False)


def test_a_changed_policy_file_is_not_resumed(tmp_path: Path) -> None:
    """The issue's scenario, as a user runs it: proved with --resume, the
    file's share changed to DRF's, the same command again: refused (one
    line, exit 2), never PROVED from the old file; without --resume the
    changed policy is refuted."""
    policy = tmp_path / "pol.py"
    policy.write_text(TASKS.replace("SHARE", EQUAL))
    argv = ("prove", "task-maxmin", "resource-monotonicity", "--discrete", "--bound", "2", "--workers", "1",
            "--policy-file", str(policy))
    first = _fairalloc(*argv, "--resume", "p.json", cwd=tmp_path)
    assert first.returncode == 0 and "PROVED" in first.stdout, first.stdout + first.stderr
    policy.write_text(TASKS.replace("SHARE", DOMINANT))
    again = _fairalloc(*argv, "--resume", "p.json", cwd=tmp_path)
    assert again.returncode == 2 and again.stdout == "", again.stdout
    assert again.stderr.count("\n") == 1 and "Traceback" not in again.stderr
    assert again.stderr.startswith("fairalloc: error: resume: p.json belongs to another run")
    assert "the policy's definition" in again.stderr
    fresh = _fairalloc(*argv, cwd=tmp_path)
    assert fresh.returncode == 1 and "VIOLATED" in fresh.stdout, fresh.stdout + fresh.stderr


def test_a_reloaded_policy_file_is_not_resumed(tmp_path: Path) -> None:
    """In one process: the file forgotten, changed and loaded again."""
    policy, progress = tmp_path / "pol.py", tmp_path / "p.json"
    policy.write_text(TASKS.replace("SHARE", EQUAL))
    try:
        load_policy_file(policy)
        r = prove_discrete("task-maxmin", "resource-monotonicity", 2, 1, bound=2, workers=1, resume=progress)
        assert r.status == "proved"
        forget_policy_file(policy)
        policy.write_text(TASKS.replace("SHARE", DOMINANT))
        load_policy_file(policy)
        with pytest.raises(PolicyError, match=r"^resume: .* belongs to another run \(the policy's definition"):
            prove_discrete("task-maxmin", "resource-monotonicity", 2, 1, bound=2, workers=1, resume=progress)
    finally:
        forget_policy_file(policy)


def test_the_file_records_every_digest(tmp_path: Path) -> None:
    progress = tmp_path / "p.json"
    prove_discrete("drf", "population-monotonicity", 2, 1, bound=2, workers=1, resume=progress)
    run = json.loads(progress.read_text())["run"]
    want = digest.definition_digests(get_policy("drf"), get_property("population-monotonicity"))
    assert {k: run[k] for k in want} == want
    assert run["class"]["bound"] == 2 and run["policy"] == "drf" and run["property"] == "population-monotonicity"
    assert run["fairalloc"].split()[1].startswith("sha256:")


def test_another_fairalloc_is_not_resumed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    progress = tmp_path / "p.json"
    prove_discrete("drf", "population-monotonicity", 2, 1, bound=2, workers=1, resume=progress)
    monkeypatch.setattr(digest, "fairalloc_digest", lambda: "9.9.9 sha256:0000000000000000")
    with pytest.raises(PolicyError, match=r"fairalloc's version or sources changed"):
        prove_discrete("drf", "population-monotonicity", 2, 1, bound=2, workers=1, resume=progress)


def test_another_property_definition_is_not_resumed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    progress = tmp_path / "p.json"
    prove_discrete("drf", "population-monotonicity", 2, 1, bound=2, workers=1, resume=progress)
    data = json.loads(progress.read_text())
    data["run"]["property_definition"] = "sha256:0000000000000000"
    progress.write_text(json.dumps(data))
    with pytest.raises(PolicyError, match=r"the property's definition changed"):
        prove_discrete("drf", "population-monotonicity", 2, 1, bound=2, workers=1, resume=progress)


def test_a_progress_file_without_digests_is_refused(tmp_path: Path) -> None:
    """A version 1 file (no digests) could be another definition's run."""
    progress = tmp_path / "p.json"
    prove_discrete("drf", "population-monotonicity", 2, 1, bound=2, workers=1, resume=progress)
    data = json.loads(progress.read_text())
    data["version"] = 1
    for key in digest.definition_digests(get_policy("drf"), get_property("population-monotonicity")):
        del data["run"][key]
    progress.write_text(json.dumps(data))
    with pytest.raises(PolicyError, match=r"^resume: .* is not a progress file .*version 1"):
        prove_discrete("drf", "population-monotonicity", 2, 1, bound=2, workers=1, resume=progress)


def test_the_policy_digest_follows_parameters_and_sources() -> None:
    prop = get_property("population-monotonicity")
    drf = digest.definition_digests(get_policy("drf"), prop)["policy_definition"]
    assert drf == digest.definition_digests(get_policy("drf"), prop)["policy_definition"]
    assert drf != digest.definition_digests(get_policy("asset"), prop)["policy_definition"]
    slots = [digest.definition_digests(get_policy(f"slots:slots={k}"), prop)["policy_definition"] for k in (4, 5)]
    assert slots[0] != slots[1]
