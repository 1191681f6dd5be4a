"""Built-in policies, one per module. Every module here is imported by
:func:`models.policy.available` and registers its policy with
:func:`models.policy.register`. No module may import cvxpy at top level."""
