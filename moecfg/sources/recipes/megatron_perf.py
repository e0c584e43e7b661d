"""Megatron-LM's inference performance tests: a `model_config.yaml` of sizes, and the CI recipe that runs them.

    MODEL: hybrid_nanov3_3b          # tests/performance_tests/test_cases/<model>/<case>/model_config.yaml
    TP: 1
    EP: 8
    BATCH_SIZES: [1, 8, 32, 128]

The harness (NVIDIA/Megatron-LM@d98e8a6 tests/performance_tests/shell_test_utils/run_perf_test.sh) reads it with yq
and starts one server: world = TP x PP x max(DP, EP) (:77-103), the model's flags from
`tests/performance_tests/server/model_args/<MODEL>.args` (:107-129: comment and blank lines skipped, each line
`eval echo`-ed and split on blanks), then `--tensor-model-parallel-size TP --pipeline-model-parallel-size PP
--expert-model-parallel-size EP` (:135-139), launched as `python -m torch.distributed.run --nproc-per-node WORLD
-m tools.run_dynamic_text_generation_server <SERVER_COMMON_ARGS> <MODEL_ARGS>` (:192-229). A word of the args file
that holds a variable (`${CHECKPOINT_LOAD_PATH}`) stays unknown. The args file is read as sourced files are
(shell/sourced.py): inside the checked folder only, a regular UTF-8 file of at most sourced.MAX_BYTES.

A CI recipe (tests/test_utils/recipes/<gpu>/*.yaml) whose `spec.script` runs run_perf_test.sh with
`CONFIG_PATH=tests/performance_tests/test_cases/<model>/{test_case}/model_config.yaml` is read as one such launch
per `products[].test_case`, each pointing at the recipe's test_case value.
"""
from __future__ import annotations

import os
import re

from moecfg.sources.launch import Launch, LaunchFile, Word
from moecfg.sources.manifests.yaml_source import Span, YamlDocument
from moecfg.sources.recipes.vllm_strategies import _inside, check_root
from moecfg.sources.shell import sourced

_SIZES = ("TP", "PP", "DP", "EP")
_ARGS_DIR = ("server", "model_args")  # $PERF_DIR/server/model_args/${MODEL}.args, PERF_DIR = tests/performance_tests
_MAX_UP = 4
_HARNESS = "run_perf_test.sh"
_CONFIG = re.compile(r"CONFIG_PATH=(tests/performance_tests/test_cases/[\w./-]*\{test_case\}[\w./-]*model_config\.yaml)")
_VAR = re.compile(r"\$\{?\w")
_GIVEN = re.compile(r'"([A-Z_][A-Z0-9_]*)=([^"{}$\s]*)"')  # run_perf_test.sh:26-34 exports each KEY=VALUE argument
_MAX_CASES = 32


def is_perf_config(data) -> bool:
    return isinstance(data, dict) and isinstance(data.get("MODEL"), str) and "BATCH_SIZES" in data \
        and any(k in data for k in _SIZES)


def read_perf_config(doc: YamlDocument, name: str = "", root: str | None = None) -> LaunchFile | None:
    if not is_perf_config(doc.data):
        return None
    top = check_root(name, root)
    words = _launch_words(doc.data, lambda key: _span(doc, key), os.path.dirname(os.path.realpath(name)), top) \
        if top else None
    if words is None:
        return LaunchFile(skipped=f"Megatron-LM perf-test config: {_args_name(doc.data)} not found inside the "
                                  "checked folder (tests/performance_tests/server/model_args/)")
    return LaunchFile(launches=[Launch(tuple(words), {}, "yaml")])


def read_perf_recipe(doc: YamlDocument, name: str = "", root: str | None = None) -> LaunchFile | None:
    """A CI recipe running run_perf_test.sh: one launch per test case whose model_config.yaml is in the tree."""
    spec = doc.data.get("spec") if isinstance(doc.data, dict) else None
    script = spec.get("script") if isinstance(spec, dict) else None
    found = _CONFIG.search(script) if isinstance(script, str) and _HARNESS in script else None
    top = check_root(name, root) if found else None
    if top is None:
        return None
    given = dict(_GIVEN.findall(script))  # "CHECKPOINT_LOAD_PATH=/mnt/artifacts/": the harness exports each KEY=VALUE
    out = LaunchFile()
    for case, span in _cases(doc)[:_MAX_CASES]:
        config = os.path.realpath(os.path.join(top, found.group(1).replace("{test_case}", case)))
        data = _load_yaml(config, top)
        if not is_perf_config(data):
            continue
        words = _launch_words(data, lambda key, s=span: s, os.path.dirname(config), top, given)
        if words is not None:
            out.launches.append(Launch(tuple(words), {}, "yaml"))
    if not out.launches:
        out.skipped = "Megatron-LM perf-test recipe: no test case's model_config.yaml and args file found in the tree"
    return out


def _cases(doc: YamlDocument) -> list[tuple[str, Span]]:
    out = []
    products = doc.data.get("products")
    for i, product in enumerate(products if isinstance(products, list) else []):
        cases = product.get("test_case") if isinstance(product, dict) else None
        for j, case in enumerate(cases if isinstance(cases, list) else []):
            if isinstance(case, str) and re.fullmatch(r"[\w.-]+", case):
                span = doc.values.get(("products", i, "test_case", j)) or doc.keys.get(("products", i, "test_case")) \
                    or Span(1, 1, 1, 1)
                out.append((case, span))
    return out


def _load_yaml(path: str, top: str):
    text = _read_text(path, top)
    if text is None:
        return None
    import yaml

    try:
        return yaml.safe_load(text)
    except yaml.YAMLError:
        return None


def _read_text(path: str, top: str) -> str | None:
    real = os.path.realpath(path)
    if not _inside(real, top) or not os.path.isfile(real):
        return None
    try:
        if os.path.getsize(real) > sourced.MAX_BYTES:
            return None
        with open(real, encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError):
        return None


def _args_name(data) -> str:
    return f"{data['MODEL']}.args"


def _args_words(data, folder: str, top: str) -> list[str] | None:
    """The args file's words: found by walking up from the config's folder to the one holding server/model_args/."""
    if not re.fullmatch(r"[\w.-]+", data["MODEL"]):
        return None
    for _ in range(_MAX_UP + 1):
        if not _inside(folder, top):
            return None
        text = _read_text(os.path.join(folder, *_ARGS_DIR, _args_name(data)), top)
        if text is not None:
            return [w for line in text.splitlines() if line.strip() and not line.strip().startswith("#")
                    for w in line.split()]
        if folder == top:
            return None
        folder = os.path.dirname(folder)
    return None


def _size(data, key: str) -> int | None:
    value = data.get(key, 1)  # `yq '.TP // 1'`: 1 when absent
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 1 else None


def _expand(word: str, given: dict) -> str:
    """`${NAME}` / `$NAME` of the variables the recipe passes (the args file's lines are `eval echo`-ed)."""
    return re.sub(r"\$\{(\w+)\}|\$(\w+)", lambda m: given.get(m.group(1) or m.group(2), m.group(0)), word)


def _launch_words(data, span_of, folder: str, top: str, given: dict | None = None) -> list[Word] | None:
    args = _args_words(data, folder, top)
    if args is not None and given:
        args = [_expand(w, given) for w in args]
    if args is None:
        return None
    at = span_of("MODEL")
    sizes = {k: _size(data, k) for k in _SIZES}
    if None in sizes.values():
        world = Word(None, at, pattern="$((TP * PP * max(DP, EP)))")
    else:
        world = Word(str(sizes["TP"] * sizes["PP"] * max(sizes["DP"], sizes["EP"])), at)
    words = [Word("python", at), Word("-m", at), Word("torch.distributed.run", at), Word("--nproc-per-node", at),
             world, Word("-m", at), Word("tools.run_dynamic_text_generation_server", at), Word("--micro-batch-size", at),
             Word("1", at)]
    words += [Word(None, at, pattern=w) if _VAR.search(w) else Word(w, at) for w in args]
    for flag, key in (("--tensor-model-parallel-size", "TP"), ("--pipeline-model-parallel-size", "PP"),
                      ("--expert-model-parallel-size", "EP")):
        value = data.get(key, 1)
        words += [Word(flag, span_of(key) if key in data else at), Word(str(value), span_of(key) if key in data else at)]
    return words


def _span(doc: YamlDocument, key: str) -> Span:
    return doc.values.get((key,)) or doc.keys.get((key,)) or Span(1, 1, 1, 1)
