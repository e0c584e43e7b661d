"""core/record.py: a `@record` class behaves as the `@dataclass` with the same options would (each behaviour below
is compared with a real dataclass twin of the same body), and it is a dataclass to `dataclasses` and pydantic."""
from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest
from pydantic import TypeAdapter

from moecfg.core import record as rec


def _pair(frozen: bool, slots: bool):
    """The same class body twice: as a record and as a dataclass."""
    def body(field):
        class Limits:
            """Limits."""

            name: str
            low: int = 1
            tags: tuple = ()
            extra: dict = field(default_factory=dict)
            note: str | None = None

            @property
            def span(self) -> int:
                return self.low * 2

        return Limits

    return (rec.record(body(rec.field), frozen=frozen, slots=slots),
            dataclasses.dataclass(body(dataclasses.field), frozen=frozen, slots=slots))


OPTIONS = [(True, True), (True, False), (False, True), (False, False)]


@pytest.fixture(params=["generic", "compiled"])
def init(request, monkeypatch):
    """Both __init__ of a record: the generic one, and the compiled one a class gets once built often."""
    if request.param == "compiled":
        monkeypatch.setattr(rec, "COMPILE_AFTER", 1)
    return request.param


@pytest.mark.parametrize("frozen,slots", OPTIONS)
def test_construction_repr_equality_hash_as_dataclass(frozen, slots, init):
    R, D = _pair(frozen, slots)
    R("warm-up")  # the first instance: with COMPILE_AFTER = 1, the compiled __init__ builds every later one
    assert (R.__init__.__code__.co_varnames[:2] == ("self", "name")) == (init == "compiled")
    for args, kw in ((("a",), {}), (("a", 3), {"note": "n"}), ((), {"name": "b", "tags": (1, 2)})):
        r, d = R(*args, **kw), D(*args, **kw)
        assert repr(r) == repr(d) and r.span == d.span
        assert r == R(*args, **kw) and r != R("other") and (r == d) is False
        if frozen:  # the hash of the field values; a dict field makes both unhashable
            with pytest.raises(TypeError, match="unhashable type: 'dict'"):
                hash(r)
            with pytest.raises(TypeError, match="unhashable type: 'dict'"):
                hash(d)
    assert (R.__hash__ is None) == (D.__hash__ is None) == (not frozen)
    assert R("a").extra is not R("a").extra  # default_factory: one dict per instance
    assert hasattr(R("a"), "__dict__") == hasattr(D("a"), "__dict__") == (not slots)
    assert R.__match_args__ == D.__match_args__
    bad_calls = (((), {}), (("a", 1, (), {}, None, "x"), {}), (("a",), {"nope": 1}), (("a",), {"name": "b"}))
    for bad_args, bad_kw in bad_calls:  # missing, too many, unknown, given twice
        with pytest.raises(TypeError):
            R(*bad_args, **bad_kw)
        with pytest.raises(TypeError):
            D(*bad_args, **bad_kw)


@pytest.mark.parametrize("frozen,slots", OPTIONS)
def test_assignment_copy_and_pickle(frozen, slots, init):
    R, _ = _pair(frozen, slots)
    R("warm-up")
    r = R("a", 2, (1,), {"k": 1})
    if frozen:
        with pytest.raises(dataclasses.FrozenInstanceError):
            r.low = 3
        with pytest.raises(dataclasses.FrozenInstanceError):
            del r.low
    else:
        r.low = 3
        assert r.low == 3
    assert copy.copy(r) == r and copy.deepcopy(r) == r
    globals()["Limits"] = R  # pickle finds the class by module and qualified name
    try:
        R.__qualname__ = "Limits"
        assert pickle.loads(pickle.dumps(r)) == r
    finally:
        del globals()["Limits"]


def test_a_record_is_a_dataclass_to_dataclasses_and_pydantic():
    R, D = _pair(True, True)
    r = R("a", 2)
    assert dataclasses.is_dataclass(R) and dataclasses.is_dataclass(r)
    assert [(f.name, f.type, f.default) for f in dataclasses.fields(R)] == \
        [(f.name, f.type, f.default) for f in dataclasses.fields(D)]
    assert R.__dataclass_params__.frozen and R.__dataclass_params__.eq
    assert dataclasses.asdict(r) == {"name": "a", "low": 2, "tags": (), "extra": {}, "note": None}
    assert dataclasses.replace(r, low=5) == R("a", 5) == rec.replace(r, low=5)
    assert TypeAdapter(R).validate_python({"name": "a", "low": 2}) == r
    with pytest.raises(Exception):
        TypeAdapter(R).validate_python({"name": "a", "low": "many"})


def test_inheritance_keeps_the_base_fields_first():
    @rec.record(frozen=True, slots=True)
    class Base:
        a: int
        b: int = 2

    @rec.record(frozen=True, slots=True)
    class Child(Base):
        c: int = 3

    assert rec.field_names(Child) == ("a", "b", "c") and [f.name for f in dataclasses.fields(Child)] == ["a", "b", "c"]
    assert repr(Child(1, c=4)) == "test_inheritance_keeps_the_base_fields_first.<locals>.Child(a=1, b=2, c=4)"
    assert Child(1) != Base(1) and Child.__slots__ == ("c",)
    assert hash(Child(1)) == hash((1, 2, 3)) == hash(dataclasses.make_dataclass("D", "abc", frozen=True)(1, 2, 3))
    with pytest.raises(TypeError, match="non-default argument"):
        @rec.record
        class Wrong(Base):
            d: int

