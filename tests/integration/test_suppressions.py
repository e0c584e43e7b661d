"""`# moecfg: disable=CODE -- reason` directives: same line, line before, file level, unused (MC014), no reason
(MC015), --no-inline-suppressions."""
from __future__ import annotations

from moecfg.checking.settings import Cli, Config, FilePolicy
from moecfg.checking.engine import lint_text
from integration_helpers import run  # noqa: F401  (pytest fixture)

BASE = """product: A3
cann_version: 9.0.1
bs: 128
h: 7168
k: 8
ep_world_size: 32
moe_expert_num: {moe}
env:
  HCCL_BUFFSIZE: 1024
"""
BAD = BASE.format(moe="250{c}")  # MC201 on line 7


def lint(text: str, inline: bool | None = None, cfg: Config = Config()):
    policy = FilePolicy(cfg, Cli(inline_suppressions=inline))
    return [(d.code, d.line) for r in lint_text(text, "t.yaml", policy=policy) for d in r.diagnostics]


def test_without_directive_the_rule_fires():
    assert lint(BAD.format(c="")) == [("MC201", 7)]


def test_same_line_directive_with_reason_suppresses():
    assert lint(BAD.format(c="  # moecfg: disable=MC201 -- padded experts")) == []


def test_rule_name_works_like_the_code():
    assert lint(BAD.format(c="  # moecfg: disable=moe-expert-divisibility -- padded")) == []


def test_directive_on_the_line_before_covers_the_next_key():
    text = BAD.format(c="").replace("moe_expert_num", "# moecfg: disable=MC201 -- padded\nmoe_expert_num")
    assert lint(text) == []


def test_line_before_skips_further_comment_lines():
    text = BAD.format(c="").replace("moe_expert_num", "# moecfg: disable=MC201 -- padded\n# (see ticket 12)\nmoe_expert_num")
    assert lint(text) == []


def test_directive_two_lines_above_with_a_key_between_does_not_cover():
    text = BAD.format(c="").replace("ep_world_size", "# moecfg: disable=MC201 -- wrong place\nep_world_size")
    assert lint(text) == [("MC014", 6), ("MC201", 8)]


def test_trailing_directive_does_not_cover_the_next_line():
    text = BAD.format(c="").replace("ep_world_size: 32", "ep_world_size: 32  # moecfg: disable=MC201 -- x")
    assert lint(text) == [("MC014", 6), ("MC201", 7)]


def test_file_level_directive_in_the_header():
    assert lint("# moecfg: disable-file=MC201 -- whole file\n" + BAD.format(c="")) == []


def test_file_level_directive_after_line_10_is_ignored_and_reported():
    text = BAD.format(c="") + "\n" * 5 + "# moecfg: disable-file=MC201 -- too late\n"
    assert lint(text) == [("MC201", 7), ("MC014", 15)]


def test_unused_suppression_is_mc014():
    text = BASE.format(moe="256  # moecfg: disable=MC201 -- stale")
    assert lint(text) == [("MC014", 7)]


def test_unknown_code_is_mc014():
    assert lint(BAD.format(c="  # moecfg: disable=MC201,MC999 -- typo")) == [("MC014", 7)]


def test_missing_reason_is_mc015_but_still_suppresses():
    assert lint(BAD.format(c="  # moecfg: disable=MC201")) == [("MC015", 7)]


def test_unreadable_directive_is_mc015():
    assert lint(BAD.format(c="  # moecfg: disabel=MC201 -- typo")) == [("MC201", 7), ("MC015", 7)]


def test_no_inline_suppressions_ignores_every_directive():
    assert lint(BAD.format(c="  # moecfg: disable=MC201 -- padded"), inline=False) == [("MC201", 7)]
    assert lint(BASE.format(moe="256  # moecfg: disable=MC201"), inline=False) == []  # no MC014/MC015 either


def test_config_inline_suppressions_false_and_command_line_precedence():
    text = BAD.format(c="  # moecfg: disable=MC201 -- padded")
    assert lint(text, cfg=Config(inline_suppressions=False)) == [("MC201", 7)]
    assert lint(text, inline=False, cfg=Config(inline_suppressions=True)) == [("MC201", 7)]


def test_multi_document_directive_belongs_to_its_document():
    text = BASE.format(moe=256) + "---\n" + BAD.format(c="  # moecfg: disable=MC105 -- stale")
    policy = FilePolicy(Config(), Cli())
    results = lint_text(text, "t.yaml", policy=policy)
    assert [d.code for d in results[0].diagnostics] == []
    assert [(d.code, d.line) for d in results[1].diagnostics] == [("MC201", 17), ("MC014", 17)]  # sorted by column: the value before the comment


def test_cli_reports_mc014_as_warning_and_fail_on_warning_fails(run, tmp_path):
    f = tmp_path / "s.yaml"
    f.write_text(BASE.format(moe="256  # moecfg: disable=MC201 -- stale"))
    (tmp_path / ".moecfg.yaml").write_text("{}\n")
    res = run("check", f)
    assert res.exit_code == 0 and "MC014 warning: suppression of MC201 is unused" in res.stdout
    assert run("check", "--fail-on", "warning", f).exit_code == 1
    res = run("check", "--no-inline-suppressions", f)
    assert res.exit_code == 0 and "MC014" not in res.stdout
