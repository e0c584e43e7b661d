"""Issue 30 item 3: four ways of saying more than moecfg knows, each from a minimal reproduction written here
(dangling links: tests/coverage/test_report.py and tests/hardening/test_walk.py)."""
from __future__ import annotations

from moecfg.checking.engine import check_paths, check_text
from moecfg.frameworks import LaunchContext
from moecfg.frameworks.flag_tables import unversioned_tag
from moecfg.frameworks.models import PLACEHOLDER_PRESET, suggested_preset

# A documented placeholder the user replaces before use (a TorchServe-on-Kubernetes guide's manifest).
TORCHSERVE = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: torchserve
spec:
  template:
    spec:
      containers:
      - name: torchserve
        image: {username}/torchserve:latest
        ports:
        - containerPort: 8080
"""


def _codes(checked):
    return [d.code for r in checked.results for d in r.diagnostics]


def test_a_placeholder_template_naming_no_moe_launch_is_skipped_with_its_reason():
    checked = check_text(TORCHSERVE, "deploy/torchserve.yaml")
    assert _codes(checked) == []  # was MC001 (error)
    (skipped,) = checked.skipped
    assert "`{username}`, line 10" in skipped.reason and "no MoE launch" in skipped.reason


def test_a_placeholder_template_naming_a_launch_is_mc024_at_the_placeholder():
    text = TORCHSERVE.replace("torchserve:latest", "sglang:latest\n        command: [python3, -m, sglang.launch_server]")
    checked = check_text(text, "deploy/sglang.yaml")
    (diag,) = [d for r in checked.results for d in r.diagnostics]
    assert (diag.code, diag.severity, diag.line, diag.column) == ("MC024", "info", 10, 16)


def test_broken_yaml_without_a_placeholder_is_still_mc001():
    text = "product: A3\nbs: [1, 2\n"
    assert _codes(check_text(text, "a.yaml")) == ["MC001"]


def test_flow_mappings_and_helm_are_not_placeholders():
    assert _codes(check_text("product: A3\nbs: {a: 1}/x\n", "a.yaml")) == ["MC001"]


# SGLang on GPUs, an image tag that names no version (lmsysorg/sglang:deepseek-v4-blackwell style) and FP8:
# every SGLang release sizes the normal Buffer with 2 bytes per element, only main after 0.5.23 with 1.
SGLANG_POD = """apiVersion: v1
kind: Pod
metadata:
  name: sglang-dsv3
spec:
  containers:
  - name: server
    image: lmsysorg/sglang:{tag}
    command: ["python3", "-m", "sglang.launch_server", "--model-path", "deepseek-ai/DeepSeek-V3", "--tp", "16",
              "--ep", "16", "--moe-a2a-backend", "deepep", "--quantization", "fp8", "--nnodes", "2"]
    resources:
      limits:
        nvidia.com/gpu: 8
"""


def test_an_unversioned_image_tag_is_derived_as_the_newest_release_and_said_once():
    checked = check_text(SGLANG_POD.format(tag="deepseek-v4-blackwell"), "pod.yaml")
    diags = [d for r in checked.results for d in r.diagnostics]
    assert "MC644" not in [d.code for d in diags]  # was a warning: main's FP8 sizing applied to a release
    (said,) = [d for d in diags if d.code == "MC040"]
    assert "`deepseek-v4-blackwell` names no version" in said.message and "newest release" in said.message


def test_a_development_tag_is_still_read_as_main():
    diags = [d.code for r in check_text(SGLANG_POD.format(tag="nightly-dev-20260801"), "pod.yaml").results
             for d in r.diagnostics]
    assert "MC644" in diags


def test_unversioned_tag():
    assert unversioned_tag("sglang", "lmsysorg/sglang:deepseek-v4-blackwell") == "deepseek-v4-blackwell"
    assert unversioned_tag("sglang", "lmsysorg/sglang:latest") == "latest"
    assert unversioned_tag("sglang", "lmsysorg/sglang:v0.5.8-cu130") is None  # a version
    assert unversioned_tag("sglang", "lmsysorg/sglang:dev") is None  # a development build
    assert unversioned_tag("sglang", "nvcr.io/nvidia/ai-dynamo/sglang-runtime:1.2.0") is None  # Dynamo's version
    assert unversioned_tag("sglang", "vllm/vllm-openai:latest") is None  # another framework's image
    assert unversioned_tag("sglang", "lmsysorg/sglang") is None  # no tag


def test_mc042_names_the_preset_the_path_names_else_a_placeholder():
    assert suggested_preset(None, "guides/kimi-k2/serve.sh") == "kimi-k2"
    assert suggested_preset(None, "recipes/Kimi-K2.5_deploy.sh") == "kimi-k2.5"
    assert suggested_preset("/models/Qwen3-30B-A3B-FP8", "x.sh") == "qwen3-30b-a3b"
    assert suggested_preset(None, "deploy/serve.sh") == PLACEHOLDER_PRESET
    assert suggested_preset("$MODEL_PATH", None) == PLACEHOLDER_PRESET


def test_mc042_on_a_kimi_guide_never_advises_deepseek_v3(tmp_path):
    """Followed, `models: {'*': deepseek-v3}` on a Kimi-K2 launch gives a false MC630 (352 experts on 96 ranks)."""
    guide = tmp_path / "kimi-k2"
    guide.mkdir()
    (guide / "serve.sh").write_text("#!/bin/bash\npython3 -m sglang.launch_server --model-path $MODEL_PATH --tp 16 "
                                    "--ep 16 --moe-a2a-backend deepep --nnodes 2\n")
    (asked,) = [d.message for r in check_paths([str(tmp_path)]).results for d in r.diagnostics if d.code == "MC042"]
    assert "`models: {'*': kimi-k2}`" in asked and "deepseek-v3" not in asked
    assert LaunchContext().file is None
