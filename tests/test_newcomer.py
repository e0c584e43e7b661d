"""Issue 14: what a newcomer trips on. One test (or more) per friction item fixed here."""
from __future__ import annotations

import pytest

from moecfg.core.engine import lint_bytes
from moecfg.core.settings import Cli, Config, FilePolicy


def codes(text: str) -> list[str]:
    results = lint_bytes(text.encode(), "x.yaml", policy=FilePolicy(Config(), Cli()))
    return [d.code for r in results for d in r.diagnostics]


# ---- item 7: an unknown model is the root cause; the keys its preset would fill are not reported missing ----
@pytest.mark.parametrize("doc", [
    "product: A3\ncann_version: 9.0.1\nmodel: deepseek-v4\nbs: 128\nep_world_size: 32\nenv:\n  HCCL_BUFFSIZE: 1024\n",
    "kind: deepep\nmode: normal\nmodel: deepsek-v3\nnum_ranks: 16\n",
], ids=["ascend", "deepep"])
def test_unknown_model_reports_only_the_root_cause(doc):
    assert codes(doc) == ["MC006"]


def test_unknown_model_still_reports_a_key_no_preset_fills():
    # bs is not a model property: its absence is a mistake of its own
    doc = "product: A3\ncann_version: 9.0.1\nmodel: deepseek-v4\nep_world_size: 32\nenv:\n  HCCL_BUFFSIZE: 1024\n"
    assert sorted(codes(doc)) == ["MC005", "MC006"]


def test_missing_keys_without_model_are_all_reported():
    doc = "product: A3\ncann_version: 9.0.1\nbs: 128\nep_world_size: 32\nenv:\n  HCCL_BUFFSIZE: 1024\n"
    assert codes(doc) == ["MC005", "MC005", "MC005"]


# ---- item 5: `plan --emit yaml` writes files that check clean --------------------------------------------------
PLANS = {
    "ascend-no-cann": ["--product", "A3", "--model", "deepseek-v3", "--ep", "16,32", "--buffer", "768"],
    "ascend-cann": ["--product", "A3", "--model", "deepseek-v3", "--cann", "9.0.1", "--ep", "32", "--bs", "128"],
    "mega-moe": ["--product", "A3", "--set", "op=mega_moe", "--set", "h=7168", "--set", "k=8", "--set",
                 "moe_expert_num=256", "--set", "intermediate_hidden=2048", "--ep", "16", "--bs", "128"],
    "deepep": ["--kind", "deepep", "--mode", "low_latency", "--model", "deepseek-v3", "--num-ranks", "16",
               "--num-rdma-bytes", "2GiB"],
}


@pytest.mark.parametrize("args", PLANS.values(), ids=PLANS.keys())
def test_plan_emit_yaml_checks_clean(args):
    from click.testing import CliRunner

    from moecfg.cli import cli

    emitted = CliRunner().invoke(cli, ["plan", *args, "--emit", "yaml"])
    assert emitted.exit_code == 0, emitted.output
    assert "bs: 1" in emitted.output or "num_max_dispatch_tokens_per_rank:" in emitted.output
    assert codes(emitted.output) == []
    checked = CliRunner().invoke(cli, ["check", "--fail-on", "info", "-"], input=emitted.output)
    assert checked.exit_code == 0, checked.output


# ---- item 3: `buffer --help` grouped per kind, common options first, one spelling of --cann ----------------------
def _buffer_help() -> str:
    from click.testing import CliRunner

    from moecfg.cli import cli

    return CliRunner().invoke(cli, ["buffer", "--help"], terminal_width=120).output


def test_buffer_help_lists_common_options_then_one_section_per_kind():
    text = _buffer_help()
    heads = [line for line in text.splitlines() if line and not line.startswith(" ") and line.endswith(":")]
    assert heads == ["Options:", "Ascend fields (--kind ascend, the default):", "DeepEP fields (--kind deepep):",
                     "Tutel fields (--kind tutel):"]
    common, ascend = text.index("Options:"), text.index("Ascend fields")
    assert common < text.index("--format") < text.index("--cann ") < ascend < text.index("--product") \
        < text.index("--bs ") < text.index("--h ") < text.index("DeepEP fields") < text.index("--num-ranks") \
        < text.index("Tutel fields") < text.index("--world-size")


def test_buffer_help_has_one_spelling_of_cann_and_the_alias_still_works():
    assert "--cann-version" not in _buffer_help()
    from click.testing import CliRunner

    from moecfg.cli import cli

    args = ["buffer", "--product", "A3", "--bs", "128", "--h", "7168", "--k", "8", "--ep-world-size", "32",
            "--moe-expert-num", "256", "--format", "json"]
    by_alias = CliRunner().invoke(cli, args + ["--cann-version", "8.5"])
    by_flag = CliRunner().invoke(cli, args + ["--cann", "8.5"])
    assert by_alias.exit_code == by_flag.exit_code == 0
    assert '"8.5"' in by_alias.output and '"8.5"' in by_flag.output
