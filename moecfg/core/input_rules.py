"""Input rules (MC0xx): the file itself and the structure of each document.

These fire before any hardware rule: a file that is not YAML, a duplicated or unknown key, a value of
the wrong type, a missing required key. Integers are strict: `8.0`, `"8"` and `yes` are not integers
(YAML 1.1 reads `yes`/`no`/`on`/`off` as booleans). A duplicated key is an error even though PyYAML
would silently keep the last value; the hardware rules still run on that last value (what the job would
load). When a value cannot be read (wrong type, missing key, out of range), hardware rules are skipped
for the document (their verdict would rest on a value we could not read) and `buffers` is `{}`.
"""
from moecfg.core.diagnostics import ERROR, INFO, WARNING
from moecfg.core.registry import rule

_F = "input"
YAML_SYNTAX = rule("MC001", "yaml-syntax", ERROR, "The file is not valid YAML (reported at the parser's position)", family=_F)
DUPLICATE_KEY = rule("MC002", "duplicate-key", ERROR, "A key appears twice in one mapping", family=_F)
UNKNOWN_KEY = rule("MC003", "unknown-key", ERROR, "A key that the schema does not know (with a did-you-mean hint)", family=_F)
WRONG_TYPE = rule("MC004", "wrong-type", ERROR, "A value of the wrong type (strict: 8.0, \"8\" and yes are not integers)", family=_F)
MISSING_KEY = rule("MC005", "missing-key", ERROR, "A required key is absent", family=_F)
INVALID_VALUE = rule("MC006", "invalid-value", ERROR, "A value outside the allowed set (product, kind, op, enums)", family=_F)
EMPTY = rule("MC007", "empty-file", WARNING, "The file holds no YAML document", family=_F)
NOT_TEXT = rule("MC008", "not-yaml-text", ERROR, "The file is binary, not UTF-8/UTF-16 text, or not read (not a regular file, a link leaving the folder, no permission)", family=_F)
TOO_LARGE = rule("MC009", "integer-out-of-range", ERROR, "An integer that does not fit a 64-bit attribute", family=_F)
NOT_MAPPING = rule("MC010", "document-not-mapping", ERROR, "A document that is not a mapping of keys", family=_F)
VERSION_UNPINNED = rule("MC011", "cann-version-unpinned", INFO, "No cann_version: the `latest` rule set applies; pin the release you deploy", family=_F)
VERSION_UNKNOWN = rule("MC012", "cann-version-unknown", WARNING, "A CANN version outside the known rule sets (mapped to the nearest one)", family=_F)
ENV_UNKNOWN = rule("MC013", "unknown-env-var", WARNING, "An `env` entry moecfg does not use; a near-miss of a known variable is likely a typo", family=_F)

VALIDATOR_CODES = dict(wrong_type=WRONG_TYPE.code, missing=MISSING_KEY.code, unknown=UNKNOWN_KEY.code,
                       invalid=INVALID_VALUE.code, too_large=TOO_LARGE.code)
