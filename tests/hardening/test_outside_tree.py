"""Issue 20 item 4: files a launch or a settings file names are read only inside the checked tree (or the settings
file's folder), links resolved, regular files only, size-capped (sources/contained.py); anything else is an
MC023 info / MC042 warning naming the path, never its content."""
from __future__ import annotations

import json
import os

import pytest
from hostile import cli  # noqa: F401  (fixture)

SECRET = "SECRET-4f1c-never-printed"
SG = ("python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 16 --dp 16 --enable-dp-attention "
      "--moe-a2a-backend deepep --deepep-mode normal --chunked-prefill-size 4096 --deepep-config {path}\n")
CONFIG = {"normal_dispatch": {"num_sms": 24, "num_max_nvl_chunked_send_tokens": 6, "num_max_nvl_chunked_recv_tokens": 256,
                              "num_max_rdma_chunked_send_tokens": 6, "num_max_rdma_chunked_recv_tokens": 256,
                              "note": SECRET},
          "normal_combine": {"num_sms": 24, "num_max_nvl_chunked_send_tokens": 6, "num_max_nvl_chunked_recv_tokens": 256,
                             "num_max_rdma_chunked_send_tokens": 6, "num_max_rdma_chunked_recv_tokens": 256}}


@pytest.fixture
def tree(tmp_path):
    """(checked folder, a folder outside it holding a secret config and a secret config.json)."""
    outside, checked = tmp_path / "outside", tmp_path / "repo"
    outside.mkdir()
    checked.mkdir()
    (outside / "deepep.json").write_text(json.dumps(CONFIG))
    (outside / "config.json").write_text(json.dumps({"hidden_size": 7168, "n_routed_experts": 256,
                                                     "num_experts_per_tok": 8, "model_type": SECRET}))
    (checked / ".moecfg.yaml").write_text("device: H100\n")
    return checked, outside


def run_check(cli, checked, *fmt):
    code, out, err = cli("check", *fmt, str(checked))
    assert code in (0, 1) and "Traceback" not in err
    return out + err


@pytest.mark.parametrize("how", ["relative", "absolute", "at", "symlink", "symlinked-folder"])
def test_deepep_config_outside_the_tree_is_not_read(cli, tree, how):
    checked, outside = tree
    path = {"relative": "../outside/deepep.json", "absolute": str(outside / "deepep.json"),
            "at": "@" + str(outside / "deepep.json"), "symlink": "link.json", "symlinked-folder": "sub/deepep.json"}[how]
    if how == "symlink":
        os.symlink(outside / "deepep.json", checked / "link.json")
    if how == "symlinked-folder":
        os.symlink(outside, checked / "sub")
    (checked / "a.sh").write_text(SG.format(path=path))
    for fmt in ("text", "json", "junit"):
        out = run_check(cli, checked, "--format", fmt)
        assert SECRET not in out and "num_sms 24" not in out
    out = run_check(cli, checked)
    assert "MC023" in out and "outside the checked folder" in out


def test_deepep_config_inside_the_tree_is_read(cli, tree):
    checked, _ = tree
    (checked / "cfg").mkdir()
    (checked / "cfg" / "deepep.json").write_text(json.dumps(CONFIG))
    (checked / "a.sh").write_text(SG.format(path="cfg/deepep.json"))
    code, out, _ = cli("explain-launch", str(checked))
    assert code == 0 and "num_sms = 24 <- --deepep-config" in out and "file is not read" not in out


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
@pytest.mark.parametrize("target", ["fifo", "/dev/stdin", "/dev/urandom", "/dev/zero", "folder", "huge"])
def test_deepep_config_that_is_no_regular_file_does_not_stall(cli, tree, target):
    checked, _ = tree
    if target == "fifo":
        os.mkfifo(checked / "fifo")
    if target == "folder":
        (checked / "folder").mkdir()
    if target == "huge":
        (checked / "huge").write_bytes(b" " * (2 << 20))
    (checked / "a.sh").write_text(SG.format(path=target))
    out = run_check(cli, checked)
    assert "MC023" in out and "not read" in out


@pytest.mark.parametrize("where", [".moecfg.yaml", "pyproject.toml"])
@pytest.mark.parametrize("how", ["relative", "absolute", "symlink", "proc"])
def test_settings_models_outside_are_not_read(cli, tree, where, how):
    checked, outside = tree
    path = {"relative": "../outside/config.json", "absolute": str(outside / "config.json"), "symlink": "model",
            "proc": "/proc/self/environ"}[how]
    if how == "symlink":
        os.symlink(outside, checked / "model")
    (checked / ".moecfg.yaml").unlink()
    if where == ".moecfg.yaml":
        (checked / where).write_text(f"product: A3\nmodels:\n  /models/x: {path}\n")
    else:
        (checked / where).write_text(f'[tool.moecfg]\nproduct = "A3"\nmodels = {{"/models/x" = "{path}"}}\n')
    (checked / "a.sh").write_text("vllm serve /models/x --quantization ascend -dp 4 -tp 4 --enable-expert-parallel\n")
    for fmt in ("text", "json", "sarif", "github"):
        out = run_check(cli, checked, "--format", fmt)
        assert SECRET not in out and "PATH=" not in out
    out = run_check(cli, checked)
    assert "MC042" in out and "outside the checked folder" in out


def test_settings_models_inside_the_settings_folder_are_read(cli, tree):
    checked, outside = tree
    (checked / "model").mkdir()
    (checked / "model" / "config.json").write_text((outside / "config.json").read_text().replace(SECRET, "deepseek_v3"))
    (checked / ".moecfg.yaml").write_text("product: A3\nmodels:\n  /models/x: model\n")
    (checked / "a.sh").write_text("vllm serve /models/x --quantization ascend -dp 4 -tp 4 --enable-expert-parallel\n")
    code, out, _ = cli("explain-launch", str(checked))
    assert code == 0 and "h = 7168" in out


def test_sourced_file_outside_the_tree_is_not_read(cli, tree):
    checked, outside = tree
    (outside / "env.sh").write_text(f"export HCCL_BUFFSIZE=7\necho {SECRET}\n")
    (checked / "a.sh").write_text(f"source {outside / 'env.sh'}\nsource ../outside/env.sh\n"
                                  "vllm serve /models/DeepSeek-R1-W8A8 --quantization ascend -dp 4 -tp 4 "
                                  "--enable-expert-parallel\n")
    out = run_check(cli, checked)
    assert SECRET not in out and out.count("MC023") == 2
