"""The Dask worker plugin that ships ``--policy-file`` policies to the
workers (imported only when a cluster is used: it imports ``distributed``)."""

from __future__ import annotations

from typing import Any

from distributed import WorkerPlugin


class PolicyFilePlugin(WorkerPlugin):
    """Imports the policy files loaded in the client, given as ``(module
    name, file name, source)``, on each worker as it starts (also on workers
    that join later), so that the policies are registered there and pickled
    policy objects find their classes."""

    name = "fairalloc-policy-files"

    def __init__(self, sources: list[tuple[str, str, str]]) -> None:
        self.sources = sources

    def setup(self, worker: Any) -> None:
        from ..policy_file import install_policy_sources

        install_policy_sources(self.sources)
