"""Round 4: the trainer readers (verl overrides, MindSpeed-RL configs), `plan FILE`, `examples --copy`, `docs PAGE`,
`explain-error --list` and `preflight bash FILE` on hostile input: a clear message and exit 0/1/2, never a
traceback, nothing read outside the tree, CPU bounded (measured on the child)."""
from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parents[1] / "trainers" / "fixtures"
VERL = (FIXTURES / "verl" / "run_qwen30_a3b_megatron_sglang.sh").read_text().replace(
    'HF_MODEL_PATH=""', "HF_MODEL_PATH=Qwen/Qwen3-30B-A3B")
EP_KEY = "actor_rollout_ref.actor.megatron.expert_model_parallel_size"


def run(*args, cwd=None, cpu_limit=10.0):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    got = subprocess.run([sys.executable, "-m", "moecfg", *args], capture_output=True, timeout=120, cwd=cwd,
                         env={**os.environ, "NO_COLOR": "1", "GITHUB_ACTIONS": ""}, stdin=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    out, err = got.stdout.decode(errors="replace"), got.stderr.decode(errors="replace")
    assert "Traceback" not in err and got.returncode in (0, 1, 2), err[-2000:]
    assert after.ru_utime - before.ru_utime < cpu_limit
    assert "\x1b" not in out + err
    return got.returncode, out, err


VERL_CASES = {  # name -> (the script, a code the run must say, or None)
    "huge": (VERL.replace("EP=8", "EP=" + "9" * 5000), "MC023"),
    "inf": (VERL.replace("EP=8", "EP=1e400").replace("TP=1", "TP=nan"), "MC023"),
    "negative": (VERL.replace("EP=8", "EP=-8"), "MC025"),
    "escapes": (VERL.replace("trainer.nnodes=$NODES", f"~{EP_KEY} ++{EP_KEY}=\x1b[31m::error::x trainer.nnodes=$NODES"),
                "MC023"),
    "deep": (VERL.replace("trainer.nnodes=$NODES", "trainer." + ".".join(["a"] * 5000) + "=1 trainer.nnodes=$NODES"),
             None),
    "many": (VERL.replace("trainer.nnodes=$NODES \\", "trainer.nnodes=$NODES \\\n" +
                          "".join(f"    +x.k{i}=1 \\\n" for i in range(100_000))), "MC023"),
    "seq": (VERL.replace("EP=8", "EP=$(seq 1 1 100000000 | tail -1)"), None),
    "outside": ("SCRIPT_DIR=$(cd $(dirname $0) && pwd)\nsource $SCRIPT_DIR/../../../../../../etc/passwd\n"
                + VERL.replace("--config-path=config", "--config-path=../../../../../../etc"), "MC023"),
}


@pytest.mark.parametrize("name", sorted(VERL_CASES))
def test_hostile_verl_overrides(tmp_path, name):
    text, code = VERL_CASES[name]
    (tmp_path / "run.sh").write_text(text)
    rc, out, _ = run("check", "run.sh", cwd=tmp_path)
    assert "root:" not in out and "MC019" not in out
    assert code is None or code in out
    assert rc == (1 if code == "MC025" else 0)


def test_sourcing_loop_and_alias_bomb_config(tmp_path):
    (tmp_path / "a.sh").write_text("source ./b.sh\n" + VERL)
    (tmp_path / "b.sh").write_text("source ./a.sh\n")
    (tmp_path / "config").mkdir()
    bomb = "".join(f"{chr(98 + i)}: &{chr(98 + i)} [" + ", ".join([f"*{chr(97 + i)}"] * 9) + "]\n" for i in range(7))
    (tmp_path / "config" / "ppo_megatron_trainer.yaml").write_text(
        "defaults:\n  - ppo_megatron_trainer\n  - ../../../../../etc/passwd\n  - _self_\n"
        "a: &a [x, x, x, x, x, x, x, x, x]\n"
        + bomb + "actor_rollout_ref:\n  actor:\n    megatron:\n      expert_model_parallel_size: 1e400\n")
    rc, out, _ = run("check", ".", cwd=tmp_path)
    assert "MC019" not in out and "root:" not in out and "alias bomb" in out and rc == 1


def test_mindspeed_rl_model_file_through_a_link_out_of_the_tree_or_a_nul(tmp_path):
    src = FIXTURES / "mindspeed_rl" / "configs"
    tree, outside = tmp_path / "t" / "configs", tmp_path / "out" / "model"
    tree.mkdir(parents=True)
    outside.mkdir(parents=True)
    shutil.copy(src / "model" / "deepseekv3_671b.yaml", outside)
    (tree / "model").symlink_to(outside)
    text = (src / "grpo_deepseek_r1_671b_A3.yaml").read_text()
    (tree / "a.yaml").write_text(text)
    (tree / "b.yaml").write_text(text.replace("model: deepseekv3_671b", 'model: "dsv3\\0x"'))
    rc, out, _ = run("check", "--product", "A3", "configs", cwd=tmp_path / "t")
    assert out.count("beside the config is not read") == 2 and "MC019" not in out


@pytest.mark.parametrize("page", ["../../etc/passwd", "/etc/passwd", "nosuch", "\x1b[31m::error::x"])
def test_docs_unknown_page(page):
    rc, out, err = run("docs", page)
    assert rc == 2 and "no page" in err and "root:" not in out


def test_explain_error_list():
    rc, out, _ = run("explain-error", "--list")
    assert rc == 0 and "MC501" in out


def test_examples_copy_never_overwrites_nor_writes_through_a_link(tmp_path):
    (tmp_path / "ex").mkdir()
    rc, out, _ = run("examples")
    first = out.split()[0]
    victim = tmp_path / "victim"
    victim.write_text("victim\n")
    (tmp_path / "ex" / first).symlink_to(victim)
    rc, _, err = run("examples", "--copy", "ex", cwd=tmp_path)
    assert rc == 2 and "exists already" in err and victim.read_text() == "victim\n"
    assert os.listdir(tmp_path / "ex") == [first]
    (tmp_path / "afile").write_text("x")
    rc, _, err = run("examples", "--copy", "afile/sub", cwd=tmp_path)
    assert rc == 2 and "Not a directory" in err


@pytest.mark.parametrize("kind", ["fifo", "device", "huge", "binary"])
def test_preflight_bash_file_not_read_is_said(tmp_path, kind):
    path = tmp_path / "s.sh"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":
        path = Path("/dev/zero")
    elif kind == "huge":
        path.write_text("# x\n" * 300_000 + "vllm serve m --enable-expert-parallel\n")
    else:
        path.write_bytes(b"\x00" * 10 + b"\nvllm serve m\n")
    rc, out, err = run("preflight", "--check-only", "bash", str(path), cwd=tmp_path)
    assert f"script {path}: not read" in out + err and rc in (0, 1)


def test_plan_on_hostile_launches(tmp_path):
    (tmp_path / "p.sh").write_text(
        "export HCCL_BUFFSIZE=99999999999999999999999\nvllm serve m --quantization ascend -dp 4 -tp 4 "
        "--enable-expert-parallel --max-num-seqs 1e400 --max-num-batched-tokens -5\n"
        + "".join(f"vllm serve m{i} --quantization ascend -dp 4 -tp 4 --enable-expert-parallel --max-num-seqs {10**i}\n"
                  for i in range(200)))
    os.mkfifo(tmp_path / "fifo.sh")
    rc, out, _ = run("plan", "--product", "A3", "p.sh", cwd=tmp_path)
    planned = [int(line.split(":")[1]) for line in out.splitlines() if "as written" in line]
    # the launches whose values are numbers moecfg reads (10**0 .. 10**18 on lines 3..21); 1e400, -5 and
    # --max-num-seqs past 64 bits derive no op call, so there is nothing to plan: each is named, with why (MC023)
    assert planned == list(range(3, 22))
    not_planned = [int(line.split(":")[1]) for line in out.splitlines() if ": not planned: MC023: " in line]
    assert not_planned == [2, *range(22, 203)]
    # as `check` judges the file: the 10**23 MB buffer fails MC950 on every launch, -5 fails MC025 (issue 37)
    assert rc == 1 and "as written: fails MC950 (moecfg check p.sh says why)" in out
    rc, _, err = run("plan", "fifo.sh", cwd=tmp_path)
    assert rc == 2 and "not a regular file" in err
