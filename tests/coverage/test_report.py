"""Issue 30 item 1: every walked file ends in one state, and every launch seen but not read is listed (JSON
`unread`, `files`, `coverage`; SARIF notifications; one JUnit/github summary line; `-v`), failing the run only
with --fail-on-unread or the setting `unread: error`."""
from __future__ import annotations

import json
import os

import pytest
from click.testing import CliRunner

from moecfg.cli import cli
from moecfg.checking.engine import check_paths, check_text

# a distributed launch of a script no framework reads (LightLLM, the example before issue 35, is read now)
TORCHRUN = "#!/bin/bash\ntorchrun --nproc_per_node 8 train_moe.py --expert-parallel-size 8\n"
TORCHRUN_WHY = "distributed launch of a script moecfg does not know (not read)"
VLLM = "vllm serve deepseek-ai/DeepSeek-V3 --tensor-parallel-size 8 --enable-expert-parallel\n"
README = ("# Model\nWe train it with torchrun.\n\n```bash\ntorchrun --nproc_per_node 8 train_moe.py "
          "--expert-parallel-size 8\n```\n\n"
          "```bash\n" + VLLM + "```\n")
BUILDER = "import subprocess\nfrom verl.trainer import main_ppo\nsubprocess.run(['python3', '-m', " \
          "'verl.trainer.main_ppo', 'trainer.n_gpus_per_node=8'])\n"


def _repo(root):
    (root / ".git").mkdir()
    (root / "serve").mkdir()
    (root / "train").mkdir()
    (root / "train" / "moe.sh").write_text(TORCHRUN)
    (root / "serve" / "vllm.sh").write_text("#!/bin/bash\n" + VLLM)
    (root / "README.md").write_text(README)
    (root / "launch.py").write_text(BUILDER)
    (root / "util.py").write_text("def add(a, b):\n    return a + b\n")
    (root / "values.yaml").write_text("replicas: 2\n")
    return root


def _run(root, *args):
    old = os.getcwd()
    os.chdir(root)
    try:
        return CliRunner().invoke(cli, ["check", *args, "."])
    finally:
        os.chdir(old)


def test_each_file_ends_in_one_state_and_each_unread_launch_is_listed(tmp_path):
    report = json.loads(_run(_repo(tmp_path), "--format", "json").stdout)
    states = {f["file"]: (f["state"], f.get("reason", "")) for f in report["files"]}
    assert states["./serve/vllm.sh"] == ("read", "")
    assert states["./train/moe.sh"] == ("unread", "1 launch not read (torchrun 1)")
    assert states["./README.md"] == ("unread", "2 launches not read (torchrun 1, vLLM 1)")
    assert states["./launch.py"][0] == "unread"
    assert states["./values.yaml"][0] == "skipped" and states["./values.yaml"][1]
    assert "./util.py" not in states  # a .py without launch words is sniffed, not counted as a checked file
    assert report["summary"]["files"] == len(states) == 5
    assert report["unread"] == [
        {"file": "./README.md", "line": 5, "launcher": "torchrun",
         "reason": "Markdown with 2 launch commands not read at a repository root (--markdown)"},
        {"file": "./README.md", "line": 9, "launcher": "vLLM",
         "reason": "Markdown with 2 launch commands not read at a repository root (--markdown)"},
        {"file": "./launch.py", "line": 3, "launcher": "verl", "reason": "Python file building a launch (not read)"},
        {"file": "./train/moe.sh", "line": 2, "launcher": "torchrun", "reason": TORCHRUN_WHY},
    ]
    assert report["coverage"] == {"launches_read": 1, "launches_with_op_calls": 0, "launches_unread": 4,
                                  "unread_by_launcher": {"torchrun": 2, "verl": 1, "vLLM": 1}}


def test_text_summary_gives_the_counts_and_v_lists_each(tmp_path):
    result = _run(_repo(tmp_path))
    assert result.exit_code == 0  # nothing here is a finding by default
    last = result.stdout.strip().splitlines()[-1]
    assert last.endswith("; 1 launch read (0 with op calls), 4 launches not read (torchrun 2, vLLM 1, verl 1): "
                         "-v lists them.")
    verbose = _run(tmp_path, "-v")
    assert f"not read ./train/moe.sh:2: torchrun: {TORCHRUN_WHY}" in verbose.stderr
    assert "not read ./launch.py:3: verl: Python file building a launch (not read)" in verbose.stderr


def test_markdown_read_with_the_flag_is_not_listed_as_unread(tmp_path):
    report = json.loads(_run(_repo(tmp_path), "--format", "json", "--markdown").stdout)
    readme = [u for u in report["unread"] if u["file"] == "./README.md"]
    assert readme == [{"file": "./README.md", "line": 5, "launcher": "torchrun",
                       "reason": TORCHRUN_WHY}]  # the vLLM block is read now
    assert {f["file"]: f["state"] for f in report["files"]}["./README.md"] == "read"


def test_fail_on_unread_and_the_setting_exit_1(tmp_path):
    _repo(tmp_path)
    assert _run(tmp_path, "--fail-on-unread").exit_code == 1
    (tmp_path / ".moecfg.yaml").write_text("unread: error\n")
    assert _run(tmp_path).exit_code == 1
    (tmp_path / ".moecfg.yaml").write_text("unread: list\n")
    assert _run(tmp_path).exit_code == 0
    (tmp_path / ".moecfg.yaml").write_text("unread: fail\n")
    bad = _run(tmp_path)  # a settings file found in the tree is a finding on it (MC016, issue 33)
    assert bad.exit_code == 1 and "MC016" in bad.stdout and "unread" in bad.stdout


def test_fail_on_unread_passes_when_everything_is_read(tmp_path):
    (tmp_path / "vllm.sh").write_text("#!/bin/bash\n" + VLLM)
    assert _run(tmp_path, "--fail-on-unread").exit_code == 0


def test_sarif_one_notification_per_unread_and_junit_github_one_line(tmp_path):
    _repo(tmp_path)
    sarif = json.loads(_run(tmp_path, "--format", "sarif").stdout)
    notes = [n for n in sarif["runs"][0]["invocations"][0]["toolExecutionNotifications"]
             if n["descriptor"]["id"] == "unread"]
    assert len(notes) == 4 and notes[-1]["locations"][0]["physicalLocation"]["region"] == {"startLine": 2}
    assert {r["ruleId"] for r in sarif["runs"][0]["results"]} == {"MC040", "MC041"}  # the vLLM launch's; no unread
    junit = _run(tmp_path, "--format", "junit").stdout
    assert junit.count("launches not read") == 1 and 'name="moecfg coverage"' in junit
    github = _run(tmp_path, "--format", "github").stdout
    assert github.count("launches not read") == 1 and "moe.sh" not in github


def test_a_run_of_moecfg_documents_only_says_nothing_about_launches(tmp_path):
    (tmp_path / "a.yaml").write_text("product: A3\nbs: 8\nh: 7168\nk: 8\nep_world_size: 16\nmoe_expert_num: 256\n")
    out = _run(tmp_path).stdout
    assert "launch" not in out.splitlines()[-1]


def test_unread_records_from_a_framework_are_listed(tmp_path, monkeypatch):
    """A framework that recognises a launch but does not derive the engine in it (Derivation.unread)."""
    from moecfg import frameworks
    from moecfg.frameworks import vllm

    real = vllm.derive

    def derive(launch, ctx):
        d = real(launch, ctx)
        d.unread.append(frameworks.Unread(launch.span, "rollout", "rollout engine not derived: test"))
        return d

    monkeypatch.setattr(vllm, "derive", derive)
    (tmp_path / "vllm.sh").write_text("#!/bin/bash\n" + VLLM)
    report = check_paths([str(tmp_path)])
    assert [(u.line, u.launcher, u.reason) for u in report.unread] == [(2, "rollout", "rollout engine not derived: test")]
    assert [s.state for s in report.states] == ["read"]


def test_a_dangling_symlink_met_walking_is_skipped_not_an_error(tmp_path):
    """72 dangling links in one repository's docs gave MC008 errors (targets generated at docs build time)."""
    (tmp_path / "index.yaml").symlink_to(tmp_path / "generated" / "index.yaml")
    report = check_paths([str(tmp_path)])
    assert report.results == [] and report.count("error") == 0
    assert [(s.state, "dangling" in s.reason) for s in report.states] == [("skipped", True)]


def test_a_dangling_symlink_named_on_the_command_line_is_still_a_usage_error(tmp_path):
    from moecfg.checking.engine import PathError

    link = tmp_path / "index.yaml"
    link.symlink_to(tmp_path / "nothere.yaml")
    with pytest.raises(PathError):
        check_paths([str(link)])


def test_the_pydantic_report_holds_coverage_and_dumps_as_the_json_report(tmp_path):
    import moecfg
    from moecfg.models import Report

    _repo(tmp_path)
    as_json = json.loads(_run(tmp_path, "--format", "json").stdout)
    assert Report.model_validate(as_json).model_dump() == as_json
    report = moecfg.check(TORCHRUN, name="x.sh")
    assert [(u.line, u.launcher) for u in report.unread] == [(2, "torchrun")]
    assert [(f.state, f.reason) for f in report.files] == [("unread", "1 launch not read (torchrun 1)")]
    assert report.coverage.launches_unread == 1 and report.valid


def test_a_read_launch_with_an_env_prefix_line_is_not_listed(tmp_path):
    (tmp_path / "vllm.sh").write_text("#!/bin/bash\nVLLM_USE_V1=1 \\\n" + VLLM)
    report = check_paths([str(tmp_path)])
    assert report.unread == [] and [s.state for s in report.states] == ["read"]


def test_a_launcher_named_from_file_text_is_one_printable_line():
    from moecfg.core.coverage import UnreadLaunch

    u = UnreadLaunch("a.sh", 3, "x\n::error file=a::forged\x1b[31m", "why\r\nnot")
    assert u.launcher == "x ::error file=a::forged [31m" and u.reason == "why not"
    assert len(UnreadLaunch("a.sh", 1, "y" * 500, "").launcher) == 60


def test_a_python_file_named_on_the_command_line_is_sniffed_not_parsed(tmp_path):
    builder, plain = tmp_path / "launch.py", tmp_path / "plain.py"
    builder.write_text(BUILDER)
    plain.write_text("x = {1: [\n")  # neither Python nor YAML that parses: never parsed, so no MC001
    report = check_paths([str(builder), str(plain)])
    assert report.results == []
    assert [(s.state, s.reason) for s in report.states] == [
        ("unread", "1 launch not read (verl 1)"), ("skipped", "Python file without a launch word (sniffed, never parsed)")]


def test_check_launch_names_a_launcher_it_does_not_read():
    import moecfg

    report = moecfg.check_launch(["torchrun", "--nproc_per_node", "8", "train_moe.py", "--expert-parallel-size", "8"])
    assert [(u.line, u.launcher, u.reason) for u in report.unread] == [(1, "torchrun", TORCHRUN_WHY)]
    assert [f.state for f in report.files] == ["unread"]
    # TensorRT-LLM is read since issue 35 (frameworks/trtllm) and listed by its framework as not derived
    trt = moecfg.check_launch(["trtllm-serve", "deepseek-ai/DeepSeek-R1", "--ep_size", "8"])
    assert [(u.launcher, u.reason) for u in trt.unread] == [
        ("TensorRT-LLM", "engine not derived: TensorRT-LLM (its own wide-EP all-to-all, no DeepEP)")]
    assert [f.state for f in trt.files] == ["read"] and trt.coverage.launches_read == 1
    read = moecfg.check_launch(["vllm", "serve", "deepseek-ai/DeepSeek-V3", "--enable-expert-parallel"])
    assert read.unread == [] and [f.state for f in read.files] == ["read"] and read.coverage.launches_read == 1


def test_a_verl_config_with_sections_is_read_by_the_trainer():
    read = check_text("actor_rollout_ref:\n  rollout:\n    name: vllm\n", "ppo.yaml")
    assert [r.launch["framework"] for r in read.results if r.launch] == ["verl"]
    assert all("config not read" not in u.reason for u in read.unread)  # what it lists is the phase not derived


def test_a_config_key_entry_is_not_listed_in_a_file_a_framework_read():
    pod = ("apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\nspec:\n  containers:\n  - name: s\n    image: vllm/vllm-openai:v0.11.0\n"
           "    command: [vllm, serve, deepseek-ai/DeepSeek-V3, --enable-expert-parallel]\n")
    # a verl key no reader takes (sources/recipes/verl_config.py reads a config with actor / rollout / model sections)
    alone = check_text("actor_rollout_ref:\n  hybrid_engine: true\n", "ppo.yaml")
    assert [(u.line, u.launcher, u.reason) for u in alone.unread] == [(1, "verl", "RL trainer config not read: verl")]
    both = check_text(pod + "---\nactor_rollout_ref:\n  hybrid_engine: true\n", "both.yaml")
    assert both.unread == [] and any(r.launch for r in both.results)


def test_a_config_outside_the_tree_is_listed_beside_the_launch_that_names_it(tmp_path):
    outside = tmp_path / "deepep.json"
    outside.write_text('{"normal_dispatch": {}, "normal_combine": {}}')
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "serve.sh").write_text("#!/bin/bash\npython3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 "
                                   f"--tp 16 --ep 16 --moe-a2a-backend deepep --deepep-config {outside} --nnodes 2\n")
    report = check_paths([str(tree)])
    assert [(u.line, u.launcher, u.reason) for u in report.unread] == [
        (2, "sglang", f"config outside the tree: --deepep-config {outside}")]
    assert [s.state for s in report.states] == ["read"]  # the launch is read; the file it names is not

