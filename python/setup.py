"""Builds the compiled module `ladle` through the project's CMake (target ladle_python) and
installs it: `pip install --no-build-isolation ./python` from the repository root.

The build folder is LADLE_BUILD_DIR, else build/ at the repository root (the README's); one that
does not exist yet is configured with Ninja. The module is built for the Python CMake finds
(Debian's /usr/bin/python3 when present), so install it into that Python or a virtual environment
made from it (python3 -m venv); another interpreter is refused rather than given a module it
cannot load.
"""
import os
import shutil
import subprocess
import sysconfig
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent.parent


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = Path(os.environ.get("LADLE_BUILD_DIR", ROOT / "build"))
        if not (build / "CMakeCache.txt").exists():
            subprocess.run(["cmake", "-S", str(ROOT), "-B", str(build), "-G", "Ninja",
                            "-DCMAKE_BUILD_TYPE=RelWithDebInfo", "-DLADLE_PYTHON=ON"], check=True)
        subprocess.run(["cmake", "--build", str(build), "--target", "ladle_python"], check=True)
        suffix = sysconfig.get_config_var("EXT_SUFFIX")
        built = build / "python" / f"ladle{suffix}"
        if not built.exists():
            found = sorted(p.name for p in (build / "python").glob("ladle*"))
            raise SystemExit(f"ladle: error: {build}/python holds {found}, not ladle{suffix}: the module was "
                             "built for another Python; use the Python CMake found (or a venv made from it)")
        target = Path(self.get_ext_fullpath(ext.name))
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built, target)
        # Without its debug information (most of its size), as `cmake --install` installs it.
        if shutil.which("strip"):
            subprocess.run(["strip", "--strip-debug", str(target)], check=True)


setup(ext_modules=[Extension("ladle", sources=[])], cmdclass={"build_ext": CMakeBuild})
