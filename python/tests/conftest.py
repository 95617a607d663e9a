"""Shared fixtures of the Python package's tests: the repository root and the `veer` CLI the
results are compared with (VEER_BIN, default target/debug/veer, built by `cargo test`)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def cli():
    binary = os.environ.get("VEER_BIN") or str(ROOT / "target" / "debug" / "veer")
    if not Path(binary).exists():
        pytest.fail(f"the veer CLI is not built at {binary}: run `cargo build -p veer` or set VEER_BIN")

    def run(*args: str, code: int = 0) -> subprocess.CompletedProcess:
        p = subprocess.run([binary, *args], cwd=ROOT, capture_output=True, text=True)
        assert p.returncode == code, f"veer {' '.join(args)} exited {p.returncode}: {p.stderr}"
        return p

    run.json = lambda *args, code=0: json.loads(run(*args, code=code).stdout)
    run.binary = binary
    return run
