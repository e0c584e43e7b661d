"""The shape four trainers share (AReaL, MindSpeed-RL, MindSpeed-MM, ROLL): their settings live in a config file,
which a reader in sources/recipes/ turns into one launch `<command> key=value ...` (context "yaml"); the shell
launch of the entry script only names that config, which is checked as its own file. Cheap: imported by the
trainers' recognise(), before anything is derived."""
from __future__ import annotations

import os

from moecfg.sources.launch import Launch


def is_config(launch: Launch, command: str) -> bool:
    """The launch a config reader made from the trainer's config file."""
    return bool(launch.argv) and launch.argv[0].value == command and launch.context == "yaml"


def entry_script(launch: Launch, entry, first_words: int | None = 3, after_python: bool = True) -> int | None:
    """Index of the word running the trainer's entry script (`python3 examples/start_x_pipeline.py`): among the
    first `first_words` words (None: any), after a `python*` word when `after_python`."""
    words = launch.words()
    scope = words if first_words is None else words[:first_words]
    return next((i for i, w in enumerate(scope) if i > 0 and w and entry.search(w) and
                 (not after_python or os.path.basename(words[i - 1] or "").startswith("python"))), None)


def named_config(launch: Launch, flag: str | None, after: int | None = None) -> str | None:
    """The config a shell launch names: the word after `flag`, or after the entry script's word (`after`)."""
    words = launch.words()
    i = words.index(flag) + 1 if flag and flag in words else (after + 1 if after is not None else None)
    return words[i] if i is not None and i < len(words) else None


def only_named(out, launch: Launch, named: str | None, where: str) -> None:
    """The shell launch derives nothing itself: its config is checked as its own file (said in the coverage list)."""
    from moecfg.trainers import phases

    phases.not_derived(out, launch, f"the settings are in the config {named or '(not known statically)'}{where}: "
                       "checked as its own file")
