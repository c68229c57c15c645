"""Checks of command-line values, shared by the ``cuzklab`` sub-commands.

Every check runs before a command starts its work and names the option as
the user typed it. The ``argparse`` type functions (:func:`int_at_least`,
:func:`finite_number` and :func:`positive_seconds`, made by it) raise
``ArgumentTypeError``, which the parser reports as ``cuzklab: error: argument --OPTION: ...``; the path checks
(:func:`input_file`, :func:`output_file`, :func:`output_dir`) and
:func:`require_backend` raise :class:`OptionError`, which ``cuzklab.cli``
prints as ``cuzklab: error: ...`` with exit code 2.
"""

from __future__ import annotations

import argparse
import math
import os
from pathlib import Path

from .errors import BackendError, ConfigError, CuzklabError


class OptionError(CuzklabError, ValueError):
    """A command-line value names a bad path or is out of range (the message names the option)."""


def int_at_least(lo: int):
    """Return an argparse type that accepts an integer >= ``lo``."""
    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer >= {lo}, got {text!r}") from None
        if v < lo:
            raise argparse.ArgumentTypeError(f"must be >= {lo}, got {v}")
        return v
    parse.__name__ = f"int >= {lo}"
    return parse


def finite_number(unit: str = "", *, gt: float | None = None, ge: float | None = None,
                  lt: float | None = None, note: str = ""):
    """Return an argparse type that accepts a finite number in a range.

    ``gt`` / ``ge``: the lower bound, exclusive / inclusive; ``lt``: an exclusive
    upper bound. ``unit`` names what the number counts (``"GiB"``, ``"seconds"``)
    and ``note`` (shown in brackets) what the values mean. Both error messages
    say what is allowed: ``expected a number of GiB > 0, got 'x'`` for text
    that is no number, ``expected a finite number of GiB > 0, got 0`` for one
    out of range (NaN and infinity included); argparse puts the option in front.
    """
    if gt is not None and ge is not None:
        raise ValueError("give gt or ge, not both")
    lo = gt if gt is not None else ge
    if lo is not None and lt is not None:
        allowed = f"in {'(' if gt is not None else '['}{lo:g}, {lt:g})"
    elif lo is not None:
        allowed = f"{'>' if gt is not None else '>='} {lo:g}"
    elif lt is not None:
        allowed = f"< {lt:g}"
    else:
        allowed = ""
    what = " ".join(x for x in (f"number of {unit}" if unit else "number", allowed,
                                f"({note})" if note else "") if x)

    def parse(text: str) -> float:
        try:
            v = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a {what}, got {text!r}") from None
        if not (math.isfinite(v) and (gt is None or v > gt) and (ge is None or v >= ge)
                and (lt is None or v < lt)):
            raise argparse.ArgumentTypeError(f"expected a finite {what}, got {text}")
        return v
    parse.__name__ = what
    return parse


# Argparse type: a finite number of seconds > 0 (timeouts, latency limits).
positive_seconds = finite_number("seconds", gt=0)


def input_file(path, option: str, *, text: bool = False) -> Path:
    """Return ``path`` as a Path if it is a readable file (UTF-8 text with ``text``), else raise."""
    p = Path(path)
    if not p.exists():
        raise OptionError(f"{option} {path}: no such file")
    if p.is_dir():
        raise OptionError(f"{option} {path}: is a folder, not a file")
    try:
        with open(p, "rb") as fh:
            data = fh.read() if text else fh.read(1)
    except OSError as exc:
        raise OptionError(f"{option} {path}: cannot be read ({exc.strerror})") from None
    if text:
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise OptionError(f"{option} {path}: not UTF-8 text (bad byte at offset {exc.start})") \
                from None
    return p


def _check_parents(p: Path, option: str, shown) -> None:
    """Raise unless the nearest existing folder above ``p`` is a writable folder."""
    for parent in p.parents:
        if parent.exists():
            if not parent.is_dir():
                raise OptionError(f"{option} {shown}: {parent} is a file, not a folder")
            if not os.access(parent, os.W_OK | os.X_OK):
                raise OptionError(f"{option} {shown}: the folder {parent} is not writable")
            return


def output_file(path, option: str) -> Path:
    """Return ``path`` as a Path if a file can be written there, else raise.

    The folder must exist: a mistyped folder is an error, not a new folder made
    silently somewhere unexpected.
    """
    p = Path(path)
    if p.is_dir():
        raise OptionError(f"{option} {path}: is a folder; give a file name")
    parent = p.parent
    if not parent.exists():
        raise OptionError(f"{option} {path}: the folder {parent} does not exist; "
                          f"create it first or give a file in an existing folder")
    _check_parents(p, option, path)
    return p


def output_dir(path, option: str) -> Path:
    """Return ``path`` as a Path if it is a folder or one can be made there, else raise."""
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise OptionError(f"{option} {path}: is a file, not a folder")
    if not p.exists():
        _check_parents(p, option, path)
    return p


def require_backend(backend: str, option: str) -> str:
    """Return ``backend`` if it can run here; for "gpu" without CuPy or a device, raise naming ``option``."""
    if backend == "gpu":
        from .backend import xp
        try:
            xp("gpu")
        except BackendError as exc:
            raise BackendError(f"{option} gpu: {exc}") from None
    return backend


def usable_backend(backend, name: str = "backend") -> str:
    """Return ``backend`` if it is a known name that can run here, else raise ConfigError naming ``name``.

    For "gpu" without CuPy or a device the error is the BackendError of :func:`require_backend`.
    """
    from .backend import BACKENDS
    if backend not in BACKENDS:
        raise ConfigError(name, f"must be one of {', '.join(BACKENDS)}, got {backend!r}")
    return require_backend(backend, name)


def cuzk_config(path, option: str = "--config", daemon_version: str | None = None):
    """Return the PipelineConfig of the cuzk daemon TOML at ``path``; errors name ``option``.

    ``daemon_version`` names the daemon release whose defaults apply (None: the newest).
    """
    from .errors import ConfigError
    from .model import PipelineConfig
    p = input_file(path, option, text=True)
    try:
        config = PipelineConfig.from_cuzk_toml(p, daemon_version=daemon_version)
    except ConfigError as exc:
        raise ConfigError(f"{option} {path}", str(exc)) from None
    return finite_config(config, f"{option} {path}")


def finite_config(config, option: str):
    """Return ``config`` (a PipelineConfig) if none of its numbers is NaN or infinite, else raise."""
    from .errors import ConfigError
    for key, value in config.to_dict().items():
        if isinstance(value, float) and not math.isfinite(value):
            raise ConfigError(option, f"{key}: must be a finite number, got {value}")
    return config


def add_config_arguments(parser) -> None:
    """Add ``--config cuzk.toml`` and the repeatable ``--set KEY=VALUE`` to a sub-command."""
    parser.add_argument("--config", default=None, metavar="cuzk.toml",
                        help="read the configuration from a cuzk daemon TOML")
    parser.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE",
                        help="override one configuration key (repeatable)")


def add_output_arguments(parser) -> None:
    """Add ``--json`` (one JSON object: the summary), ``--trace`` and ``--perfetto`` to a sub-command."""
    parser.add_argument("--json", action="store_true",
                        help="print exactly one JSON object: the summary")
    parser.add_argument("--trace", default=None, metavar="FILE.parquet",
                        help="write the trace (Parquet)")
    parser.add_argument("--perfetto", default=None, metavar="FILE.json",
                        help="write a Chrome-trace JSON that ui.perfetto.dev opens")


def config_from_args(args, profile=None):
    """Return (config, era, kept): ``--config`` (or the defaults), then the profile's era defaults.

    The profile's ``[config]`` table (``era``: the keys it applied) fills every
    key the user did not set -- by ``--set`` or by a daemon TOML away from the
    defaults -- and every ``--set`` is applied last. ``kept`` lists the keys of
    that table the user set explicitly. ``profile=None`` applies no era.
    """
    from .errors import ConfigError
    from .model import PipelineConfig
    config = cuzk_config(args.config, "--config") if args.config else PipelineConfig()
    era, kept = {}, []
    if profile is not None:
        defaults = PipelineConfig().to_dict()
        explicit = {k for k, v in config.to_dict().items() if v != defaults[k]}
        explicit |= {a.partition("=")[0].strip() for a in args.sets}
        config, era = profile.configure(config, explicit)
        kept = sorted(set(profile.config_defaults()) & explicit)
    try:
        config = config.with_overrides(args.sets)
    except ConfigError as exc:
        raise ConfigError("--set", str(exc)) from None
    return finite_config(config, "--set"), era, kept


def profile_arg(value, option: str = "--profile"):
    """Return the Profile named (or at the path) ``value``; errors name ``option``."""
    from .errors import ProfileError
    from .model import Profile
    if value is not None and Path(value).exists():
        input_file(value, option, text=True)
    try:
        return Profile.load(value)
    except ProfileError as exc:
        raise ProfileError(f"{option} {value}: {exc}") from None
