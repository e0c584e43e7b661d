"""The launch readers' entry points (the engine calls these): file text -> LaunchFile.

- `looks_like_shell(name, text)`: a `*.sh` / `*.bash` file or one with a shell shebang.
- `read_shell(text, include)`: a whole script (tree-sitter-bash, imported only here); `include` reads the files
  it sources (sourced.Includes.for_script(path)).
- `read_yaml_document(doc, text, name, root)`: one YAML document: a Kubernetes object with a pod template, a
  docker-compose file, a recipe spelling flags as keys (recipes/srt_slurm.py), a vllm-project/recipes model recipe composed
  with its strategies (recipes/vllm.py), or a YAML config holding a launch command;
  None when it is none of these.
- `template_problem(text)`: MC024 for a file that does not parse as YAML because it is a template.
- `looks_like_markdown(name)` / `read_markdown(text, name)`: the shell and YAML code blocks of a Markdown or rST
  document (documents/markdown.py).
- `read_toml(text)`: a prime-rl TOML config (recipes/prime_rl.py; sniffed before tomllib parses it), None when the
  text is no prime-rl config.
"""
from __future__ import annotations

import re

from moecfg.core import launch_rules as L

TYPE_CHECKING = False  # typing's, without importing typing at start-up
if TYPE_CHECKING:  # launch.py's dataclasses load when a launch is read, not for every file's is-it-shell test
    from moecfg.sources.launch import LaunchFile, Problem
    from moecfg.sources.manifests.yaml_source import YamlDocument

_SHEBANG = re.compile(r"#![ \t]*(?:/usr)?(?:/local)?/bin/(?:env[ \t]+(?:-\S+[ \t]+)*)?(?:ba|da|z|k|a)?sh\b")
_TEMPLATE = re.compile(r"\{\{-?\s{0,16}[^{}\n]{0,256}\}\}|\{%[^%\n]{0,256}%\}")  # bounded spans: linear


def looks_like_shell(name: str, text: str) -> bool:
    if name.endswith((".sh", ".bash")):
        return True
    return bool(_SHEBANG.match(text.lstrip("\ufeff")[:200]))


def looks_like_markdown(name: str) -> bool:
    return name.lower().endswith((".md", ".mdx", ".markdown", ".rst"))


def read_markdown(text: str, name: str = "") -> LaunchFile:
    from moecfg.sources.budget import Budget
    from moecfg.sources.documents.markdown import read_markdown as read
    out = read(text, name)
    out.problems.extend(Budget.current().problems())  # a spent reading budget: said once per file
    return out


def read_toml(text: str) -> LaunchFile | None:
    from moecfg.sources.recipes.prime_rl import read_toml as read

    return read(text)


def read_shell(text: str, include=None, environment: dict | None = None) -> LaunchFile:
    """`include`: sourced.Includes for a script read from a file (`source FILE` next to it is read).
    `environment`: variables exported before the script starts (preflight: the process environment), given as
    values rather than as `export` lines, so they spend none of the file's reading budget."""
    from moecfg.sources.shell import reader as shell
    from moecfg.sources.launch import LaunchFile
    from moecfg.sources.shell.values import Var
    from moecfg.sources.textmap import SourceMap
    from moecfg.sources.manifests.launch import line_index
    from moecfg.sources.manifests.yaml_source import Span
    out = LaunchFile()
    from moecfg.sources.manifests import heredoc
    reader = shell.ShellReader(line_index(text), out.problems, "shell", include=include)
    reader.manifests = heredoc.read  # `kubectl apply -f - <<EOF`: the body read as the YAML it is
    reader.forks = []
    start = Span(1, 1, 1, 1)
    env = {str(k): Var(str(v), start, exported=True) for k, v in (environment or {}).items()}
    variables = reader.read(shell.Decoded(text, SourceMap.identity(len(text))), env)
    out.launches = reader.launches
    from moecfg.sources.shell.argument_files import argument_launch  # a file of arguments for a sourcing launch
    held = argument_launch(variables, out.launches, reader.span)
    if held is not None:
        out.launches = [*out.launches, held]
    if reader.forks and out.launches and not reader.budget.spent:
        _branch_alternatives(text, include, env, reader)
    out.data_regions = reader.data_heredocs
    out.unread.extend(reader.unread)
    if reader.placeholders and out.launches:
        out.problems.append(shell.shell_repair.placeholder_note(reader.placeholders))
    out.problems.extend(reader.budget.problems())
    if not out.launches and not out.problems:
        out.skipped = "shell script without commands"
    return out


def _branch_alternatives(text: str, include, env: dict, reader) -> None:
    """A launch after an `if` / `case` that sets its variables per branch: the same launch read with each branch
    taken (shell/branches.py), in `Launch.alternatives`; each re-read has its own reading budget."""
    from moecfg.sources.budget import per_file
    from moecfg.sources.manifests.launch import line_index
    from moecfg.sources.shell import branches, reader as shell
    from moecfg.sources.textmap import SourceMap

    def read_with(chosen: dict):
        with per_file():
            again = shell.ShellReader(line_index(text), [], "shell", include=include)
            again.manifests = reader.manifests
            again.forced = chosen
            again.read(shell.Decoded(text, SourceMap.identity(len(text))), dict(env))
            return None if again.budget.spent else again.launches

    branches.pending(reader.launches, read_with, reader.forks)


def read_yaml_document(doc: YamlDocument, text: str, name: str = "", root: str | None = None,
                       docs: bool = False) -> LaunchFile | None:
    """`name`, `root`: the file and the folder being checked (a vLLM recipe reads the strategies/ beside it);
    `docs`: documentation inside the document is read (a vLLM recipe's Markdown guide)."""
    from moecfg.sources.manifests.documents import read_yaml_document as read  # documents/markdown.py reads its YAML blocks there too

    lf = read(doc, text, name, root, docs)
    if lf is not None and docs:
        _recipe_guide(doc, text, lf)
    if lf is not None:
        from moecfg.sources.budget import Budget
        lf.problems.extend(Budget.current().problems())  # a spent reading budget: said once per file
    return lf


def _recipe_guide(doc: YamlDocument, text: str, lf: LaunchFile) -> None:
    """A vLLM recipe's `guide: |` Markdown, read as a Markdown file's code blocks at the recipe's own lines."""
    from moecfg.sources.recipes.vllm import guide_text

    masked = guide_text(doc, text)
    if masked is not None:
        found = read_markdown(masked)
        lf.launches.extend(found.launches)
        lf.problems.extend(found.problems)


def template_problem(text: str) -> Problem | None:
    """A Helm/Jinja template (`{{ ... }}`, `{% ... %}`): MC024 at the first template expression."""
    m = _TEMPLATE.search(text)
    if m is None:
        return None
    from moecfg.sources.launch import Problem
    from moecfg.sources.manifests.launch import line_index
    return Problem(L.TEMPLATE.code, f"template expression `{m.group()[:60]}`: this file is a template (Helm, "
                   "Jinja), not what runs; check the rendered output (`helm template ... | moecfg check -`)",
                   line_index(text).span(m.start(), m.end()))
