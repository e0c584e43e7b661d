"""Issue 21 item 5: infos and warnings only on launches they are about (each fixture cites its source)."""
from __future__ import annotations

from wildkit import FIXTURES, codes, findings

from moecfg.backends import Options
from moecfg.checking.engine import check_paths


def test_product_question_not_asked_of_a_launch_without_expert_parallelism():
    assert "MC042" not in codes("va-quickstart-no-ep.sh")


def test_product_question_asked_once_per_run_naming_the_other_files():
    names = [str(FIXTURES / n) for n in ("va-dp-template-ep.sh", "va-dp-template-ep-copy.sh")]
    report = check_paths(names, Options())
    asked = [(r.file, d.message) for r in report.results for d in r.diagnostics if d.code == "MC042"]
    assert len(asked) == 1
    (file, message), other = asked[0], next(n for n in names if n != asked[0][0])
    assert "2 launches" in message and other in message


def test_product_given_asks_nothing():
    asked = [f for f in findings("va-dp-template-ep.sh", product="A3") if f[0] == "MC042"]
    assert asked and not [f for f in asked if "Ascend product" in f[3]]  # the model question stays


def test_valuefrom_on_a_manifest_without_a_recognised_launch_says_nothing():
    assert findings("lws-trtllm-valuefrom.yaml") == []


def test_a_template_that_holds_no_launch_is_skipped():
    assert findings("lws-certificate-template.yaml") == []


def test_dense_models_get_no_moe_info():
    assert findings("megatron-bert-dense.yaml") == []
    assert "MC041" not in codes("va-quickstart-no-ep.sh")


def test_a_script_without_a_launch_says_nothing_about_its_sources():
    from moecfg.checking.engine import lint_text

    results = lint_text(". /shared-config/env.sh\necho $MODEL\n", "setup.sh", Options())
    assert [d for r in results for d in r.diagnostics] == []
    results = lint_text(". /shared-config/env.sh\nvllm serve $MODEL\n", "run.sh", Options())
    assert "MC023" in {d.code for r in results for d in r.diagnostics}


MODEL_ALIASES = ("srt-slurm-model-alias-fp4.yaml", "srt-slurm-model-alias-fp8.yaml")


def test_model_question_asked_once_per_run_naming_the_other_models_and_files():
    names = [str(FIXTURES / n) for n in MODEL_ALIASES]
    report = check_paths(names, Options())
    asked = [(r.file, d.severity, d.message) for r in report.results for d in r.diagnostics if d.code == "MC042"]
    assert len(asked) == 1 and asked[0][1] == "warning"
    file, _, message = asked[0]
    other = next(n for n in names if n != file)
    mine, theirs = ("dsr1-fp4", "dsr1-fp8") if file.endswith("fp4.yaml") else ("dsr1-fp8", "dsr1-fp4")
    assert "2 launches" in message and other in message
    assert f"models: {{'{mine}'" in message and f"'{theirs}'" in message


def test_model_question_not_asked_where_the_model_changes_nothing():
    from moecfg.checking.engine import lint_text

    text = (FIXTURES / MODEL_ALIASES[0]).read_text().replace('moe-a2a-backend: "deepep"', 'moe-a2a-backend: "none"')
    results = lint_text(text, "recipe.yaml", Options())
    assert "moe-a2a-backend: \"none\"" in text and "MC042" not in {d.code for r in results for d in r.diagnostics}


def test_model_question_of_vllm_ascend_only_with_expert_parallelism():
    from moecfg.checking.engine import lint_text

    def asked(script):
        return [d for r in lint_text(script, "run.sh", Options(product="A3")) for d in r.diagnostics
                if d.code == "MC042" and "dsr1" in d.message]

    launch = "vllm serve /models/dsr1 --tensor-parallel-size 16 --data-parallel-size 1"
    assert asked(launch + "\n") == []
    assert len(asked(launch + " --enable-expert-parallel\n")) == 1


def test_fused_op_question_asked_once_per_run(tmp_path):
    # vllm-ascend@182b75e's docs set VLLM_ASCEND_ENABLE_FUSED_MC2=1 in 16 launches: one `cann_version` answers
    # "MegaMoE or dispatch_ffn_combine?" for all of them, so the question is asked once, naming the other files
    launch = ("export VLLM_ASCEND_ENABLE_FUSED_MC2=1\n"
              "vllm serve deepseek-ai/DeepSeek-V3 --tensor-parallel-size 16 --enable-expert-parallel\n")
    names = []
    for n in ("a.sh", "b.sh", "c.sh"):
        (tmp_path / n).write_text(launch)
        names.append(str(tmp_path / n))
    report = check_paths(names, Options(product="A3"))
    asked = [(r.file, d) for r in report.results for d in r.diagnostics
             if d.code == "MC042" and "cannot see the image" in d.message]
    assert len(asked) == 1
    file, d = asked[0]
    assert "3 launches" in d.message and all(n in d.message for n in names if n != file)
