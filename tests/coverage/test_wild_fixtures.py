"""Launches from public repositories (each fixture cites its source on its first line) that a run saw and did
not read: each is listed with its launcher at the line where it starts (docs/wild.md, issue 30)."""
from __future__ import annotations

from pathlib import Path

import pytest

from moecfg.checking.engine import check_paths

FIXTURES = Path(__file__).parent / "fixtures"

CASES = [
    ("slime-test-launch.py", [(8, "slime")]),
    ("megatron-bridge-convert.md", [(5, "Megatron-Bridge")]),
    ("megatron-bridge-generate.sh", [(2, "Megatron-Bridge")]),  # the script, not the generic torchrun entry
]


@pytest.mark.parametrize("name, expected", CASES, ids=[c[0] for c in CASES])
def test_a_launch_from_the_wild_is_listed_as_unread(name, expected):
    report = check_paths([str(FIXTURES / name)])
    assert [(u.line, u.launcher) for u in report.unread] == expected
    assert report.count("error") == 0 and report.count("warning") == 0
    assert [s.state for s in report.states] == ["unread"]


# Read since the trainers (moecfg/trainers/, issue 34): the launch is read; what the trainer cannot derive is listed.
READ_BY_TRAINERS = [
    ("ms-swift-megatron-moe.sh", []),
    ("slime-ray-job.sh", []),
    ("verl-recipe.md", [(3, "verl", "train engine not derived: actor_rollout_ref.actor.strategy = not known statically "
                                    "(a config moecfg has not read)"),  # recipe.dapo.main_dapo: its own config
                        (3, "verl", "rollout engine not derived: actor_rollout_ref.rollout.name = not known statically")]),
]


@pytest.mark.parametrize("name, expected", READ_BY_TRAINERS, ids=[c[0] for c in READ_BY_TRAINERS])
def test_a_trainer_launch_from_the_wild_is_read(name, expected):
    report = check_paths([str(FIXTURES / name)])
    assert [(u.line, u.launcher, u.reason) for u in report.unread] == expected
    assert report.count("error") == 0 and report.count("warning") == 0
    assert [s.state for s in report.states] == ["read"]


def test_every_fixture_cites_its_source():
    for path in FIXTURES.iterdir():
        first = path.read_text(encoding="utf-8").splitlines()[0]
        assert "@" in first and "/" in first, path.name


def test_a_lightllm_launch_is_read_and_its_prose_mention_is_no_launch():
    """lightllm-ep.md was listed as unread (line 3) until frameworks/lightllm read it (issue 35): now the fenced
    launch is read and the prose line naming it in inline code is still no launch."""
    report = check_paths([str(FIXTURES / "lightllm-ep.md")])
    assert report.unread == [] and [s.state for s in report.states] == ["read"]
    assert [r.launch["framework"] for r in report.results] == ["lightllm"]
