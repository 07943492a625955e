"""evalfmt: one toolkit for the eval assets of agent skills.

The public API (imported lazily so that ``import evalfmt`` stays cheap)::

    evalfmt.read(path, fmt=None)        -> ReadResult (IR eval sets, diagnostics, loaded documents)
    evalfmt.validate(paths)             -> list[Diagnostic]
    evalfmt.convert(src, to, out=None)  -> Conversion (files, losses, diagnostics)
    evalfmt.write_files(files, root)    -> atomic writes
"""

__version__ = "0.1.0"

_API = {"read": "api", "read_many": "api", "validate": "api", "convert": "api", "write_files": "api",
        "discover": "discover"}


def __getattr__(name: str):
    if name in _API:
        import importlib

        module = importlib.import_module(f"{__name__}.{_API[name]}")
        return getattr(module, name)
    raise AttributeError(f"module 'evalfmt' has no attribute {name!r}")
