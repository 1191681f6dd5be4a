"""numba's on-disk cache of the compiled kernels (models/compiled.py): a
changed helper module, or another fairalloc version, compiles afresh; an
unchanged kernel is loaded, and its first compilation is announced once,
on stderr, for every registered kernel at once (models/kernels.py)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from models.compiled import fingerprint, numba_available

ROOT = Path(__file__).resolve().parents[1]

KERNEL = textwrap.dedent("""
    from kmod_helper import helper, STEP


    def kernel(x):
        return helper(x) * 2 + STEP
""")
HELPER = "STEP = {step}\n\n\ndef helper(x):\n    return x + {inc}\n"
RUN = textwrap.dedent("""
    from models.compiled import compiled, set_notice
    from kmod_helper import helper
    from kmod_kernel import kernel

    set_notice(lambda message: print("NOTICE", message))
    fn = compiled(kernel, (helper,))
    print("RESULT", fn(3))
    print("HITS", sum(fn.stats.cache_hits.values()) if hasattr(fn, "stats") else "python")
""")


def _run(tmp_path: Path, **env: str) -> dict[str, str]:
    """Run :data:`RUN` in a fresh interpreter; its ``NOTICE``/``RESULT``/``HITS`` lines."""
    environ = {**os.environ, "FAIRALLOC_CACHE_DIR": str(tmp_path / "cache"),
               "PYTHONPATH": os.pathsep.join([str(tmp_path / "src"), str(ROOT)]), **env}
    r = subprocess.run([sys.executable, "-c", RUN], capture_output=True, text=True, env=environ, timeout=300)
    assert r.returncode == 0, r.stderr
    return {line.split(" ", 1)[0]: line.split(" ", 1)[1] for line in r.stdout.splitlines()}


def _write(tmp_path: Path, step: int, inc: int) -> None:
    src = tmp_path / "src"
    src.mkdir(exist_ok=True)
    (src / "kmod_kernel.py").write_text(KERNEL)
    (src / "kmod_helper.py").write_text(HELPER.format(step=step, inc=inc))


@pytest.mark.skipif(not numba_available(), reason="numba not installed")
def test_a_changed_helper_is_compiled_afresh_not_loaded_stale(tmp_path: Path) -> None:
    _write(tmp_path, step=0, inc=1)
    first = _run(tmp_path)
    assert first["RESULT"] == "8" and first["HITS"] == "0" and "compiling" in first["NOTICE"]
    again = _run(tmp_path)  # loaded from the disk cache, silently
    assert again["RESULT"] == "8" and int(again["HITS"]) >= 1 and "NOTICE" not in again
    _write(tmp_path, step=0, inc=5)  # only the helper module changes (numba alone checks the kernel's file)
    changed = _run(tmp_path)
    assert changed["RESULT"] == "16" and changed["HITS"] == "0" and "NOTICE" in changed
    python = _run(tmp_path, FAIRALLOC_NO_NUMBA="1")  # the plain-Python form, same answer
    assert python == {"RESULT": "16", "HITS": "python"}


def test_the_fingerprint_follows_versions_sources_and_constants(tmp_path: Path) -> None:
    _write(tmp_path, step=0, inc=1)
    sys.path.insert(0, str(tmp_path / "src"))
    try:
        import kmod_helper  # type: ignore[import-not-found]
        import kmod_kernel  # type: ignore[import-not-found]

        fns = (kmod_helper.helper, kmod_kernel.kernel)
        env = {**kmod_helper.__dict__, **kmod_kernel.__dict__}
        base = fingerprint(fns, env, {}, package_version="1.0")
        assert fingerprint(fns, env, {}, package_version="1.0") == base
        assert fingerprint(fns, env, {}, package_version="1.1") != base
        assert fingerprint(fns, env, {"_nrt": False}, package_version="1.0") != base
        assert fingerprint(fns, {**env, "STEP": 1}, {}, package_version="1.0") != base
        (tmp_path / "src" / "kmod_helper.py").write_text(HELPER.format(step=0, inc=2))
        assert fingerprint(fns, env, {}, package_version="1.0") != base
    finally:
        sys.path.remove(str(tmp_path / "src"))
        sys.modules.pop("kmod_helper", None)
        sys.modules.pop("kmod_kernel", None)


def test_a_compilation_is_announced_on_stderr_terminal_or_not(capsys: pytest.CaptureFixture[str],
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    # a script or a notebook (stderr not a terminal) is told why it waits, as a person at a terminal is
    from analyzer import cli
    from models import compiled

    monkeypatch.setattr(compiled, "_NOTICE", [None])
    assert cli.main(["policies"]) == 0 and compiled._NOTICE[0] is cli._note
    capsys.readouterr()
    compiled.announce("compiling the fast kernels with numba (cached in X)")
    compiled.announce("compiling another kernel")  # once per process
    assert capsys.readouterr().err == "fairalloc: compiling the fast kernels with numba (cached in X)\n"
    monkeypatch.setattr(compiled, "_NOTICE", [compiled._to_stderr])  # the Python API's default: the same line
    compiled.announce("compiling")
    assert capsys.readouterr().err == "fairalloc: compiling\n"


TWO_KERNELS = textwrap.dedent("""
    import numpy as np
    from models import kernels
    from models.compiled import set_notice
    from models.registry import Registry
    from kmod_helper import helper
    from kmod_kernel import kernel, other

    kernels.KERNELS = Registry("compiled kernel")  # only these two
    kernels._ENTRY_POINTS_LOADED[0] = True
    kernels.register_kernel("a", kernel, (helper,), lambda: (3,), "placements")
    kernels.register_kernel("b", other, (), lambda: (np.zeros(2),), "placements")
    set_notice(lambda message: print("NOTICE", message))
    name = {name!r}
    fn = kernels.compiled_form(name)
    print("RESULT", fn(3) if name == "a" else fn(np.ones(2)))
    print("LOADED", ",".join(sorted(kernels._FORMS)))
    print("HITS", sum(fn.stats.cache_hits.values()))
""")


@pytest.mark.skipif(not numba_available(), reason="numba not installed")
def test_the_first_compiled_run_compiles_every_kernel_once(tmp_path: Path) -> None:
    # one compilation per installation: asking for kernel a compiles b too (one notice); a later
    # process asking for b loads it, silently
    _write(tmp_path, step=0, inc=1)
    with open(tmp_path / "src" / "kmod_kernel.py", "a") as f:
        f.write("\n\ndef other(x):\n    return x.sum() + 1.0\n")
    environ = {**os.environ, "FAIRALLOC_CACHE_DIR": str(tmp_path / "cache"),
               "PYTHONPATH": os.pathsep.join([str(tmp_path / "src"), str(ROOT)])}

    def run(name: str) -> dict[str, str]:
        r = subprocess.run([sys.executable, "-c", TWO_KERNELS.format(name=name)], capture_output=True, text=True,
                           env=environ, timeout=300)
        assert r.returncode == 0, r.stderr
        return {line.split(" ", 1)[0]: line.split(" ", 1)[1] for line in r.stdout.splitlines()}

    first = run("a")
    assert first["RESULT"] == "8" and first["LOADED"] == "a,b" and first["HITS"] == "0"
    assert first["NOTICE"].startswith("compiling the fast kernels with numba (2 kernels, once per installation")
    later = run("b")
    assert later["RESULT"] == "3.0" and later["LOADED"] == "b" and int(later["HITS"]) >= 1 and "NOTICE" not in later
