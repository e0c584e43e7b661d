"""Every command: name -> (module, attribute, short help), read by the group and by `--help` without importing
any command module."""

# name -> (module, attribute, short help). The short help is each command's own `short_help` (a test checks
# that they agree), kept here so that `moecfg --help` imports no command module.
COMMANDS = {
    "buffer": ("moecfg.cli.buffer", "buffer", "Required buffer sizes, with the formula and its terms."),
    "check": ("moecfg.cli.check", "check", "Lint deployment files, directories and stdin."),
    "docs": ("moecfg.cli.bundled", "docs_page", "Print a documentation page shipped with moecfg."),
    "examples": ("moecfg.cli.bundled", "examples", "List the bundled examples, or copy them to try check on."),
    "explain": ("moecfg.cli.docs", "explain", "What a rule checks, why it matters, and the fix."),
    "explain-error": ("moecfg.cli.explain_error", "explain_error", "Explain a failed launch's error log."),
    "explain-launch": ("moecfg.cli.launch", "explain_launch", "Show the op calls each launch makes."),
    "preflight": ("moecfg.cli.preflight", "preflight", "Check a launch on this machine, then run it."),
    "plan": ("moecfg.cli.plan", "plan", "Solve what to set over EP sizes / rank counts."),
    "rules": ("moecfg.cli.docs", "rules", "List every rule, or a rule set's limits."),
    "schema": ("moecfg.cli.docs", "schema", "Print the JSON Schema of deployment files."),
    "sweep": ("moecfg.cli.plan", "sweep", "Required buffer vs tokens per rank or EP size."),
}
