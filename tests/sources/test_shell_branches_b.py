"""shell/branches.py: a launch after an `if` / `case` whose branches set its variables to literal values gets the
launch each branch gives (Launch.alternatives); the launch itself stays as read (the variable unknown).

Shape from NVIDIA-NeMo/Megatron-Bridge@067f987 examples/models/qwen/qwen35_vl/slurm_sft.sh:64-101 (a `case` on the
model size setting the recipe, `*)` exits); the full file is tests/trainers/fixtures/megatron_bridge/
qwen35_vl_case_sft.sh.
"""
from __future__ import annotations

from moecfg.sources.readers import read_shell
from moecfg.sources.shell import branches

CASE = """MODEL_SIZE="${1:?}"
case "$MODEL_SIZE" in
    2B)
        RECIPE="r_2b"
        ;;
    35B-A3B|35B)
        RECIPE="r_35b"
        ;;
    *)
        echo "unknown"
        exit 1
        ;;
esac
python run.py --recipe $RECIPE
"""


def _launch(text: str, program: str = "python"):
    (launch,) = [x for x in read_shell(text).launches if x.argv[0].value == program]
    return launch


def _alternatives(launch) -> list[tuple[str, str | None]]:
    return [(label, alt.argv[-1].value) for label, alt in branches.of(launch)]


def test_each_case_branch_that_goes_on_is_an_alternative():
    launch = _launch(CASE)
    assert launch.argv[-1].value is None  # the launch as read: the recipe is not known statically
    assert _alternatives(launch) == [('case "$MODEL_SIZE" in 2B) (line 2)', "r_2b"),
                                     ('case "$MODEL_SIZE" in 35B-A3B|35B) (line 2)', "r_35b")]  # `*)` exits


def test_an_if_without_else_keeps_the_value_set_before_as_an_alternative():
    text = 'R=base\nif [ "$X" = a ]; then\n  R=one\nelif [ "$X" = b ]; then\n  R=two\nfi\npython run.py --recipe $R\n'
    assert _alternatives(_launch(text)) == [('if [ "$X" = a ] (line 2)', "one"), ('elif [ "$X" = b ] (line 2)', "two"),
                                            ("no `if` branch taken (line 2)", "base")]
    with_else = text.replace("fi\n", "else\n  R=three\nfi\n")
    assert [v for _, v in _alternatives(_launch(with_else))] == ["one", "two", "three"]


def test_the_branches_are_read_again_only_when_asked():
    launch = _launch(CASE)
    assert isinstance(launch.alternatives, branches.Pending)  # nothing re-read yet
    assert len(branches.of(launch)) == 2 and isinstance(launch.alternatives, tuple)


def test_a_branch_that_runs_a_command_or_expands_a_variable_gives_no_alternatives():
    assert branches.of(_launch(CASE.replace('RECIPE="r_2b"', 'RECIPE="r_2b"; ls'))) == ()
    assert branches.of(_launch(CASE.replace('RECIPE="r_2b"', 'RECIPE="$OTHER"'))) == ()


def test_branches_setting_the_same_values_and_launches_before_them_have_none():
    assert branches.of(_launch(CASE.replace("r_35b", "r_2b"))) == ()  # the value is known without them
    before = "python run.py --recipe $RECIPE\n" + CASE.replace("python run.py --recipe $RECIPE\n", "")
    assert branches.of(_launch(before)) == ()


def test_more_branches_than_the_limit_give_none():
    items = "".join(f"    s{i})\n        RECIPE=r{i}\n        ;;\n" for i in range(17))
    text = f'case "$S" in\n{items}esac\npython run.py --recipe $RECIPE\n'
    assert branches.of(_launch(text)) == ()
    fewer = "".join(f"    s{i})\n        RECIPE=r{i}\n        ;;\n" for i in range(15))  # + no pattern matching: 16
    # (no pattern matching leaves RECIPE as before, unknown: the same launch, no alternative of its own)
    assert len(branches.of(_launch(f'case "$S" in\n{fewer}esac\npython run.py --recipe $RECIPE\n'))) == 15
