"""Names of a package imported on first use (a module-level ``__getattr__``, PEP 562)."""

from __future__ import annotations

import importlib


def lazy_exports(package: str, namespace: dict, exports: dict[str, str]):
    """Return ``(__getattr__, __dir__)`` for ``package``: each name of ``exports``
    ({name: submodule}) is imported from its submodule on first use and kept in
    ``namespace`` (the package's globals)."""

    def __getattr__(name: str):
        mod = exports.get(name)
        if mod is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{mod}"), name)
        namespace[name] = value
        return value

    def __dir__():
        return sorted(set(namespace) | set(exports))

    return __getattr__, __dir__
