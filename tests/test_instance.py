"""Instance construction, round trips and from_arrays validation."""

import json
from fractions import Fraction

import numpy as np
import pytest

from analyzer import Instance, InstanceError


def test_to_dict_round_trips_exact_values() -> None:
    inst = Instance.from_dict({
        "resources": {"cpu": "1/3", "mem": 0.1},
        "users": {"A": {"demand": {"cpu": 1, "mem": 0.25}, "weight": "2/3", "max_tasks": 4}},
    })
    back = Instance.from_dict(json.loads(json.dumps(inst.to_dict())))
    assert back == inst
    assert back.capacity_exact == (Fraction(1, 3), Fraction(1, 10))
    assert back.weights_exact == (Fraction(2, 3),)


def test_toml_writer_round_trips(tmp_path) -> None:
    inst = Instance.load("examples/paper_two_users.toml")
    p = tmp_path / "x.toml"
    p.write_text(inst.to_toml())
    assert Instance.load(p) == inst


def test_json_file(tmp_path) -> None:
    p = tmp_path / "s.json"
    p.write_text(json.dumps({"resources": {"cpu": 9, "mem": 18},
                             "users": {"A": {"demand": {"cpu": 1, "mem": 4}}}}))
    assert Instance.load(p).n == 1


def test_from_arrays_matches_from_dict() -> None:
    a = Instance.from_arrays([9, 18], np.array([[1, 4], [3, 1]]), resources=["cpu", "mem"], users=["A", "B"])
    b = Instance.load("examples/paper_two_users.toml")
    assert a.to_dict()["users"] == b.to_dict()["users"]


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"capacity": [1, -1], "demands": [[1, 1]]}, "capacity.r1"),
        ({"capacity": [1, np.nan], "demands": [[1, 1]]}, "capacity.r1"),
        ({"capacity": [1, 1], "demands": [[1, -2]]}, "demands[0].r1"),
        ({"capacity": [1, 1], "demands": [[1, 1], [0, 0]]}, "demands[1]"),
        ({"capacity": [1, 1], "demands": [[1, 1]], "weights": [0]}, "weights[0]"),
        ({"capacity": [1, 1], "demands": [[1, 1]], "max_tasks": [-1]}, "max_tasks[0]"),
        ({"capacity": [1, 1], "demands": [[1, 1, 1]]}, "demands"),
        ({"capacity": [], "demands": [[1]]}, "capacity"),
    ],
)
def test_from_arrays_rejects(kwargs, field) -> None:
    with pytest.raises(InstanceError, match=r"^" + field.replace("[", r"\[").replace("]", r"\]")):
        Instance.from_arrays(**kwargs)


def test_machines_must_match_resources() -> None:
    spec = {"resources": {"cpu": 9, "mem": 18}, "users": {"A": {"demand": {"cpu": 1}}},
            "machines": [{"count": 3, "cpu": 3, "mem": 6}]}
    assert Instance.from_dict(spec).machines[0].count == 3
    spec["machines"][0]["count"] = 2
    with pytest.raises(InstanceError, match="machines: total cpu"):
        Instance.from_dict(spec)
