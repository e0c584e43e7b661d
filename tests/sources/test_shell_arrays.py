"""Bash arrays in launch scripts (sources/shell/arrays.py): each element keeps its own position; any form moecfg
does not model is an unknown word, never guessed."""
from __future__ import annotations

import time

from reader_helpers import after, at, pos, words

from moecfg.sources.shell import arrays as shell_arrays
from moecfg.sources.readers import read_shell


def only(text: str, program: str = "torchrun"):
    found = [x for x in read_shell(text).launches if x.argv and x.argv[0].value == program]
    assert len(found) == 1, [words(x) for x in read_shell(text).launches]
    return found[0]


def test_quoted_array_expansion_keeps_each_element_and_its_position():
    text = 'ARGS=(--a 1 --b "x y" \'q r\')\ntorchrun t.py "${ARGS[@]}" end\n'
    launch = only(text)
    assert words(launch) == ["torchrun", "t.py", "--a", "1", "--b", "x y", "q r", "end"]
    assert pos(after(launch, "--a").span) == (1, 11, 1, 12)  # the `1` inside ARGS=( ... ) on line 1
    assert after(launch, "--a").exact
    assert at(text, after(launch, "--b").span) == '"x y"'
    assert pos(launch.argv[-1].span) == (2, 28, 2, 31)


def test_unquoted_expansion_splits_elements_at_blanks_with_their_own_columns():
    text = 'L=("--tokenizer-type NullTokenizer" --mock)\ntorchrun t.py ${L[@]} ${L[*]}\n'
    launch = only(text)
    assert words(launch)[2:] == ["--tokenizer-type", "NullTokenizer", "--mock"] * 2
    assert pos(launch.argv[2].span) == (1, 5, 1, 21) and pos(launch.argv[3].span) == (1, 22, 1, 35)
    assert all(w.exact for w in launch.argv[2:5])


def test_append_declare_local_and_nested_arrays():
    text = ("declare -a A=(--x 1)\nA+=(--y 2)\nB=(pre \"${A[@]}\" post)\nf() {\n  local -a C=(--c 3)\n"
            "  torchrun fn.py \"${C[@]}\"\n}\ntorchrun t.py \"${B[@]}\"\n")
    launches = [words(x) for x in read_shell(text).launches if x.argv[0].value == "torchrun"]
    assert launches == [["torchrun", "fn.py", "--c", "3"], ["torchrun", "t.py", "pre", "--x", "1", "--y", "2", "post"]]


def test_scalar_forms_index_count_and_star_join():
    text = 'A=(a "b c" d)\nS="${A[*]}"\ntorchrun t.py ${A[1]} ${#A[@]} "$S" "${A[*]}" ${A[7]} "$A"\n'
    # ${A[1]} unquoted: split; ${A[7]}: past the end, empty (kept as "" like the reader's other empty expansions)
    assert words(only(text))[2:] == ["b", "c", "3", "a b c d", "a b c d", "", "a"]


def test_array_appended_in_a_branch_keeps_its_elements_plus_one_unknown_word():
    text = "A=(--a 1)\nif [ -n \"$W\" ]; then\n  A+=(--w 2)\nfi\ntorchrun t.py \"${A[@]}\" --z 3\n"
    launch = only(text)
    assert words(launch) == ["torchrun", "t.py", "--a", "1", None, "--z", "3"]
    assert pos(launch.argv[4].span) == (3, 3, 3, 13)  # the unknown word points at the append in the branch
    assert after(launch, "--a").exact


def test_unsupported_forms_are_unknown_never_guessed():
    text = ("A=(--a 1 --b 2)\nA[1]=9\nB=(--b 2)\nunset 'B[0]'\ndeclare -A M=([k]=v)\nC=(x $U y)\nD=(--d 4)\n"
            "torchrun t.py \"${A[@]}\" \"${B[@]}\" \"${M[@]}\" \"${C[@]}\" ${D[@]:1} \"p ${D[@]}\" ${!D[@]} "
            "\"${Q[@]}\" ${#C[@]}\n")
    launch = only(text)
    assert words(launch)[2:] == [None, None, None, "x", None, "y", None, None, None, None, None]
    assert at(text, launch.argv[-3].span) == "${!D[@]}"


def test_an_empty_array_expands_to_no_word():
    launch = only("E=()\nlocal -a F\ntorchrun t.py \"${E[@]}\" ${F[@]} end\n")
    assert words(launch) == ["torchrun", "t.py", "end"]


def test_a_huge_array_stays_fast_and_an_oversized_one_is_unknown(monkeypatch):
    big = "A=(" + " ".join(f"--f{i} {i}" for i in range(5_000)) + ")\ntorchrun t.py \"${A[@]}\" \"${A[@]}\"\n"
    t = time.process_time()
    launch = only(big)
    assert len(launch.argv) == 2 + 20_000 and time.process_time() - t < 5
    assert pos(after(launch, "--f4999").span)[1] > 50_000
    monkeypatch.setattr(shell_arrays, "MAX_ELEMENTS", shell_arrays.MAX_ELEMENTS // 10)  # same check, a tenth
    over = "A=(" + "x " * (shell_arrays.MAX_ELEMENTS + 1) + ")\nB=(x)\n" + "B+=(y)\n" * shell_arrays.MAX_ELEMENTS
    assert words(only(over + "torchrun t.py \"${A[@]}\" \"${B[@]}\"\n")) == ["torchrun", "t.py", None, None]


def test_repeated_expansion_of_a_large_array_is_capped_by_the_word_budget(monkeypatch):
    monkeypatch.setattr(shell_arrays, "WORD_BUDGET", shell_arrays.WORD_BUDGET // 10)  # same mechanism, a tenth
    text = "A=(" + "x " * 10_000 + ")\n" + "torchrun \"${A[@]}\"\n" * 12
    t = time.process_time()
    launches = read_shell(text).launches
    assert time.process_time() - t < 5
    # 10 expansions x 10,000 words = the 100,000-word budget; the 2 after it are one unknown word each
    assert [len(x.argv) for x in launches] == [10_001] * 10 + [2] * 2


def test_arrays_copied_deeply_and_self_appends_stay_linear():
    chain = "A0=(--a 1)\n" + "".join(f"A{i}=(\"${{A{i - 1}[@]}}\" --x{i} {i})\n" for i in range(1, 300))
    launch = only(chain + "torchrun t.py \"${A299[@]}\"\n")
    assert len(launch.argv) == 2 + 2 + 2 * 299 and after(launch, "--x299").value == "299"
    loop = "A=(s)\n" + "A+=(\"${A[@]}\")\n" * 13 + "torchrun t.py ${#A[@]}\n"
    assert words(only(loop))[-1] == str(2 ** 13)  # 8,192 elements
    assert words(only(loop.replace("torchrun", "A+=(\"${A[@]}\")\ntorchrun")))[-1] is None  # 16,384 > the cap


def megatron_launch(name: str, entry: str = "pretrain_gpt.py"):
    from reader_helpers import FIXTURES
    text = (FIXTURES / name).read_text(encoding="utf-8")
    lf = read_shell(text)
    (launch,) = [x for x in lf.launches if any(w.value == entry for w in x.argv)]
    return text, lf, launch


def test_megatron_mixtral_example_flags_come_from_its_arrays():
    text, lf, launch = megatron_launch("megatron-mixtral-8x7b-alltoall.sh")
    assert lf.problems == []
    dispatcher = after(launch, "--moe-token-dispatcher-type")
    assert (dispatcher.value, pos(dispatcher.span), dispatcher.exact) == ("alltoall", (57, 33, 57, 41), True)
    assert (after(launch, "--num-experts").value, pos(after(launch, "--num-experts").span)) == ("8", (52, 19, 52, 20))
    assert after(launch, "--expert-model-parallel-size").value == "8"
    assert after(launch, "--nproc_per_node").value == "8"  # GPUS_PER_NODE=8, via DISTRIBUTED_ARGS
    assert after(launch, "--nnodes").value is None  # ${SLURM_NNODES:-"1"}: the caller's environment
    assert words(launch)[-1] is None  # LOGGING_ARGS+=(...) only when WANDB_API_KEY is set: maybe more words
    assert at(text, launch.argv[-1].span).startswith("LOGGING_ARGS+=(")


def test_megatron_gptoss_example_with_quoted_multi_word_elements():
    text, lf, launch = megatron_launch("megatron-gptoss-20b-train.sh")
    # `source "$DISTRIBUTED_CONFIG_FILE"` (a path given at run time) is reported, and what it could set is unknown
    assert [(p.code, pos(p.span)) for p in lf.problems] == [("MC023", (85, 9, 85, 42))]
    assert words(launch)[:3] == ["python", "-m", "torch.distributed.run"]
    assert after(launch, "--nproc_per_node").value is None  # GPUS_PER_NODE=${GPUS_PER_NODE:-8} after the source
    assert (after(launch, "--num-experts").value, pos(after(launch, "--num-experts").span)) == ("4", (159, 19, 159, 20))
    ep = after(launch, "--expert-model-parallel-size")
    assert (ep.value, ep.exact, at(text, ep.span)) == ("1", False, "${EP_SIZE}")
    assert after(launch, "--hidden-size").value == "512" and after(launch, "--seq-length").value == "8192"
    assert None in words(launch)  # DATA_ARGS_LIST: filled in an if/else, so unknown


def test_glob_like_and_bracketed_elements_are_ordinary_words():
    launch = only("A=(--moe-layer-freq [0]*3+[1]*58 --x [a])\ntorchrun t.py \"${A[@]}\"\n")
    assert words(launch)[2:] == ["--moe-layer-freq", "[0]*3+[1]*58", "--x", "[a]"]


def test_megatron_fsdp_deepseek_v3_sbatch_heredoc():
    # the launch runs inside `sbatch <<EOF ... srun ... bash -x -c "${TRAINING_CMD}"`; TRAINING_CMD joins
    # PRETRAIN_ARGS, which three `if` blocks may extend (FSDP, profiling, W&B): each adds one unknown word
    text, lf, launch = megatron_launch("megatron-fsdp-deepseek-v3-sbatch.sh", "python")
    assert lf.problems == []
    assert (after(launch, "--moe-token-dispatcher-type").value, after(launch, "--moe-flex-dispatcher-backend").value) \
        == ("flex", "hybridep")
    assert [after(launch, f).value for f in ("--hidden-size", "--num-experts", "--moe-router-topk", "--seq-length")] \
        == ["7168", "256", "8", "4096"]
    assert after(launch, "--expert-model-parallel-size").value is None  # EP=${EP:-8}: the caller may set EP
    assert words(launch)[-3:] == [None, None, None]
    # through the heredoc, bash -c "${TRAINING_CMD}" and the string joining PRETRAIN_ARGS, each word still points
    # at its place in PRETRAIN_ARGS=( ... )
    experts, backend = after(launch, "--num-experts"), after(launch, "--moe-flex-dispatcher-backend")
    assert (pos(experts.span), experts.exact, pos(backend.span)) == ((88, 19, 88, 22), True, (95, 35, 95, 43))
    assert at(text, after(launch, "--expert-model-parallel-size").span) == "${EP}"
    assert at(text, launch.argv[-1].span) == "${PRETRAIN_ARGS[@]}"  # the words the `if` blocks may add
    assert launch.argv[launch.words().index("python") + 1].value is None  # ${MEGATRON_PATH}/pretrain_gpt.py


def test_builtins_that_read_input_make_their_variables_unknown():
    text = ("A=(--a 1)\nB=(--b 2)\nX=1\nY=2\nREPLY=3\nread -ra A <<< \"$IN\"\nmapfile -t B < args.txt\n"
            "read -p 'x' X Y\nprintf -v P '%s' 4\nread\ntorchrun \"${A[@]}\" \"${B[@]}\" $X $Y $REPLY\n")
    assert words(only(text)) == ["torchrun", None, None, None, None, None]
