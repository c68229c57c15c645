"""Build step of the cuzklab wheel: ship the checkout's data files inside the package.

Profiles, sweep grids and sample logs stay in ``data/`` and the notebooks in
``notebooks/`` (where the checkout uses them); building a wheel copies them
into ``cuzklab/_data/<kind>/`` of the build tree, where
:mod:`cuzklab.resources` finds them once installed. Everything else about the
package is declared in pyproject.toml.
"""

import importlib.util
import pathlib
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = pathlib.Path(__file__).resolve().parent


def _resources():
    # Loaded by path: cuzklab is not importable while it is being built.
    spec = importlib.util.spec_from_file_location("_cuzklab_resources",
                                                  HERE / "cuzklab" / "resources.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class build_py_with_data(build_py):
    """build_py that also copies the shipped data files into the package."""

    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install reads the checkout's own folders
        res = _resources()
        for kind, (folder, patterns) in res.SHIPPED.items():
            src = HERE.joinpath(*folder)
            dest = pathlib.Path(self.build_lib, "cuzklab", res.PACKAGED_DIR, kind)
            files = sorted({p for pat in patterns for p in src.glob(pat) if p.is_file()})
            if not files:
                raise SystemExit(f"setup.py: no {kind} in {src} to ship")
            if dest.exists():
                shutil.rmtree(dest)
            dest.mkdir(parents=True)
            for p in files:
                shutil.copyfile(p, dest / p.name)


setup(cmdclass={"build_py": build_py_with_data})
