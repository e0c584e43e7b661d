"""The values shell reading passes around (a variable, a built word), in their own module: words.py and
arrays.py both use them, and shell_words calls into shell_arrays, so neither may import the other's types."""
from __future__ import annotations

from moecfg.core.record import record
from moecfg.sources.launch import Word
from moecfg.sources.textmap import SourceMap

_UNKNOWN = "${__moecfg_unknown__}"  # stands for an unknown piece inside a `bash -c` script


@record(frozen=True, slots=True)
class Var:
    value: str | None  # None: unknown
    span: object  # Span of the assignment (or env entry)
    exported: bool = False
    is_set: bool = True
    items: tuple | None = None  # a bash array's elements (Built words, arrays.py); None: not an array
    partial: Built | None = None  # an unknown value known in parts (`"cd $DIR; run"`): its text and map
    # a known script held in a variable (a multi-line `CMD='...'`, a `read -d ''` heredoc): where each character was
    # written, so the launch `bash -c "$CMD"` runs is placed inside the script, not at `$CMD`
    value_map: SourceMap | None = None


@record(frozen=True, slots=True)
class Built:
    value: str | None
    map: SourceMap
    span: object
    exact: bool
    script: str | None = None  # the text with unknown pieces as an unknown reference (for `bash -c`)

    def word(self) -> Word:
        return Word(self.value, self.span, self.exact, None if self.value is not None else self.script)
