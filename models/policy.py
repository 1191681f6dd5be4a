"""The policy interface and the registry of named policies.

A policy maps an :class:`~models.instance.Instance` to an
:class:`~models.allocation.Allocation`. Built-in policies live one per file
in :mod:`models.policies` and register themselves with :func:`register`; a
user's policy does the same from its own file (``--policy-file``).

Names are lower-case and hyphenated (``drf``, ``asset``, ``ceei``).
Parameterised policies take parameters by name: ``"fds:beta=2"``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from .errors import PolicyError
from .registry import Registry

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

    from .allocation import Allocation
    from .instance import Instance

#: A vectorised solver of many instances at once: (demands (K, n, m),
#: capacity (m,) or (K, m), weights (n,), caps (K, n)) -> (tasks (K, n),
#: converged (K,)); see :meth:`Policy.batch_solver`.
BatchSolver = Callable[["np.ndarray", "np.ndarray", "np.ndarray", "np.ndarray"], "tuple[np.ndarray, np.ndarray]"]


class Policy(ABC):
    """A named allocation policy.

    Subclasses set :attr:`name`, :attr:`description` (one line) and
    :attr:`source` (paper and section of the definition), and implement
    :meth:`solve`. Where the policy is an LP or convex program they also
    implement :meth:`program`/:meth:`solve_program` (its definition in
    cvxpy), and where exact arithmetic is possible :meth:`solve_exact`.

    Parameters declared in :attr:`parameters` (name -> default) are given by
    keyword and appear in :attr:`label` (``fds:beta=2``).
    """

    name: ClassVar[str]
    description: ClassVar[str] = ""
    source: ClassVar[str] = ""
    parameters: ClassVar[dict[str, Any]] = {}
    #: True for policies defined for whole tasks only (the production
    #: variants of :mod:`models.variants`): their continuous ``solve``
    #: raises :class:`PolicyError`.
    discrete_only: ClassVar[bool] = False
    #: True when reports are scale-free for this policy in the continuous
    #: setting: multiplying user ``i``'s demand (and cap ``k_i``, divided)
    #: by any ``c > 0`` gives it ``x_i / c`` tasks (the same bundle) and
    #: leaves every other user's tasks unchanged. The strategy-proofness
    #: search then skips rescaled reports; every policy that does not
    #: declare it (the default, so also every user-written policy) is
    #: searched over report scales too. ``tests/test_scale_invariance.py``
    #: proves each declaration on random instances.
    scale_invariant: ClassVar[bool] = False
    #: True when the continuous allocation places tasks on the instance's
    #: machine types (DRFH): a task runs only where it fits, so feasibility
    #: (Pareto efficiency) is judged per machine type, not on the pool.
    places_tasks: ClassVar[bool] = False

    def __init__(self, **params: Any) -> None:
        unknown = sorted(set(params) - set(self.parameters))
        if unknown:
            allowed = ", ".join(self.parameters) or "none"
            raise PolicyError(f"policy {self.name!r}: unknown parameter {unknown[0]!r} (parameters: {allowed})")
        self.params: dict[str, Any] = {**self.parameters, **params}

    @property
    def label(self) -> str:
        """Name plus non-default parameters, as typed on the command line."""
        extra = [f"{k}={v}" for k, v in self.params.items() if v != self.parameters.get(k)]
        return self.name + (":" + ",".join(extra) if extra else "")

    def supports(self, instance: Instance) -> str | None:
        """``None`` when the policy applies to ``instance``, otherwise the
        reason it does not (shown as "n/a" in tables).

        The base rejects resources of capacity 0 (declared with the
        scenario key ``zero_capacity``): every share ``d_ij / R_j`` of the
        paper's policies divides by the capacity. Subclasses that override
        this should call ``super().supports(instance)``.
        """
        zero = instance.extensions.zero_capacity
        if zero:
            return f"resource {zero[0]} has capacity 0 (shares divide by the capacity)"
        return None

    @abstractmethod
    def solve(self, instance: Instance) -> Allocation:
        """Fast numeric solution (floats)."""

    def batch_solver(self) -> BatchSolver | None:
        """A vectorised solver of many instances of equal shape and weights
        (the property screens use it), or ``None`` (the default: one
        :meth:`solve` per instance). Each member must come out as
        :meth:`solve` would give it alone (up to rounding); a member the
        batch cannot certify is marked not converged, and the screens then
        call :meth:`solve` for it."""
        return None

    def solve_exact(self, instance: Instance) -> Allocation:
        """Exact solution (Fractions or sympy numbers).

        Raises
        ------
        NotImplementedError
            When the policy has no exact path.
        """
        raise NotImplementedError(f"policy {self.name!r} has no exact solver")

    def solve_tight(self, instance: Instance) -> Allocation:
        """The numeric solution re-computed at tighter tolerance (solver
        tolerances times :data:`~models.tolerances.RESOLVE_TIGHTEN`), to
        confirm a violation found with floats before it is reported.

        The default is :meth:`solve`: policies whose numeric solver has no
        tolerance to tighten (filling, closed forms) override nothing.
        """
        return self.solve(instance)

    @property
    def has_exact(self) -> bool:
        """True when :meth:`solve_exact` is implemented."""
        return type(self).solve_exact is not Policy.solve_exact

    def program(self, instance: Instance) -> list[Any]:
        """The cvxpy problem(s) defining the policy (solved in order).

        Raises
        ------
        NotImplementedError
            When the policy is not defined by convex programs.
        """
        raise NotImplementedError(f"policy {self.name!r} is not defined by a convex program")

    def solve_program(self, instance: Instance) -> Allocation:
        """Solution computed from :meth:`program` (the definition; slow)."""
        raise NotImplementedError(f"policy {self.name!r} is not defined by a convex program")

    def __repr__(self) -> str:
        return f"<policy {self.label}>"


P = TypeVar("P", bound=type[Policy])

#: Every policy class, by name: the built-ins (one module each in
#: ``models/policies``) are imported on first use; the production variants
#: (``models/variants``: they import the discrete engine) only when listed or
#: asked for by name, so ``fairalloc solve --policy drf`` does not import them.
POLICIES: Registry[type[Policy]] = Registry("policy", lazy=(f"{__package__}.policies", f"{__package__}.variants"),
                                            error=PolicyError)


def register(cls: P) -> P:
    """Class decorator adding a policy to :data:`POLICIES` under ``cls.name``.

    Examples
    --------
    >>> from models.filling import FillingPolicy
    >>> class CpuFirst(FillingPolicy):
    ...     name = "cpu-first"
    ...     description = "max-min on the share of the first resource"
    ...     def share_per_task(self, demands, capacity):
    ...         return demands[:, 0] / capacity[0]
    >>> register(CpuFirst) is CpuFirst   # now get_policy("cpu-first") works
    True
    >>> POLICIES.unregister("cpu-first")
    """
    name = getattr(cls, "name", None)
    if not isinstance(name, str) or not name or name != name.lower() or " " in name:
        raise PolicyError(f"policy class {cls.__name__}: name must be a non-empty lower-case word, got {name!r}")
    return POLICIES.register(name, cls)


def available() -> dict[str, type[Policy]]:
    """All registered policies, by name (built-ins and the production
    variants are loaded on first use)."""
    return dict(POLICIES.items())


def parse_policy_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """Split ``"fds:beta=2,gamma=0.5"`` into a name and typed parameters."""
    name, _, rest = spec.strip().partition(":")
    params: dict[str, Any] = {}
    if rest:
        for part in rest.split(","):
            key, eq, raw = part.partition("=")
            if not eq or not key.strip():
                raise PolicyError(f"policy {spec!r}: parameters are written name=value, got {part!r}")
            params[key.strip()] = _parse_value(raw.strip())
    return name.strip().lower(), params


def _parse_value(raw: str) -> Any:
    low = raw.lower()
    if low in ("true", "false"):
        return low == "true"
    if low in ("inf", "infinity"):
        return float("inf")
    for conv in (int, float):
        try:
            return conv(raw)
        except ValueError:
            pass
    return raw


def get_policy(spec: str | Policy, **params: Any) -> Policy:
    """A policy object from a name (with optional ``:k=v`` parameters) or a
    policy object (returned as is).

    Raises
    ------
    PolicyError
        For an unknown name or parameter.
    """
    if isinstance(spec, Policy):
        return spec
    if isinstance(spec, type) and issubclass(spec, Policy):
        return spec(**params)
    if not isinstance(spec, str):
        raise PolicyError(f"policy must be a name or a Policy, got {type(spec).__name__}")
    name, parsed = parse_policy_spec(spec)
    return POLICIES.get(name)(**{**parsed, **params})
