import pathlib

import pytest

#: The repository's root (examples/ holds run configurations).
ROOT = pathlib.Path(__file__).resolve().parents[3]


@pytest.fixture
def root():
    return ROOT
