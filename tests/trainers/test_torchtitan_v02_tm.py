"""trainers/torchtitan, the 0.2 form (pytorch/torchtitan@73a0e69 = v0.2.2): a TOML job config under `--section.field`
flags; `expert_parallel_comm_backend = deepep` on deepseek_v3 / llama4 is DeepEP v1's Buffer, sized as
torchtitan/distributed/deepep/deepep.py:288-317 sizes it and checked by moecfg's `kind: deepep` op.

Fixtures: fixtures/torchtitan/v022/deepseek_v3_16b.toml (v0.2.2's deepseek_v3_16b.toml: deepseek_v3 16B, EP 8) and
run_train.sh (v0.2.2 docs/debugging.md:180's launch form, with the deepep backend flag).

Hand-computed buffers (DeepEP's Config(20 SMs, ...) hints, 10 channels, hidden_bytes = 2048 x 2 = 4096, top-k 128 /
scales 128 reserved per token, source meta 8 B):
- 8 ranks (dispatch and combine configs receive 256 NVL tokens): 10*8*(2*1+3)*4 = 1600 + 10*8*256*4096 = 83886080
  + 10*8*256*8 = 163840 + 10*8*256*128*8 = 20971520 + 2 * 10*8*256*128*4 = 20971520 -> 125994560, 128-aligned
  125994624; RDMA 0 (intranode).
- 2 ranks: 10*2*5*4 = 400 + 10*2*256*4096 = 20971520 + 10*2*256*8 = 40960 + 10*2*256*128*8 = 5242880
  + 2 * 10*2*256*128*4 = 5242880 -> 31498640, aligned 31498752.
- 16 ranks RDMA (dispatch config rdma send 20 / recv 128 -> 140 slots, 2 RDMA ranks: 2800 slots):
  10*2*18*2*4 = 2880 + 2800*4096*2 = 22937600 + 2800*8*2 = 44800 + 2800*128*8*2 = 5734400 + 2 * 2800*128*4*2 =
  5734400 + 2800*16*2 = 89600 -> 34543680, aligned 34543744.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from moecfg import frameworks
from moecfg.frameworks import LaunchContext
from moecfg.sources.contained import checking
from moecfg.sources.readers import read_shell

HERE = Path(__file__).resolve().parent / "fixtures" / "torchtitan" / "v022"
CTX = LaunchContext()
TOML_RUN = 'NGPU=8 CONFIG_FILE="./deepseek_v3_16b.toml" ./run_train.sh '
CLI = ("torchrun --nproc_per_node 8 -m torchtitan.train --model.name deepseek_v3 --model.flavor 16B "
       "--parallelism.expert_parallel_comm_backend deepep ")


def _derive(text: str, root: Path = HERE):
    (launch,) = read_shell(text).launches
    module = frameworks.recognise(launch, CTX)
    assert module.NAME == "torchtitan"
    with checking(str(root)):
        return module.derive(launch, CTX)


def _deepep(d):
    (call,) = d.calls
    assert call.kind == "deepep", call.why_none
    return call


def test_the_published_form_reads_the_toml_and_sizes_the_deepep_buffer():
    d = _derive((HERE / "run_train.sh").read_text())
    call = _deepep(d)
    assert not d.notes and not d.unread
    a = call.arguments
    assert (a["mode"], a["num_ranks"], a["hidden"], a["num_experts"], a["num_topk"]) == ("normal", 8, 2048, 64, 6)
    assert (a["num_nvl_bytes"], a["num_rdma_bytes"]) == (125994624, 0)
    assert "expert_parallel_degree = 8 in deepseek_v3_16b.toml" in call.derivation["num_ranks"]
    assert d.version == "0.2.2"


@pytest.mark.parametrize("ep,nvl,rdma", [(2, 31498752, 0), (8, 125994624, 0), (16, 141744384, 34543744)])
def test_a_flag_over_the_toml_sets_the_group_and_the_hand_computed_buffer(ep, nvl, rdma):
    call = _deepep(_derive(TOML_RUN + f"--parallelism.expert_parallel_comm_backend deepep "
                                      f"--parallelism.expert_parallel_degree {ep}\n"))
    assert (call.arguments["num_ranks"], call.arguments["num_nvl_bytes"], call.arguments["num_rdma_bytes"]) == \
        (ep, nvl, rdma)
    assert call.derivation["num_ranks"].startswith(f"{ep} <- --parallelism.expert_parallel_degree")


@pytest.mark.parametrize("extra,code", [
    ("--parallelism.expert_parallel_degree 1", "MC721"),  # just outside: DeepEP needs EP > 1
    ("--parallelism.expert_parallel_degree 2", None),  # just inside
    ("--parallelism.expert_parallel_degree 8 --parallelism.expert_tensor_parallel_degree 2", "MC722"),
    ("--parallelism.expert_parallel_degree 8 --parallelism.expert_tensor_parallel_degree 1", None),
])
def test_what_deepseek_v3_refuses_with_deepep(extra, code):
    d = _derive(CLI + "--parallelism.data_parallel_shard_degree -1 " + extra + "\n")
    assert [n.code for n in d.notes] == ([code] if code else [])
    assert (d.calls == []) if code else (_deepep(d).arguments["num_ranks"] > 1)


def test_no_config_file_takes_the_jobconfig_defaults():
    """No --job.config_file: JobConfig's defaults (EP 1), so deepep on deepseek_v3 is refused; llama3 (the default
    model) is not read by the backend at all."""
    assert [n.code for n in _derive(CLI + "\n").notes] == ["MC721"]
    d = _derive("torchrun --nproc_per_node 8 -m torchtitan.train --parallelism.expert_parallel_comm_backend deepep "
                "--parallelism.expert_parallel_degree 8\n")
    (call,) = d.calls
    assert call.kind == "none" and "no effect on model llama3" in call.why_none and not d.notes


def test_the_standard_backend_and_other_models_make_no_deepep_call():
    (call,) = _derive(TOML_RUN + "--training.steps 10\n").calls  # the TOML says nothing: standard
    assert call.kind == "none" and "standard: PyTorch all-to-all" in call.why_none
    (call,) = _derive(CLI.replace("deepseek_v3", "qwen3") + "--parallelism.expert_parallel_degree 8\n").calls
    assert call.kind == "none" and "no effect on model qwen3" in call.why_none


@pytest.mark.parametrize("extra,why", [
    ("--training.mixed_precision_param float32", "moecfg checks the BF16 payload"),
    ("--model.flavor 99B", "not a deepseek_v3 flavor"),
])
def test_what_the_code_does_not_size_here_is_listed_not_guessed(extra, why):
    d = _derive(TOML_RUN + "--parallelism.expert_parallel_comm_backend deepep " + extra + "\n")
    assert not d.notes and d.calls[0].kind == "none"
    (u,) = d.unread
    assert why in u.reason


def test_a_config_file_outside_the_checked_tree_leaves_its_settings_unknown(tmp_path):
    d = _derive(TOML_RUN + "--parallelism.expert_parallel_comm_backend deepep\n", root=tmp_path)
    assert not d.notes and d.calls[0].kind == "none"
    (u,) = d.unread
    assert "deepseek_v3_16b.toml is not read" in u.reason


def test_run_train_sh_without_config_file_runs_its_default_toml(tmp_path):
    """0.2's run_train.sh sets CONFIG_FILE to ./torchtitan/models/llama3/train_configs/debug_model.toml when the
    environment does not (run_train.sh:30): its settings are that file's, not JobConfig's defaults."""
    d = _derive("./run_train.sh --parallelism.expert_parallel_comm_backend deepep\n", root=tmp_path)
    assert not d.notes and "debug_model.toml is not read" in d.unread[0].reason  # not in this tree: not known
    toml = tmp_path / "torchtitan" / "models" / "llama3" / "train_configs" / "debug_model.toml"
    toml.parent.mkdir(parents=True)
    toml.write_text('[model]\nname = "deepseek_v3"\nflavor = "debugmodel"\n[parallelism]\nexpert_parallel_degree = 2\n')
    call = _deepep(_derive("./run_train.sh --parallelism.expert_parallel_comm_backend deepep\n", root=tmp_path))
    assert (call.arguments["num_ranks"], call.arguments["hidden"]) == (2, 256)


def test_llama4_is_checked_but_its_deepep_path_is_not_sized():
    """llama4's parallelize refuses deepep with EP 1 as deepseek_v3's does, but its standard MoE passes its experts
    2 inputs where DeepEPExpertParallel unpacks 5: no buffer is sized, the dispatch is listed."""
    llama4 = CLI.replace("--model.name deepseek_v3 --model.flavor 16B", "--model.name llama4 --model.flavor 17bx16e")
    assert [n.code for n in _derive(llama4 + "\n").notes] == ["MC721"]
    d = _derive(llama4 + "--parallelism.expert_parallel_degree 8\n")
    assert not d.notes and d.calls[0].kind == "none" and "unpacks 5" in d.unread[0].reason


@pytest.mark.parametrize("name,body,why", [
    ("bad.toml", "[model\nname = 1\n", "bad.toml is not valid TOML"),
    ("../../../etc/passwd", None, "outside the checked folder"),
    ("$CFG", None, "its path is not known statically"),
])
def test_a_config_file_moecfg_cannot_read_is_said_not_guessed(tmp_path, name, body, why):
    if body is not None:
        (tmp_path / name).write_text(body)
    d = _derive(f'CONFIG_FILE="{name}" ./run_train.sh --parallelism.expert_parallel_comm_backend deepep\n',
                root=tmp_path)
    assert not d.notes and d.calls[0].kind == "none"
    assert why in d.unread[0].reason
