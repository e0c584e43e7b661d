"""Issue 21 follow-ups on NVIDIA/srt-slurm-recipes: an error only where the launch surely fails (fixtures cite
their source on line 1)."""
from __future__ import annotations

from wildkit import FIXTURES, findings

from moecfg.backends import Options
from moecfg.checking.engine import lint_text
from moecfg.frameworks import image_version

QP = "srt-recipes-r1-qp-depth-pinned.yaml"


def test_qp_depth_on_a_pinned_sglang_image_is_a_warning_with_the_fix():
    # DeepEP asserts the depth only from d981409; the images of SGLang 0.5.x build DeepEP before it: not certain.
    got = findings(QP)
    assert [f[:2] for f in got if f[1] == "error"] == []
    (qp,) = [f for f in got if f[0] == "MC641"]
    assert qp[1] == "warning" and qp[2] == 13  # the line of the token cap
    assert "NVSHMEM_QP_DEPTH: 2050" in qp[3] and "to 511" in qp[3] and "d981409" in qp[3]


def _lint(text: str) -> list:
    return [(d.code, d.severity) for r in lint_text(text, "recipe.yaml", Options()) for d in r.diagnostics]


def test_qp_depth_deep_enough_says_nothing():
    text = (FIXTURES / QP).read_text().replace('TOKENS_PER_RANK: "1024"',
                                                'TOKENS_PER_RANK: "1024"\n    NVSHMEM_QP_DEPTH: "2050"')
    assert "NVSHMEM_QP_DEPTH" in text and "MC641" not in {c for c, _ in _lint(text)}


def test_qp_depth_on_sglang_main_is_raised_by_sglang():
    text = (FIXTURES / QP).read_text().replace("lmsysorg/sglang:v0.5.7-cu130-runtime", "lmsysorg/sglang:latest")
    assert "MC641" not in {c for c, _ in _lint(text)}


def test_a_dynamo_runtime_tag_is_not_the_framework_version():
    assert image_version("nvcr.io/nvidia/ai-dynamo/sglang-runtime:1.2.0-sglang-deepseek-v4-b200-dev.1") is None
    assert image_version("nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.6.1") is None
    assert image_version("lmsysorg/sglang:v0.5.8.post1-cu130-runtime") == "0.5.8"


def test_mega_moe_recipe_on_a_dynamo_image_has_no_deepep_cap():
    # The cap 0 sits beside SGLANG_OPT_USE_DEEPGEMM_MEGA_MOE=1: no DeepEP Buffer is built, so no MC601.
    got = findings("srt-recipes-v4-mega-moe-dynamo-image.yaml")
    assert not [f for f in got if f[1] == "error"]
    assert any(f[0] == "MC041" and "megamoe" in f[3] for f in got)


def test_broken_yaml_that_names_nothing_of_moecfg_is_skipped_not_mc001():
    # a third-party software list that is not valid YAML is not a deployment: skipped with the parser's reason
    name = "vllm-ascend-third-party-list-not-yaml.yaml"
    text = (FIXTURES / name).read_text()
    assert _lint(text) == []
    # the same break in a moecfg document (its own keys) stays MC001
    assert ("MC001", "error") in _lint("bs: 128\nh: 7168\n  k: 8\n ep_world_size: 16\n")
