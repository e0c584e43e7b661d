"""What every launch reader produces: the command words and the environment as written, each with its
position in the file (the source map collapsed to a Span per word), and the reader's problems.

Readers (shell scripts, Kubernetes manifests, compose files, YAML holding a command string) turn a file into
`LaunchFile`s; frameworks/ recognise the command and derive op calls from the words and env. A value the
reader cannot know (an unset `$VAR`, a `valueFrom`, a template) is `None`, never guessed.
"""
from __future__ import annotations

from moecfg.core.record import field, record
from moecfg.sources.textmap import Span


@record(frozen=True, slots=True)
class Word:
    """One command word after quote removal and variable expansion."""

    value: str | None  # None: not knowable statically (unset variable, command substitution, template)
    span: Span  # exact where the text is literal, else the whole enclosing scalar or word
    exact: bool = True
    pattern: str | None = None  # value None: the word with its unknown parts as `${...}` (`${ROOT}/pretrain_gpt.py`)


@record(frozen=True, slots=True)
class EnvEntry:
    """An environment variable in effect for the command (export, A=B prefix, env:, environment:)."""

    name: str
    value: str | None
    span: Span


class OpenEnv(dict):
    """A launch's environment when a file that may set any variable was not read (a compose `env_file:`
    outside the tree or missing, a Kubernetes `envFrom:`): a name it does not hold is set, its value unknown
    (`why` says which file), never the framework's default. `prefix`: only names starting with it (envFrom)."""

    def __init__(self, items, span: Span, why: str, prefix: str = ""):
        super().__init__(items)
        self.span, self.why, self.prefix = span, why, prefix

    def _open(self, name) -> bool:
        return isinstance(name, str) and name.startswith(self.prefix)

    def __missing__(self, name):
        if self._open(name):
            return EnvEntry(name, None, self.span)
        raise KeyError(name)

    def __contains__(self, name) -> bool:
        return dict.__contains__(self, name) or self._open(name)

    def get(self, name, default=None):
        return self[name] if name in self else default

    def copy(self) -> OpenEnv:
        return OpenEnv(self, self.span, self.why, self.prefix)


@record(frozen=True, slots=True)
class Problem:
    """A reader finding: `code` is a registered rule code (core/launch_rules.py)."""

    code: str
    message: str
    span: Span
    about_launch: bool = False  # an info worth saying only beside a recognised launch (a valueFrom, a template value)
    # with about_launch: (first, last) line of the YAML document it is about, when the file holds several read as
    # one (a script's heredoc manifests, shell/heredoc_manifest.py): said only beside a launch recognised there
    within: tuple | None = None


@record(frozen=True, slots=True)
class Unread:
    """A launch seen but not read (issue 30, /work/notes/COVERAGE.md): a reader that cannot read it
    (`LaunchFile.unread`) or a framework that recognises it but does not derive the engine in it
    (`Derivation.unread`) says so here; the run lists it (`unread` in the report), never as a finding."""

    span: Span
    launcher: str  # as users know it: "LightLLM", "verl", "ms-swift megatron"
    reason: str  # "engine not supported: LightLLM", "command held in a variable", ...


@record(slots=True)
class Launch:
    """One command that may start a framework (`vllm serve ...`, `python -m sglang.launch_server ...`)."""

    argv: tuple[Word, ...]
    env: dict[str, EnvEntry] = field(default_factory=dict)
    context: str = "shell"  # shell | k8s | compose | yaml
    image: str | None = None  # container image (version hints: ...:v0.13.0)
    container: str | None = None  # container / service / entry name (role hints: prefill, decode)
    hints: tuple[tuple[str, Span], ...] = ()  # product hints seen nearby: k8s resource names, SoC names
    # files the script sourced before the command (`source /usr/local/Ascend/ascend-toolkit/set_env.sh`), read
    # or not: the path as written (expanded where known) and the `source` line
    sourced: tuple[tuple[str, Span], ...] = ()
    # the same command read with one branch of an earlier `if` / `case` taken, where that branch sets the variables
    # it uses (shell/branches.py): (the branch, e.g. `case "$MODEL_SIZE" in 35B-A3B) (line 64)`, that launch)
    alternatives: tuple = ()

    @property
    def span(self) -> Span:
        return self.argv[0].span if self.argv else Span(1, 1, 1, 1)

    def words(self) -> list[str | None]:
        return [w.value for w in self.argv]


@record(slots=True)
class LaunchFile:
    """A file's launches and problems; `skipped` says why a file holds nothing for moecfg (--verbose)."""

    launches: list[Launch] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    skipped: str | None = None
    unread: list[Unread] = field(default_factory=list)  # launches seen but not read (issue 30)
    # (first line, last line, command) of each heredoc fed to a command as data (coverage names the reason)
    data_regions: list[tuple[int, int, str]] = field(default_factory=list)
