"""Shared fixtures: keys of every profile, the repository root, the sixsop binary."""

import os
import pathlib
import shutil

import pytest

import sixpgp

PYTHON_DIR = pathlib.Path(__file__).resolve().parent.parent
REPO = PYTHON_DIR.parent


@pytest.fixture(scope="session", params=sorted(sixpgp.PROFILES))
def profile_key(request):
    """A key of each profile (a parameter: tests using it run once per profile)."""
    return sixpgp.Key.generate(f"Test <{request.param}@example.org>", request.param)


@pytest.fixture(scope="session")
def alice():
    return sixpgp.Key.generate("Alice <alice@example.org>")


@pytest.fixture(scope="session")
def bob():
    return sixpgp.Key.generate("Bob <bob@example.org>")


@pytest.fixture(scope="session")
def sixsop():
    """The sixsop binary: $SIXSOP, else one built in the workspace's target directory."""
    candidates = [os.environ.get("SIXSOP")]
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    candidates += [str(target / p / "sixsop") for p in ("debug", "release")]
    candidates.append(shutil.which("sixsop"))
    for c in candidates:
        if c and os.access(c, os.X_OK):
            return c
    pytest.skip("no sixsop binary (set SIXSOP, or `cargo build -p sixpgp-sop`)")
