"""CEEI's batch takes instances of mixed shapes and weights, padded to a
common shape (users capped at 0, resources nobody demands): each member
comes out as the policy's own solver gives it alone, and the screens'
batches of a stream chunk are one padded batch per size class."""

from __future__ import annotations

import numpy as np
import pytest

from analyzer.properties import _batch, get_property
from analyzer.properties._batch import PAD_FLOOR, mixes_shapes, numeric_batch, padded_groups, widened
from analyzer.properties._common import numeric_below, one_share_tasks_np
from analyzer.properties.envy_freeness import _envy_matrix
from analyzer.searching.instance_stream import make_cell
from models import Instance, get_policy
from models.tolerances import CROSSCHECK_RTOL

MIXED = [
    Instance.from_exact([9, 18], [[1, 4], [3, 1]]),  # the paper's example: 45/11 and 18/11
    Instance.from_exact([1, 1, 2], [[1, 2, 1], [2, 1, 1], [1, 1, 1]], weights=[1, 2, 3]),
    Instance.from_exact([10], [[1], [2], [3], [1], [2]], max_tasks=[0, None, 1, None, 2]),
    Instance.from_exact([4, 4, 4, 4], [[1, 0, 0, 1], [0, 1, 1, 0]], weights=[2, 1], max_tasks=[1, None]),
]


def test_ceei_batch_takes_mixed_shapes_and_filling_does_not() -> None:
    assert mixes_shapes(get_policy("ceei").batch_solver())
    assert not mixes_shapes(get_policy("drf").batch_solver())


def test_padded_members_are_solved_as_alone() -> None:
    ceei = get_policy("ceei")
    xs = numeric_batch(ceei, MIXED, "continuous")
    assert [None if x is None else x.shape for x in xs] == [(inst.n,) for inst in MIXED]
    np.testing.assert_allclose(xs[0] * 11, [45, 18], rtol=CROSSCHECK_RTOL)
    for x, inst in zip(xs, MIXED, strict=True):
        assert x is not None
        np.testing.assert_allclose(x, ceei.solve(inst).x, rtol=CROSSCHECK_RTOL, atol=1e-12)
    assert xs[2][0] == 0.0  # a user capped at 0 gets nothing, padded or not
    # the check and the margin reuse the batch's tasks (the same instance objects)
    assert all(_batch.remembered(ceei, inst, "continuous") is not None for inst in MIXED)


def test_padded_groups_bound_the_padding() -> None:
    big = Instance.from_arrays(np.ones(2), np.ones((3 * PAD_FLOOR, 2)))
    groups = padded_groups([*MIXED, big])
    shapes = sorted((D.shape, tuple(idxs)) for idxs, D, _, _, _ in groups)
    # every instance up to PAD_FLOOR users and resources in one batch, the big one alone
    assert shapes == [((1, 3 * PAD_FLOOR, 2), (4,)), ((4, 5, 4), (0, 1, 2, 3))]
    idxs, D, R, w, caps = next(g for g in groups if len(g[0]) == 4)
    assert (caps[0, 2:] == 0).all() and (D[0, 2:] == 0).all() and (D[0, :, 2:] == 0).all()
    assert (R[0, 2:] == 1).all() and (w[0, 2:] == 1).all()


def _alone(prop: str, x: np.ndarray | None, inst: Instance) -> bool:
    """The screen's comparison made on one instance (as before the padded groups)."""
    if x is None:
        return True
    if prop == "sharing-incentive":
        return bool(numeric_below(widened(x, up=False), one_share_tasks_np(inst, "continuous")).any())
    envied = _envy_matrix(inst, widened(x, up=True), "continuous")
    return bool(numeric_below(widened(x, up=False)[:, None], envied).any())


@pytest.mark.parametrize("prop", ["sharing-incentive", "envy-freeness"])
def test_padded_screens_flag_as_one_instance_at_a_time(prop: str) -> None:
    """The screens compare a padded group at once (real users only): the
    same flags as the comparisons made on each instance alone."""
    flagged = 0
    for policy in ("ceei", "drf", "asset", "leximin-tasks"):  # leximin-tasks: envy flagged (its own batch)
        for cls in (None, "weights,caps,zeros"):
            cell = make_cell(policy, prop, 600, 5, cls, "continuous")
            P, pol = get_property(prop), get_policy(policy)
            insts = [i for i in (cell.at(p)[1] for p in range(256)) if i is not None and pol.supports(i) is None
                     and P.applies(i) is None]
            flags = P.screen_many(pol, insts, "continuous")
            alone = [_alone(prop, x, inst) for x, inst in zip(numeric_batch(pol, insts, "continuous"), insts,
                                                              strict=True)]
            assert flags.tolist() == alone, (policy, cls)
            flagged += sum(alone)
    assert flagged > 0  # the flagged side is compared too
