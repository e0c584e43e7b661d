"""`@record`: the check path's value classes without the `dataclasses` module (start-up).

Importing `dataclasses` costs ~13 ms (it imports inspect, ast, dis, tokenize) and each `@dataclass` another
0.5-4 ms (it compiles five or six methods from source), about 50 ms for the ~25 classes a plain `moecfg check`
builds: a third of the run. `@record(frozen=..., slots=...)` takes the same class body and the same
`field(default_factory=...)` and gives the same behaviour for what the code uses: the `__init__` signature
(bound generically, compiled for a class built often), `__repr__`, `__eq__`, `__hash__` (frozen), frozen
assignment raising `dataclasses.FrozenInstanceError`, `__slots__`, pickling, `__match_args__`.

To everything else a record IS a dataclass: `__dataclass_fields__` and `__dataclass_params__` are built on first
use by running `dataclasses.dataclass` over the same annotations and defaults (which imports `dataclasses` then,
off the check path), so `dataclasses.fields/replace/asdict/is_dataclass` and pydantic's `TypeAdapter` (the
catalogs' validation) see exactly what `@dataclass` with the same options would have made.
Supported: `frozen`, `slots`, `eq`; fields with a default or a `field(default=... | default_factory=...)`.
A record without a docstring keeps `__doc__` None (dataclass would write its signature there: inspect again).
"""
from __future__ import annotations

from operator import attrgetter
from reprlib import recursive_repr

_MISSING = object()  # "no default" (dataclasses.MISSING without importing dataclasses)


class _Field:
    __slots__ = ("default", "default_factory")

    def __init__(self, default, default_factory):
        self.default, self.default_factory = default, default_factory


def field(*, default=_MISSING, default_factory=_MISSING):
    """A field's default (`default_factory` is called for each instance), as `dataclasses.field`."""
    if default is not _MISSING and default_factory is not _MISSING:
        raise ValueError("cannot specify both default and default_factory")
    return _Field(default, default_factory)


def record(cls=None, /, *, frozen: bool = False, slots: bool = False, eq: bool = True):
    """`@dataclass` with the same keywords, without importing dataclasses (see the module docstring)."""
    def wrap(c):
        return _build(c, frozen, slots, eq)

    return wrap if cls is None else wrap(cls)


def replace(obj, /, **changes):
    """`dataclasses.replace` for a record (a copy with `changes`), without importing dataclasses."""
    kw = {name: getattr(obj, name) for name in type(obj).__record_fields__}
    kw.update(changes)
    return type(obj)(**kw)


def field_names(cls) -> tuple:
    """The names of a record's fields in order (base classes' first), as `dataclasses.fields` lists them."""
    return cls.__record_fields__


# ---- building the class ----------------------------------------------------------------------------------------

def _fields(cls) -> dict:
    """name -> (annotation, default, default_factory): the bases' fields, then this class's own, in order."""
    out = {}
    for base in reversed(cls.__mro__[1:]):
        out.update(base.__dict__.get("__record_specs__", {}))
    for name, annotation in cls.__dict__.get("__annotations__", {}).items():
        value = cls.__dict__.get(name, _MISSING)
        if isinstance(value, _Field):
            out[name] = (annotation, value.default, value.default_factory)
        else:
            out[name] = (annotation, value, _MISSING)
    return out


def _build(cls, frozen: bool, slots: bool, eq: bool):
    specs = _fields(cls)
    names = tuple(specs)
    seen_default = False
    for name, (_, default, factory) in specs.items():
        if default is _MISSING and factory is _MISSING and seen_default:
            raise TypeError(f"non-default argument {name!r} follows default argument")
        seen_default = seen_default or default is not _MISSING or factory is not _MISSING
    own = cls.__dict__
    explicit_hash = "__hash__" in own and not (own["__hash__"] is None and "__eq__" in own)
    if slots:
        cls = _with_slots(cls, names)
    else:  # class-level defaults as dataclass leaves them: the default, or nothing for a default_factory
        for name in cls.__dict__.get("__annotations__", {}):
            if isinstance(cls.__dict__.get(name), _Field):
                default = cls.__dict__[name].default
                delattr(cls, name) if default is _MISSING else setattr(cls, name, default)
    cls.__record_specs__ = specs
    cls.__record_fields__ = names
    cls.__record_options__ = (frozen, eq)
    cls.__match_args__ = names
    _new(cls, "__init__", lambda: _init(cls, specs, frozen))
    _new(cls, "__repr__", lambda: _repr)
    values = _values(names)
    if eq:
        _new(cls, "__eq__", lambda: _eq(values))
    if eq and frozen and not explicit_hash:
        cls.__hash__ = lambda self: hash(values(self))
    elif eq and not explicit_hash:
        cls.__hash__ = None
    if frozen:
        cls.__setattr__, cls.__delattr__ = _frozen_setattr(cls, names), _frozen_delattr(cls, names)
        if slots:
            cls.__getstate__, cls.__setstate__ = _getstate, _setstate
    cls.__dataclass_fields__ = _AsDataclass("__dataclass_fields__")
    cls.__dataclass_params__ = _AsDataclass("__dataclass_params__")
    return cls


def _new(cls, name: str, make) -> None:
    """Set a method the class body does not define itself (dataclass keeps the class's own)."""
    if name not in cls.__dict__:
        setattr(cls, name, make())


def _with_slots(cls, names: tuple):
    """The class again with `__slots__` for its fields (as dataclass(slots=True) does)."""
    inherited = set()
    for base in cls.__mro__[1:-1]:
        own = base.__dict__.get("__slots__", ())
        inherited.update((own,) if isinstance(own, str) else own)
    body = dict(cls.__dict__)
    body["__slots__"] = tuple(n for n in names if n not in inherited)
    for name in names:
        body.pop(name, None)
    body.pop("__dict__", None)
    body.pop("__weakref__", None)
    qualname = cls.__qualname__
    cls = type(cls)(cls.__name__, cls.__bases__, body)
    cls.__qualname__ = qualname
    return cls


COMPILE_AFTER = 200  # instances of one class built by the generic __init__ before its own is compiled


def _init(cls, specs: dict, frozen: bool):
    """The `__init__(self, a, b=default, ...)` of the fields. Compiling it costs ~40 us a field (~10 ms for the
    check path's 250 fields, most of its classes built a few times per run), so a generic one binds the
    arguments first; a class built COMPILE_AFTER times (Span, over many files) gets its compiled one."""
    names = tuple(specs)
    defaults = {name: d for name, (_, d, _f) in specs.items() if d is not _MISSING}
    factories = {name: f for name, (_, _d, f) in specs.items() if f is not _MISSING}
    put = object.__setattr__ if frozen else setattr
    built = [0]

    def __init__(self, *args, **kwargs):
        built[0] += 1
        if built[0] == COMPILE_AFTER and cls.__dict__.get("__init__") is __init__:
            cls.__init__ = _compiled_init(cls, specs, frozen)
        if len(args) > len(names):
            raise TypeError(f"{cls.__qualname__}.__init__() takes {len(names) + 1} positional arguments but "
                            f"{len(args) + 1} were given")
        for name, value in zip(names, args):
            put(self, name, value)
        for name in names[len(args):]:
            if name in kwargs:
                value = kwargs.pop(name)
            elif name in defaults:
                value = defaults[name]
            elif name in factories:
                value = factories[name]()
            else:
                raise TypeError(f"{cls.__qualname__}.__init__() missing 1 required positional argument: {name!r}")
            put(self, name, value)
        if kwargs:
            name = next(iter(kwargs))
            problem = "got multiple values for argument" if name in names else "got an unexpected keyword argument"
            raise TypeError(f"{cls.__qualname__}.__init__() {problem} {name!r}")

    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    __init__.__module__ = cls.__module__
    return __init__


def _compiled_init(cls, specs: dict, frozen: bool):
    """The same `__init__`, compiled from source (as dataclass does): faster for each instance."""
    env = {"_set": object.__setattr__, "_MISSING": _MISSING}
    params, body = [], []
    for i, (name, (_, default, factory)) in enumerate(specs.items()):
        if factory is not _MISSING:
            env[f"_f{i}"] = factory
            params.append(f"{name}=_MISSING")
            value = f"_f{i}() if {name} is _MISSING else {name}"
        else:
            if default is not _MISSING:
                env[f"_d{i}"] = default
            params.append(name if default is _MISSING else f"{name}=_d{i}")
            value = name
        body.append(f"    _set(self, {name!r}, {value})" if frozen else f"    self.{name} = {value}")
    source = f"def __init__(self, {', '.join(params)}):\n" + ("\n".join(body) or "    pass") + "\n"
    exec(source, env)  # noqa: S102  (our own field names: identifiers from the class body)
    init = env["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    return init


def _values(names: tuple):
    """obj -> the tuple of its field values (what __eq__ and __hash__ compare)."""
    if len(names) == 1:
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    return attrgetter(*names) if names else (lambda obj: ())


@recursive_repr()
def _repr(self) -> str:
    cls = self.__class__
    return f"{cls.__qualname__}({', '.join(f'{n}={getattr(self, n)!r}' for n in cls.__record_fields__)})"


def _eq(values):
    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return values(self) == values(other)
        return NotImplemented

    return __eq__


def _frozen_setattr(cls, names: tuple):
    def __setattr__(self, name, value):
        if type(self) is cls or name in names:
            from dataclasses import FrozenInstanceError

            raise FrozenInstanceError(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    return __setattr__


def _frozen_delattr(cls, names: tuple):
    def __delattr__(self, name):
        if type(self) is cls or name in names:
            from dataclasses import FrozenInstanceError

            raise FrozenInstanceError(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    return __delattr__


def _getstate(self):
    return [getattr(self, name) for name in self.__record_fields__]


def _setstate(self, state):
    for name, value in zip(self.__record_fields__, state):
        object.__setattr__(self, name, value)


# ---- what dataclasses and pydantic read, built on first use ----------------------------------------------------

class _AsDataclass:
    """A record's `__dataclass_fields__` / `__dataclass_params__`: on first read, both are made by
    `dataclasses.dataclass` over the record's annotations and defaults and replace this placeholder."""

    def __init__(self, attr: str):
        self.attr = attr

    def __get__(self, obj, owner):
        holder = next(c for c in owner.__mro__ if c.__dict__.get(self.attr) is self)
        _as_dataclass(holder)
        return holder.__dict__[self.attr]


def _as_dataclass(cls) -> None:
    import dataclasses

    frozen, eq = cls.__record_options__
    body = {"__module__": cls.__module__, "__qualname__": cls.__qualname__, "__annotations__": {}}
    for name, (annotation, default, factory) in cls.__record_specs__.items():
        body["__annotations__"][name] = annotation
        if factory is not _MISSING:
            body[name] = dataclasses.field(default_factory=factory)
        elif default is not _MISSING:
            body[name] = default
    twin = dataclasses.dataclass(type(cls.__name__, (), body), frozen=frozen, eq=eq)
    type.__setattr__(cls, "__dataclass_fields__", twin.__dataclass_fields__)
    type.__setattr__(cls, "__dataclass_params__", twin.__dataclass_params__)
