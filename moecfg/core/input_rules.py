"""Input rules (MC0xx): the file itself and the structure of each document.

These fire before any hardware rule: a file that is not YAML, a duplicated or unknown key, a value of
the wrong type, a missing required key. Integers are strict: `8.0`, `"8"` and `yes` are not integers
(YAML 1.1 reads `yes`/`no`/`on`/`off` as booleans). A duplicated key is an error even though PyYAML
would silently keep the last value; the hardware rules still run on that last value (what the job would
load). When a value cannot be read (wrong type, missing key, out of range), hardware rules are skipped
for the document (their verdict would rest on a value we could not read) and `buffers` is `{}`.
"""
from moecfg.core.diagnostics import ERROR, INFO, WARNING
from moecfg.core.registry import lazy_module, rule

# The example documents of the rules' docs (`docs=lambda: ...`); imported only when docs are rendered.
eg = lazy_module("moecfg.backends.ascend.shared.rules.examples_base")
_F = "input"
INPUT = "moecfg cannot read the value, so every hardware rule that depends on it is skipped for this document."
YAML_SYNTAX = rule("MC001", "yaml-syntax", ERROR, "The file is not valid YAML (reported at the parser's position)", family=_F,
                   docs=lambda: dict(
                       why="Neither moecfg nor the launcher can load the file. Only a file that may be a deployment "
                           "gets it: one whose top-level keys name a moecfg kind or are mostly moecfg fields, or that "
                           "holds a launch; any other broken YAML (a third-party list, a foreign config) is skipped "
                           "with the parser's reason (`--verbose`, the report's `skipped`).",
                       fail_example=eg.ex(eg.A3).replace("bs: 128", "bs: [128"), pass_example=eg.ex(eg.A3),
                       fix="Fix the YAML at the reported position (unclosed bracket or quote, bad indentation)."))
DUPLICATE_KEY = rule("MC002", "duplicate-key", ERROR, "A key appears twice in one mapping", family=_F,
                     docs=lambda: dict(
                         why="PyYAML (and so most launchers) silently keeps the last value, which may not be the one you "
                             "reviewed.", fail_example=eg.ex(eg.A3) + "bs: 64\n", pass_example=eg.ex(eg.A3),
                         fix="Delete one of the two keys."))
UNKNOWN_KEY = rule("MC003", "unknown-key", ERROR, "A key that the schema does not know (with a did-you-mean hint)", family=_F,
                   docs=lambda: dict(
                       why="A misspelt key is ignored by the launcher and the default is used instead.",
                       fail_example=eg.ex(eg.A3, moe_expert_nums=256), pass_example=eg.ex(eg.A3),
                       fix="Use the key the did-you-mean hint names, or delete it."))
WRONG_TYPE = rule("MC004", "wrong-type", ERROR, "A value of the wrong type (strict: 8.0, \"8\" and yes are not integers)", family=_F,
                  docs=lambda: dict(
                      why="torch_npu takes integers; a quoted \"128\" or 8.0 is a type error at the call or a silent "
                          "conversion. " + INPUT, fail_example=eg.ex(eg.A3, bs='"128"'), pass_example=eg.ex(eg.A3),
                      fix="Write the value unquoted and without a decimal point."))
MISSING_KEY = rule("MC005", "missing-key", ERROR, "A required key is absent", family=_F,
                   docs=lambda: dict(
                       why="The op cannot be called without it. " + INPUT, fail_example=eg.ex(eg.A3, h=None),
                       pass_example=eg.ex(eg.A3), fix="Add the key with the value your model uses."))
INVALID_VALUE = rule("MC006", "invalid-value", ERROR, "A value outside the allowed set (product, kind, op, enums)", family=_F,
                     docs=lambda: dict(
                         why="The value is not one moecfg (or CANN) knows; the rules of the product or op cannot be chosen.",
                         fail_example=eg.ex(eg.A3, product="A4"), pass_example=eg.ex(eg.A3),
                         fix="Use one of the listed values."))
EMPTY = rule("MC007", "empty-file", WARNING, "The file holds no YAML document", family=_F,
             docs=lambda: dict(
                 why="An empty deployment file usually means a templating step produced nothing.",
                 fail_example="# deployment for the A3 cluster (to be filled in)\n", pass_example=eg.ex(eg.A3),
                 fix="Fill in the document, or stop passing the file to moecfg."))
NOT_TEXT = rule("MC008", "not-yaml-text", ERROR, "The file is binary, not UTF-8/UTF-16 text, or not read (not a regular file, a link leaving the folder, no permission)", family=_F,
                docs=lambda: dict(
                    why="The file is not text: a wrong path or a binary artefact.", fix="Pass the YAML file itself.",
                    fail_text="A file with a NUL byte, or with bytes that are not valid UTF-8 (UTF-16 is read only after a "
                              "byte-order mark): for example a weights file or a gzip archive matched by a glob (`moecfg check "
                              "deploy/*`). No YAML text can show it: any example written here would be text.",
                    pass_example=eg.ex(eg.A3)))
TOO_LARGE = rule("MC009", "integer-out-of-range", ERROR, "An integer that does not fit a 64-bit attribute", family=_F,
                 docs=lambda: dict(
                     why="CANN attributes are 64-bit integers; a larger value cannot be passed at all.",
                     fail_example=eg.ex(eg.A3, bs=99999999999999999999), pass_example=eg.ex(eg.A3),
                     fix="Use the intended value."))
NOT_MAPPING = rule("MC010", "document-not-mapping", ERROR, "A document that is not a mapping of keys", family=_F,
                   docs=lambda: dict(
                       why="A deployment document is a mapping of keys; a list or scalar cannot describe one setup.",
                       fail_example="- product: A3\n- bs: 128\n", pass_example=eg.ex(eg.A3),
                       fix="Remove the leading `- ` of each line."))
VERSION_UNPINNED = rule("MC011", "cann-version-unpinned", INFO, "No cann_version: the `latest` rule set applies; pin the release you deploy", family=_F,
                        docs=lambda: dict(
                            why="Rules differ between CANN releases; without a pinned release moecfg checks the newest rules, "
                                "which may accept what your release rejects.",
                            fail_example=eg.ex(eg.A3, cann_version=None), pass_example=eg.ex(eg.A3),
                            fix="Add `cann_version:` with the release you deploy (or set it once in .moecfg.yaml)."))
VERSION_UNKNOWN = rule("MC012", "cann-version-unknown", WARNING, "A CANN version outside the known rule sets (mapped to the nearest one)", family=_F,
                       docs=lambda: dict(
                           why="The nearest rule set is used and may differ from your release.",
                           fail_example=eg.ex(eg.A3, cann_version="7.0.0"), pass_example=eg.ex(eg.A3),
                           fix="Write a release moecfg knows (8.5, 9.0, 9.1 or latest)."))
ENV_UNKNOWN = rule("MC013", "unknown-env-var", WARNING, "An `env` entry moecfg does not use; a near-miss of a known variable is likely a typo", family=_F,
                   docs=lambda: dict(
                       why="A misspelt environment variable is not set at all; HCCL then uses its default.",
                       fail_example=eg.ex(eg.A3, env={"HCCL_BUFFSIZE": 1024, "HCCL_INTRA_PCIE_ENABEL": 1}),
                       pass_example=eg.ex(eg.A3), fix="Correct the name, or delete the entry."))

INTERNAL_ERROR = rule("MC019", "internal-error", ERROR, "moecfg itself failed while checking this file (a bug): the file is not checked, the other files are", family=_F,
                      docs=lambda: dict(
                          why="One file must not stop the run: a crafted or unusual file that trips a bug in moecfg would "
                              "otherwise hide every other finding of the pull request. The file is reported as not "
                              "checked (an error, so CI does not pass silently); the exit code stays 1, not 3.",
                          fail_text="No example can show it: every known input is checked. The message names the "
                                    "exception and moecfg's code line; report it with the file.",
                          pass_example=eg.ex(eg.A3),
                          fix="Report the file to moecfg; meanwhile `--ignore MC019` (or `ignore: [MC019]` in the "
                              "settings) lets the rest of the run decide the exit code."))

SETTINGS_INVALID = rule("MC016", "settings-file-invalid", ERROR, "A settings file found in the checked tree (.moecfg.yaml, [tool.moecfg]) cannot be used: the files below it are checked with the defaults", family=_F,
                        docs=lambda: dict(
                            why="A settings file is found next to the files it governs, so a pull request can add one. "
                                "An invalid one used to end the run (exit 2) with no report at all; now it is a finding "
                                "on that file, every other file is checked, and the files below it get the defaults "
                                "(stricter: nothing ignored, fail on errors). A `--config` file is the run's own: an "
                                "invalid one is still exit 2.",
                            fail_text="A `.moecfg.yaml` holding `fail-on: sometimes`, or text that is not YAML.",
                            pass_example=eg.ex(eg.A3),
                            fix="Correct the settings file (`moecfg check --show-config PATH` shows what applies), "
                                "or delete it."))

VALIDATOR_CODES = dict(wrong_type=WRONG_TYPE.code, missing=MISSING_KEY.code, unknown=UNKNOWN_KEY.code,
                       invalid=INVALID_VALUE.code, too_large=TOO_LARGE.code)
