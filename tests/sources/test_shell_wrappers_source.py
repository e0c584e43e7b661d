"""Wrappers before the program (sources/shell/wrappers.py) and `source FILE` (sources/shell/sourced.py) in launch scripts."""
from __future__ import annotations

import os
import time

import pytest
from reader_helpers import after, pos, words

from moecfg.sources.shell import sourced
from moecfg.sources.readers import read_shell
from moecfg.sources.shell.sourced import Includes


def first(text: str, include=None):
    return read_shell(text, include).launches[0]


@pytest.mark.parametrize("prefix", [
    "numactl --cpunodebind=0 -m 0 --", "numactl -N0 -l", "taskset -c 0-7", "taskset 0xff", "nohup",
    "timeout 600", "timeout -k 5 -s INT 10m", "stdbuf -oL -e L", "env -u X", "exec -a name", "nice -n 5",
    "ionice -c 2 -n 0", "srun --nodes=2 -N 2 --container-image img --mpi=pmix -l",
    "mpirun -np 16 --bind-to none --mca btl_tcp_if_include eth0 -H a,b", "mpiexec -n 8 -ppn 8",
    "nohup numactl --interleave=all taskset -c 0-7 timeout 1h",
])
def test_wrappers_are_stripped_to_the_program(prefix):
    text = f"{prefix} torchrun --nproc_per_node 8 pretrain_gpt.py --num-experts 8\n"
    launch = first(text)
    assert words(launch)[:2] == ["torchrun", "--nproc_per_node"]
    assert pos(launch.argv[0].span) == (1, len(prefix) + 2, 1, len(prefix) + 10)


def test_torch_distributed_run_is_left_for_the_frameworks():
    launch = first("nohup python -m torch.distributed.run --nproc_per_node 8 pretrain_gpt.py\n")
    assert words(launch)[:3] == ["python", "-m", "torch.distributed.run"]


def test_mpirun_x_genv_and_srun_export_reach_the_program():
    text = ("export A=1 X=7\nmpirun -np 8 -x NCCL_IB_HCA=mlx5 -x X -genv NVSHMEM_X 4 python t.py\n"
            "srun --export=ALL,HCCL_BUFFSIZE=512 env -u A python u.py\n")
    mpi, srun = read_shell(text).launches
    assert {k: e.value for k, e in mpi.env.items()} == {"A": "1", "X": "7", "NCCL_IB_HCA": "mlx5", "NVSHMEM_X": "4"}
    assert pos(mpi.env["NCCL_IB_HCA"].span) == (2, 17, 2, 33)
    assert {k: e.value for k, e in srun.env.items()} == {"X": "7", "HCCL_BUFFSIZE": "512"}  # env -u A


def test_taskset_on_a_running_pid_launches_nothing():
    assert [words(x) for x in read_shell("taskset -p 0xff 1234\nvllm serve m\n").launches] == [["vllm", "serve", "m"]]


def write(folder, name: str, text: str) -> str:
    path = os.path.join(folder, name)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)
    return path


def test_source_next_to_the_script_is_read_and_points_at_the_source_line(tmp_path):
    write(tmp_path, "env.sh", "export HCCL_BUFFSIZE=512\nTP=4\nMOE=(--num-experts 8)\n")
    text = "TP=1\nsource ./env.sh\nvllm serve m --tp $TP \"${MOE[@]}\"\n. env.sh\n"
    script = write(tmp_path, "run.sh", text)
    lf = read_shell(text, Includes.for_script(script))
    assert lf.problems == []
    launch = next(x for x in lf.launches if x.argv[0].value == "vllm")
    assert (after(launch, "--tp").value, after(launch, "--num-experts").value) == ("4", "8")
    assert pos(after(launch, "--num-experts").span) == (2, 1, 2, 16)  # `source ./env.sh`: the value's origin
    assert launch.env["HCCL_BUFFSIZE"].value == "512" and pos(launch.env["HCCL_BUFFSIZE"].span) == (2, 1, 2, 16)


def test_unreadable_source_makes_every_variable_unknown_after_it(tmp_path):
    os.mkdir(os.path.join(tmp_path, "sub"))
    write(tmp_path, "outside.sh", "TP=2\n")
    text = ("export HCCL_BUFFSIZE=512\nTP=4\nsource \"$CONF\"\nvllm serve a --tp $TP\nTP=8\n"
            "source ../outside.sh\nsource ./missing.sh\nvllm serve b --tp $TP\n")
    script = write(os.path.join(tmp_path, "sub"), "run.sh", text)
    lf = read_shell(text, Includes.for_script(script))
    a, b = [x for x in lf.launches if x.argv[0].value == "vllm"]
    assert after(a, "--tp").value is None and a.env["HCCL_BUFFSIZE"].value is None
    assert after(b, "--tp").value is None  # ../outside.sh is outside the script's folder: not read
    assert [(p.code, pos(p.span)[:2]) for p in lf.problems] == [("MC023", (3, 1)), ("MC023", (6, 1)), ("MC023", (7, 1))]
    assert after(read_shell(text).launches[-1], "--tp").value is None  # no hook (stdin): unknown as well


def test_installed_environment_scripts_change_only_their_own_names():
    text = ("export HCCL_BUFFSIZE=512 ASCEND_RT_VISIBLE_DEVICES=0 PATH=/x\nsource /usr/local/Ascend/ascend-toolkit/"
            "set_env.sh\nsource ${VENV}/bin/activate\nvllm serve m\n")
    lf = read_shell(text)
    env = lf.launches[-1].env
    assert lf.problems == [] and env["HCCL_BUFFSIZE"].value == "512"
    assert env["ASCEND_RT_VISIBLE_DEVICES"].value is None and env["PATH"].value is None


def test_self_referencing_and_device_sources_stay_fast(tmp_path):
    write(tmp_path, "a.sh", "A=1\nsource ./b.sh\n")
    write(tmp_path, "b.sh", "B=2\nsource ./a.sh\nsource ./b.sh\n")
    os.symlink("/dev/zero", os.path.join(tmp_path, "zero.sh"))
    write(tmp_path, "big.sh", "X=1\n" * (sourced.MAX_BYTES // 4 + 1))
    text = "source ./a.sh\nsource ./zero.sh\nsource ./big.sh\nvllm serve m --a $A\n"
    script = write(tmp_path, "run.sh", text)
    t = time.process_time()
    lf = read_shell(text, Includes.for_script(script))
    assert time.process_time() - t < 5
    assert [pos(p.span)[0] for p in lf.problems] == [2, 3]  # /dev/zero and the oversized file are not read
    assert after(lf.launches[-1], "--a").value is None


def test_a_fan_out_of_sources_is_capped(tmp_path):
    for i in range(40):
        write(tmp_path, f"s{i}.sh", "".join(f"source ./s{j}.sh\n" for j in range(i + 1, min(i + 4, 40))) + f"V{i}={i}\n")
    text = "source ./s0.sh\nvllm serve m --v $V0\n"
    script = write(tmp_path, "run.sh", text)
    t = time.process_time()
    lf = read_shell(text, Includes.for_script(script))
    assert time.process_time() - t < 5
    assert after(lf.launches[-1], "--v").value == "0"  # set after the (partly unread) nested sources


def test_sbatch_heredoc_is_the_script_that_runs():
    text = ("export HCCL_BUFFSIZE=512\nN=2\nsbatch --nodes $N <<EOF\n#!/bin/bash\n#SBATCH -N $N\n"
            "srun --container-image=\\${IMG} -l vllm serve m --tp $N --x \\$Y\nEOF\n"
            "bash <<'EOF'\nvllm serve q --tp $N\nEOF\n")
    first_launch, quoted = [x for x in read_shell(text).launches if x.argv[0].value == "vllm"]
    assert words(first_launch) == ["vllm", "serve", "m", "--tp", "2", "--x", None]  # \$Y: expanded at run time
    assert pos(first_launch.argv[0].span) == (6, 35, 6, 39) and first_launch.argv[0].exact
    assert pos(after(first_launch, "--tp").span) == (6, 53, 6, 55)  # the `$N` in the body
    assert first_launch.env["HCCL_BUFFSIZE"].value == "512"
    assert after(quoted, "--tp").value is None  # <<'EOF': the body is not expanded; N is not exported


def test_a_string_known_in_parts_still_gives_its_known_words_to_bash_c():
    text = ('ARGS=(--a 1)\nif [ -n "$P" ]; then ARGS+=(--p 2); fi\nCMD="cd $DIR; vllm serve m ${ARGS[@]} --tp 4"\n'
            'bash -c "$CMD"\n')
    launch = next(x for x in read_shell(text).launches if x.argv[0].value == "vllm")
    assert words(launch) == ["vllm", "serve", "m", "--a", "1", None, "--tp", "4"]
    assert pos(launch.argv[0].span) == (3, 15, 3, 19)  # `vllm` in CMD="..." on line 3
    assert pos(after(launch, "--a").span) == (1, 11, 1, 12)  # `1` in ARGS=(--a 1) on line 1


def test_check_reads_a_sourced_file_next_to_the_script(tmp_path):
    from moecfg.checking.engine import check_paths
    write(tmp_path, "moe.sh", "MOE_ARGS=(--num-experts 256 --moe-token-dispatcher-type flex --expert-model-parallel-size 8)\n")
    write(tmp_path, "run.sh", "source ./moe.sh\ntorchrun --nproc_per_node 8 pretrain_gpt.py --hidden-size 7168 "
          "--seq-length 4096 \"${MOE_ARGS[@]}\"\n")
    (result,) = [r for r in check_paths([str(tmp_path)]).results if r.file.endswith("run.sh")]
    assert result.kind == "deepep" and result.launch["framework"] == "megatron"
    assert [d.code for d in result.diagnostics if d.code == "MC023"] == []


def test_heredocs_that_are_data_are_not_read_as_commands():
    # out of scope: a YAML/JSON config written for the launch, or a Python program on stdin
    text = ("cat > cfg.yaml <<EOF\nserver_cmd: vllm serve m --tp 8\nEOF\npython - <<'PY'\nimport os\nPY\n"
            "bash -c 'vllm serve m' <<EOF\nvllm serve ignored\nEOF\n")
    assert [words(x)[0] for x in read_shell(text).launches] == ["cat", "python", "vllm"]
    assert words(read_shell(text).launches[-1]) == ["vllm", "serve", "m"]


def test_check_of_a_folder_allows_sources_anywhere_inside_it(tmp_path):
    from moecfg.checking.engine import check_paths
    os.mkdir(os.path.join(tmp_path, "jobs"))
    write(tmp_path, "common.sh", "MOE=(--num-experts 256 --moe-token-dispatcher-type flex --expert-model-parallel-size 8)\n")
    run = "source ../common.sh\ntorchrun pretrain_gpt.py --hidden-size 7168 \"${MOE[@]}\"\n"
    write(os.path.join(tmp_path, "jobs"), "run.sh", run)
    (folder,) = [r for r in check_paths([str(tmp_path)]).results if r.file.endswith("run.sh")]
    assert folder.kind == "deepep"  # ../common.sh is inside the checked folder
    (named,) = check_paths([os.path.join(tmp_path, "jobs", "run.sh")]).results
    assert "MC023" in [d.code for d in named.diagnostics]  # named alone: only its own folder may be read


def test_a_launcher_prefix_held_in_a_variable_still_runs_its_bash_c_script():
    # Megatron-Bridge examples/models/*/slurm_*.sh: SRUN_CMD built under conditions, then `$SRUN_CMD bash -c "$CMD"`
    text = ('CMD="torchrun --nproc_per_node=8 run_recipe.py --recipe x"\nif [ -n "$M" ]; then S="srun --x"; fi\n'
            '$S bash -lc "$CMD"\n$S echo bash -c "$CMD"\n')
    assert [lf.words() for lf in read_shell(text).launches][0] == ["torchrun", "--nproc_per_node=8", "run_recipe.py",
                                                                  "--recipe", "x"]
    assert len(read_shell(text).launches) == 2  # `echo bash -c ...` is not a shell running the script
