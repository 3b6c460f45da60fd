"""`cmake --install BUILD --component python` installs a module that imports and answers on its own
(stripped, outside the build tree)."""
import json
import os
import subprocess
import sys

import pytest

from conftest import Cli


def test_installed_module_answers_as_the_binary(tmp_path):
    build = os.environ.get("LADLE_BUILD_DIR")
    if not build:
        pytest.fail("LADLE_BUILD_DIR is not set: run these tests through ctest (test python/api)")
    subprocess.run(["cmake", "--install", build, "--component", "python", "--prefix", str(tmp_path)],
                   check=True, capture_output=True)
    site = tmp_path / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
    installed = list(site.glob("ladle*.so"))
    assert len(installed) == 1
    out = subprocess.run([sys.executable, "-c", "import json, ladle; print(ladle.__file__); "
                          "print(json.dumps(ladle.gpu('b200')))"],
                         env={**os.environ, "PYTHONPATH": str(site)}, cwd=tmp_path,
                         capture_output=True, text=True, check=True).stdout.splitlines()
    assert out[0] == str(installed[0])
    assert json.loads(out[1]) == Cli("gpu", "b200", "--json").json()
