"""Launches from public repositories (each fixture cites its source on its first line) that a run saw and did
not read: each is listed with its launcher at the line where it starts (docs/wild.md, issue 30)."""
from __future__ import annotations

from pathlib import Path

import pytest

from moecfg.checking.engine import check_paths

FIXTURES = Path(__file__).parent / "fixtures"

CASES = [
    ("slime-test-launch.py", [(8, "slime")]),
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
    # Megatron-Bridge's inference script (trainers/megatron_bridge/conversion.py, bridge3): read, the provider's
    # dispatcher listed
    ("megatron-bridge-generate.sh", [(2, "megatron-bridge", "inference dispatcher not derived: text generation "
                                     "(hf_to_megatron_generate_text.py) over EP 8 runs the model provider's "
                                     "moe_token_dispatcher_type, set in Python by the model's bridge (provider_bridge): "
                                     "not read")]),
]


def test_the_bridge_readme_export_without_its_required_paths_is_refused():
    """megatron-bridge-convert.md (listed as unread until bridge3): `convert.sh export` without --megatron-path and
    --hf-path, which its parser requires (scripts/conversion/arguments.py:165, :267)."""
    report = check_paths([str(FIXTURES / "megatron-bridge-convert.md")])
    assert [d.code for r in report.results for d in r.diagnostics if d.severity == "error"] == ["MC714"]
    assert report.unread == []


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
