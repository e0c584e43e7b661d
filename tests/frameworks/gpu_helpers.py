"""Shared helpers of the GPU framework tests: read a shell script or a YAML file with the real readers, derive
with the framework that recognises it, and lint the result as `moecfg check` does."""
from __future__ import annotations

from pathlib import Path

from moecfg import frameworks
from moecfg.backends import Options
from moecfg.checking.launch import lint_launch_file
from moecfg.frameworks import LaunchContext
from moecfg.sources.readers import read_shell, read_yaml_document
from moecfg.sources.manifests.yaml_source import parse_stream

FIXTURES = Path(__file__).resolve().parents[1] / "sources" / "fixtures"
MiB, GiB = 1 << 20, 1 << 30
H200 = LaunchContext(product="H200", product_source="--product")
NONE = LaunchContext()


def launch_file(text: str, yaml: bool = False):
    if not yaml:
        return read_shell(text)
    files = [read_yaml_document(d, text) for d in parse_stream(text) if d.data]
    return next(lf for lf in files if lf is not None and lf.launches)


def derive(text: str, ctx=NONE, yaml: bool = False):
    lf = launch_file(text, yaml)
    (launch,) = [x for x in lf.launches if frameworks.recognise(x, ctx)]
    return frameworks.recognise(launch, ctx).derive(launch, ctx)


def lint(text: str, ctx=NONE, yaml: bool = False):
    return lint_launch_file(launch_file(text, yaml), "t", ctx, Options())


def codes(results) -> list[str]:
    return sorted(d.code for r in results for d in r.diagnostics)


def finding(results, code):
    (d,) = [d for r in results for d in r.diagnostics if d.code == code]
    return d


def note_codes(derivation) -> list[str]:
    return sorted(n.code for n in derivation.notes)
