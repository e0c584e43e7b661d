"""The click group loads a command's module only when that command runs (start-up of `moecfg check`), and
`moecfg --help` lists every command from the static table, with the commands' own short help."""
from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from moecfg.cli import COMMANDS, cli

ROOT = Path(__file__).resolve().parents[1]
# Never imported by `moecfg check` on a plain YAML file (stderr not a terminal): planner, calculator flags, docs,
# schema, pydantic, rich, the launch readers, the model presets, the other ops' catalogs, the progress bar.
NOT_ON_CHECK_PATH = ("moecfg.plan", "moecfg.cli.plan", "moecfg.cli.buffer", "moecfg.cli.docs", "moecfg.cli.launch",
                     "moecfg.render.rule_docs", "moecfg.models", "moecfg.core.examples", "moecfg.presets",
                     "moecfg.backends.ascend.shared.rules.examples_base",
                     "moecfg.backends.ascend.ops.combine_add_rms_norm.catalog",
                     "moecfg.backends.ascend.ops.dispatch_combine_v1.catalog",
                     "moecfg.backends.ascend.ops.ffn_worker_batching.catalog",
                     "moecfg.sources.launch", "moecfg.core.progress", "pydantic", "rich", "jsonschema")


def _modules_after(argv: list[str]) -> set[str]:
    code = ("import sys\nfrom moecfg.cli import main\ntry:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
            "print('\\n'.join(sorted(sys.modules)), file=sys.stderr)\n")
    out = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, cwd=ROOT)
    return set(out.stderr.split())


def test_check_imports_nothing_of_the_other_commands():
    loaded = _modules_after(["check", str(ROOT / "examples" / "deepseek-v3-a3-ep32.yaml")])
    assert "moecfg.cli.check" in loaded  # the probe did run check
    assert sorted(m for m in loaded if m.startswith(NOT_ON_CHECK_PATH)) == []


# Never imported by a plain `moecfg check` of a moecfg document (the console script's path, cli/plain.py): the
# check path's value classes are records (core/record.py), not dataclasses (~13 ms for dataclasses + inspect),
# and the stdlib modules only an error or another command needs.
NOT_ON_PLAIN_CHECK = ("dataclasses", "inspect", "ast", "dis", "tokenize", "traceback", "click", "typing")


@pytest.mark.parametrize("example", ["deepseek-v3-a3-ep32.yaml", "deepep-deepseek-v3-ll-decode-128.yaml",
                                     "tutel-top2-32gpu-sharded.yaml", "deepseek-v3-a3-mega-moe.yaml"])
def test_plain_check_of_a_document_imports_no_dataclasses_inspect_or_click(example):
    probe = ("import sys\nsys.argv = ['moecfg', 'check', sys.argv[1]]\nimport atexit\n"
             "atexit.register(lambda: print('LOADED', *sorted(sys.modules), file=sys.stderr))\n"
             "from moecfg.cli import main\nmain()\n")
    out = subprocess.run([sys.executable, "-c", probe, str(ROOT / "examples" / example)], capture_output=True,
                         text=True, cwd=ROOT)
    loaded = set(out.stderr.rpartition("LOADED")[2].split())
    assert example in out.stdout and "moecfg.checking.engine" in loaded  # the probe did check the file
    assert sorted(loaded & set(NOT_ON_PLAIN_CHECK)) == []


def test_plain_check_of_a_kind_ascend_document_reads_only_its_ops_field_table(tmp_path):
    """backends/ascend/fields.py: OP_FIELDS loads an op's table on first read (the benchmark's 10-line file)."""
    doc = tmp_path / "one.yaml"
    doc.write_text("kind: ascend\nproduct: A3\nbs: 128\nh: 7168\nk: 8\nep_world_size: 32\nmoe_expert_num: 256\n"
                   "cann_version: \"9.0\"\nenv:\n  HCCL_BUFFSIZE: 1024\n")
    probe = ("import sys\nsys.argv = ['moecfg', 'check', sys.argv[1]]\nimport atexit\n"
             "atexit.register(lambda: print('LOADED', *sorted(sys.modules), file=sys.stderr))\n"
             "from moecfg.cli import main\nmain()\n")
    out = subprocess.run([sys.executable, "-c", probe, str(doc)], capture_output=True, text=True, cwd=ROOT)
    loaded = set(out.stderr.rpartition("LOADED")[2].split())
    assert out.returncode == 0 and "dispatch_combine_v2" in out.stdout
    assert sorted(m for m in loaded if m.startswith("moecfg.backends.ascend.ops.") and m.endswith(".fields")) == \
        ["moecfg.backends.ascend.ops.dispatch_combine_v2.fields"]
    assert sorted(loaded & set(NOT_ON_PLAIN_CHECK)) == []
    # the launch-word patterns (sources/framework_words.py, documents._launcher) are compiled on first use
    compiled = ("import sys\nsys.argv = ['moecfg', 'check', sys.argv[1]]\nimport atexit\n"
                "from moecfg.sources import framework_words as fw\nfrom moecfg.sources.documents import classify as documents\n"
                "atexit.register(lambda: print('COMPILED', *sorted(n for n in fw._PATTERNS if n in vars(fw)),"
                " documents._launcher.cache_info().currsize, file=sys.stderr))\nfrom moecfg.cli import main\nmain()\n")
    out = subprocess.run([sys.executable, "-c", compiled, str(doc)], capture_output=True, text=True, cwd=ROOT)
    assert out.stderr.rpartition("COMPILED")[2].split() == ["0"]


def test_help_imports_no_command_and_lists_every_command():
    loaded = _modules_after(["--help"])
    assert not [m for m in loaded if m.startswith("moecfg.cli.") and m not in ("moecfg.cli.runner", "moecfg.cli.group",
                                                                                "moecfg.cli.process", "moecfg.cli.plain",
                                                                                "moecfg.cli.commands")]
    help_text = subprocess.run([sys.executable, "-m", "moecfg", "--help"], capture_output=True, text=True,
                               cwd=ROOT).stdout
    for name, (_, _, short) in COMMANDS.items():
        assert f"  {name} " in help_text and short in help_text


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_static_short_help_is_the_commands_own(name):
    module, attr, short = COMMANDS[name]
    command = getattr(importlib.import_module(module), attr)
    assert command.get_short_help_str(limit=200) == short
    assert cli.get_command(None, name) is command


def test_unknown_command_is_a_usage_error():
    r = subprocess.run([sys.executable, "-m", "moecfg", "chek"], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 2 and "No such command 'chek'" in r.stderr


def test_command_line_exit_skips_teardown_but_keeps_output_exit_code_and_atexit(tmp_path):
    """runner._exit_now: the process's own command line ends with os._exit after flushing (start-up budget);
    the exit code, every byte of the report and the atexit handlers are kept."""
    code = ("import atexit, sys\natexit.register(lambda: print('ATEXIT RAN'))\nsys.argv[0] = 'moecfg'\n"
            "from moecfg.cli import main\nmain()\n")
    fixtures = ROOT / "tests" / "integration" / "fixtures"
    out = subprocess.run([sys.executable, "-c", code, "check", "--format", "json", str(fixtures)],
                         capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 1  # the fixtures have errors
    body, _, tail = out.stdout.rpartition("}\n")
    import json

    assert json.loads(body + "}")["summary"]["errors"] > 0 and tail == "ATEXIT RAN\n"


def _console(args, cwd, env=None):
    """As the console script runs: `main()` with the process's own command line."""
    code = "import sys\nsys.argv[0] = 'moecfg'\nfrom moecfg.cli import main\nmain()\n"
    run_env = {k: v for k, v in __import__("os").environ.items() if k != "GITHUB_ACTIONS"} | (env or {})
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, cwd=cwd, env=run_env)


def test_plain_check_runs_without_click_and_matches_the_click_path(tmp_path):
    fixtures = ROOT / "tests" / "integration" / "fixtures"
    probe = ("import sys\nsys.argv = ['moecfg', 'check', sys.argv[1]]\nimport atexit\n"
             "atexit.register(lambda: print('click' in sys.modules, file=sys.stderr))\n"
             "from moecfg.cli import main\nmain()\n")
    loaded = subprocess.run([sys.executable, "-c", probe, str(ROOT / "examples" / "deepseek-v3-a3-ep32.yaml")],
                            capture_output=True, text=True, cwd=ROOT)
    assert loaded.returncode == 0 and loaded.stderr.strip().endswith("False")
    for args, env in ((["check", str(fixtures)], None), (["check", str(ROOT / "examples")], None),
                      (["check", str(fixtures)], {"GITHUB_ACTIONS": "true"}),
                      (["check", str(tmp_path / "missing.yaml")], None)):
        plain = _console(args, ROOT, env)
        clicked = _console(args[:1] + ["--fail-on", "error"] + args[1:], ROOT, env)  # an option: click's path
        assert (plain.returncode, plain.stdout, plain.stderr) == (clicked.returncode, clicked.stdout, clicked.stderr)
    assert _console(["check", str(fixtures)], ROOT).returncode == 1
    missing = _console(["check", str(tmp_path / "missing.yaml")], ROOT)
    assert missing.returncode == 2 and "no such file" in missing.stderr


# A two-line launch script (issue 31: start-up <= 0.8x yamllint on one file) loads the shell reader, one framework
# and its flag table: no PyYAML (a script is no YAML), no dataclasses/inspect (records), no markdown-it or
# packaging (no Markdown, no version compared), no importlib.resources (tree-sitter-bash's grammar loaded alone).
NOT_ON_LAUNCH_CHECK = ("yaml", "dataclasses", "inspect", "markdown_it", "packaging", "shutil", "importlib.resources",
                       "click", "pydantic", "rich", "moecfg.sources.manifests.commands", "moecfg.frameworks.sglang",
                       "moecfg.frameworks.vllm.", "moecfg.frameworks.lmdeploy", "moecfg.frameworks.mindspeed")


def test_plain_check_of_a_launch_script_imports_only_what_the_launch_needs(tmp_path):
    script = tmp_path / "launch.sh"
    script.write_text("export HCCL_BUFFSIZE=1024\n"
                      "vllm serve /models/DeepSeek-V3 --tensor-parallel-size 8 --enable-expert-parallel\n")
    probe = ("import sys\nsys.argv = ['moecfg', 'check', sys.argv[1]]\nimport atexit\n"
             "atexit.register(lambda: print('LOADED', *sorted(sys.modules), file=sys.stderr))\n"
             "from moecfg.cli import main\nmain()\n")
    out = subprocess.run([sys.executable, "-c", probe, str(script)], capture_output=True, text=True, cwd=ROOT)
    loaded = set(out.stderr.rpartition("LOADED")[2].split())
    assert "MC042" in out.stdout and "moecfg.frameworks.vllm_ascend.cli" in loaded  # the launch was derived
    assert sorted(m for m in loaded if m.startswith(NOT_ON_LAUNCH_CHECK) or m in NOT_ON_LAUNCH_CHECK) == []


def test_a_markdown_file_loads_markdown_it_and_a_version_loads_packaging(tmp_path):
    doc = tmp_path / "guide.md"
    doc.write_text("# Serve\n\n```bash\nvllm serve /models/DeepSeek-V3 --tensor-parallel-size 8 --enable-expert-parallel\n"
                   "```\n")
    (tmp_path / ".moecfg.yaml").write_text("framework_versions:\n  vllm: v0.11.0.post1\n")
    probe = ("import sys\nsys.argv = ['moecfg', 'check', sys.argv[1]]\nimport atexit\n"
             "atexit.register(lambda: print('LOADED', *sorted(sys.modules), file=sys.stderr))\n"
             "from moecfg.cli import main\nmain()\n")
    out = subprocess.run([sys.executable, "-c", probe, str(doc)], capture_output=True, text=True, cwd=tmp_path)
    loaded = set(out.stderr.rpartition("LOADED")[2].split())
    assert "guide.md:4:1" in out.stdout and {"markdown_it", "packaging.version"} <= loaded
    assert "MC040" not in out.stdout  # the version was read (no "version not given")
