"""Production allocators' variants of DRF, as discrete policies.

Each module models how one deployed scheduler computes and compares
"dominant shares" (Ghodsi et al., NSDI 2011, Section 4, is the reference
definition) and registers it twice: as a :class:`~models.policy.Policy`
(so ``get_policy("mesos")``, ``fairalloc policies`` and the property table
know it) and, through :meth:`~models.variants._common.VariantPolicy.discrete_form`,
as a :class:`~models.discrete.DiscretePolicy` run by the discrete engine.
The variants are defined for whole tasks only; their continuous ``solve``
raises :class:`~models.errors.PolicyError`.

Modules (one variant each; imported by :func:`models.policy.available`, or
by :func:`models.policy.get_policy` for a name that is not a built-in, so a
plain ``fairalloc solve --policy drf`` does not load the discrete engine):
``mesos``, ``yarn``, ``volcano``, ``kueue``. Shared helpers live in
``_common``.
"""
