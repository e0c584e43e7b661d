"""Issue 20 item 4 for the surfaces added after it (harden2): MindIE's env file (conf/mindie_env.json, or the one a
MindIE-Motor user_config.json names in deploy_config.mindie_env_path) and vLLM recipe strategy files are read only
inside the checked tree, links resolved; a file outside is neither read nor quoted. And a hostile folder of the new
launches, checked through the CLI in every format and with explain-launch, exits 0/1 with no traceback, no raw
control character and no forged `::` line."""
from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest
from hostile import cli  # noqa: F401  (fixture)

SECRET = "SECRET-7e2a-never-printed"
ENTRY = {"modelName": "DeepSeek-V3", "worldSize": 16, "backendType": "torch", "dp": 16, "tp": 1, "moe_tp": 1,
         "moe_ep": 16}
CONFIG = {"BackendConfig": {"npuDeviceIds": [list(range(16))], "ModelDeployConfig": {"ModelConfig": [ENTRY]},
                            "ScheduleConfig": {"maxBatchSize": 256, "maxPrefillTokens": 4096}}}
# a string HCCL_BUFFSIZE is quoted by MC992 when the file is read: the secret shows if the file outside is read
OUTSIDE_ENV = {"mindie_common_env": {"HCCL_BUFFSIZE": SECRET}}
CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


@pytest.fixture
def tree(tmp_path):
    outside, checked = tmp_path / "outside", tmp_path / "repo"
    (outside / "conf").mkdir(parents=True)
    (outside / "conf" / "mindie_env.json").write_text(json.dumps(OUTSIDE_ENV))
    (checked / "conf").mkdir(parents=True)
    (checked / ".moecfg.yaml").write_text("product: A3\ncann_version: 9.0.1\n")
    return checked, outside


def outputs(cli, *targets) -> str:
    text = ""
    for fmt in ("text", "json", "sarif", "github", "junit"):
        code, out, err = cli("check", "--format", fmt, *map(str, targets))
        assert code in (0, 1) and "Traceback" not in err, (fmt, err[-500:])
        text += out + err
    code, out, err = cli("explain-launch", *map(str, targets))
    assert code in (0, 1) and "Traceback" not in err
    return text + out + err


@pytest.mark.parametrize("how", ["file-symlink", "folder-symlink"])
@pytest.mark.parametrize("target", ["folder", "file"])
def test_mindie_env_file_linked_from_outside_is_not_read(cli, tree, how, target):
    checked, outside = tree
    (checked / "conf" / "config.json").write_text(json.dumps(CONFIG))
    if how == "file-symlink":
        os.symlink(outside / "conf" / "mindie_env.json", checked / "conf" / "mindie_env.json")
    else:  # the config sits in a folder whose conf/ is a link out
        shutil.rmtree(checked / "conf")
        (checked / "svc").mkdir()
        (checked / "svc" / "config.json").write_text(json.dumps(CONFIG))
        os.symlink(outside / "conf", checked / "svc" / "conf")
    named = checked if target == "folder" else next(checked.rglob("config.json"))
    out = outputs(cli, named)
    assert SECRET not in out and "MC992" not in out  # the outside value was neither quoted nor judged


@pytest.mark.parametrize("path", ["../outside/conf/mindie_env.json", "ABSOLUTE", "link/mindie_env.json"])
def test_motor_user_config_naming_an_env_file_outside_is_not_read(cli, tree, path):
    checked, outside = tree
    if path == "ABSOLUTE":
        path = str(outside / "conf" / "mindie_env.json")
    os.symlink(outside / "conf", checked / "link")
    motor = {"deploy_config": {"hardware_type": "800I_A3", "mindie_env_path": path},
             "mindie_server_decode_config": CONFIG}
    (checked / "user_config.json").write_text(json.dumps(motor))
    out = outputs(cli, checked)
    assert SECRET not in out and "MC992" not in out


def test_env_file_inside_the_tree_is_read(cli, tree):
    checked, _ = tree
    (checked / "conf" / "config.json").write_text(json.dumps(CONFIG))
    (checked / "conf" / "mindie_env.json").write_text(json.dumps({"mindie_common_env": {"HCCL_BUFFSIZE": "inside-x"}}))
    code, out, _ = cli("check", str(checked))
    assert code == 1 and "MC992" in out and "inside-x" in out  # the same file inside the tree is read and judged


def test_a_strategy_file_linked_from_outside_is_not_read(cli, tmp_path):
    checked, outside = tmp_path / "repo", tmp_path / "outside"
    shutil.copytree(Path(__file__).parents[1] / "sources" / "vllm-recipes", checked)
    outside.mkdir()
    (outside / "s.yaml").write_text(f"name: secret_dep\ndeploy_type: multi_node\nvllm_args: ['--{SECRET}']\n")
    os.symlink(outside / "s.yaml", checked / "strategies" / "zz_outside.yaml")
    add_strategies(checked, ["secret_dep"])
    assert SECRET not in outputs(cli, checked)
    os.unlink(checked / "strategies" / "zz_outside.yaml")  # the same file inside the tree is read: its flag is quoted
    shutil.copy(outside / "s.yaml", checked / "strategies" / "zz_inside.yaml")
    assert SECRET in outputs(cli, checked)


def add_strategies(checked: Path, names: list[str]) -> None:
    recipe = checked / "models" / "deepseek-ai" / "DeepSeek-R1.yaml"
    extra = "".join(f"  - {json.dumps(n)}\n" for n in names)
    text = recipe.read_text()
    assert "\ncompatible_strategies:\n" in text
    recipe.write_text(text.replace("\ncompatible_strategies:\n", "\ncompatible_strategies:\n" + extra, 1))


HOSTILE_NAMES = ["::error::forged", "a\n::warning::w", "\x1b]0;t\x07", "\x1b[31mred", "a\u202eb", "../../etc/passwd"]


def test_hostile_strategy_names_and_values_stay_escaped(cli, tmp_path):
    checked = tmp_path / "repo"
    shutil.copytree(Path(__file__).parents[1] / "sources" / "vllm-recipes", checked)
    for i, name in enumerate(HOSTILE_NAMES):
        strategy = {"name": name, "deploy_type": "multi_node",
                    "vllm_args": ["--data-parallel-size", name, "--enable-expert-parallel", f"--x-{name}"]}
        (checked / "strategies" / f"h{i}.yaml").write_text(json.dumps(strategy))
    add_strategies(checked, HOSTILE_NAMES)
    out = outputs(cli, checked)
    assert_clean(out)
    assert "forged" in out  # the hostile strategies were read (and escaped), not skipped


def assert_clean(out: str) -> None:
    for line in out.splitlines():
        assert not CONTROL.search(line), line[:200]
        assert re.match(r"::(error|warning|notice) ", line) or not line.lstrip().startswith("::"), line[:200]


HOSTILE_LAUNCHES = {
    "lmdeploy.sh": "export HCCL_BUFFSIZE=$'\\e]0;t\\a'\nlmdeploy serve api_server deepseek-ai/DeepSeek-V3 --device ascend "
                   "--tp 16 --dp 2 --ep $'32\\n::error::x' --max-batch-size 0x10\n",
    "xllm.sh": "xllm --model $'/m/\\e[31m::error::x' --devices=npu:0 --nnodes=0x10 --ep_size=-0x1 --noenable_graph "
               "--max_seqs_per_batch=2147483648 --npu_kernel_backend=$'TORCH\\n::warning::w'\n",
    "vms.sh": "export VLLM_MS_MODEL_BACKEND=$'Native\\n::error::m'\nvllm-mindspore serve Qwen/Qwen3-235B-A22B "
              "--enable-expert-parallel --tensor-parallel-size 1e400 --additional-config '{\"expert_parallel\": NaN}'\n",
    "ms.sh": "export HCCL_BUFFSIZE=$'\\e[2J'\nmsrun --worker_num=$'16\\n::error::w' pretrain_gpt.py --num-experts 8 "
             "--hccl-group-buffer $'dp:1;\\e[31m::error::g:2' --hccl-group-buffer-adaptive\n",
}


def test_hostile_new_launches_through_the_cli(cli, tmp_path):
    for name, text in HOSTILE_LAUNCHES.items():
        (tmp_path / name).write_text("#!/bin/bash\n" + text)
    (tmp_path / "conf").mkdir()
    bad = {"BackendConfig": {"ModelDeployConfig": {"ModelConfig": [
        {"backendType": "torch", "worldSize": "\x1b]0;t\x07", "moe_ep": "::error::e", "modelName": "a\n::error::n",
         "\x1b[31m": 1, "tp": 10 ** 30}]}, "ScheduleConfig": {"maxBatchSize": "\u202e16"}}}
    (tmp_path / "conf" / "config.json").write_text(json.dumps(bad, ensure_ascii=False))
    (tmp_path / "conf" / "mindie_env.json").write_text(json.dumps({"mindie_common_env": {
        "HCCL_BUFFSIZE": "1\n::error::env\x1b[0m"}}, ensure_ascii=False))
    (tmp_path / ".moecfg.yaml").write_text("product: A3\ncann_version: 9.0.1\n")
    out = outputs(cli, tmp_path)
    assert_clean(out)
    assert "MC019" not in out
