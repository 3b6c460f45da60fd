"""Shared helpers of the Python module's tests: the `ladle` binary to compare against.

CTest runs these with PYTHONPATH holding the built module and LADLE_BINARY naming the binary
(CMakeLists.txt, test python/api).
"""
import json
import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def binary():
    path = os.environ.get("LADLE_BINARY")
    if not path:
        pytest.fail("LADLE_BINARY is not set: run these tests through ctest (test python/api)")
    return path


class Cli:
    """One run of the binary: exit code, standard output, standard error."""

    def __init__(self, *args, cwd=REPO):
        done = subprocess.run([binary(), *map(str, args)], cwd=cwd, capture_output=True, text=True,
                              timeout=600, stdin=subprocess.DEVNULL)
        self.exit_code = done.returncode
        self.stdout = done.stdout
        self.stderr = done.stderr

    def json(self):
        return json.loads(self.stdout)

    def error_line(self):
        lines = self.stderr.splitlines()
        assert len(lines) == 1, self.stderr
        return lines[0]


@pytest.fixture
def cli():
    return Cli
