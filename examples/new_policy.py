"""A new policy in a few lines: max-min on the mean of dominant and asset shares.

Use it with `fairalloc solve FILE --policy-file examples/new_policy.py --policy drf-asset-mix`.
"""
from models import FillingPolicy, register


@register
class DrfAssetMix(FillingPolicy):
    name = "drf-asset-mix"
    description = "Max-min on (dominant share + mean share) / 2, an example user policy"

    def share_per_task(self, demands, capacity):
        s = demands / capacity
        return (s.max(axis=1) + s.sum(axis=1) / s.shape[1]) / 2
