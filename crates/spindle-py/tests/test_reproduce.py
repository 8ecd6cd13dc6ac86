"""spindle.reproduce: the registered experiments' checks as a DataFrame."""

import pytest

import spindle


def test_checks_as_a_dataframe():
    df = spindle.reproduce(["HPLAJW-DISKSIM", "MIMIC-F3.1"], quick=True, jobs=1)
    assert list(df.columns[:7]) == ["id", "metric", "paper", "ours", "tolerance", "pass", "kind"]
    assert set(df["experiment"]) == {"HPLAJW-DISKSIM", "MIMIC-F3.1"}
    assert set(df["kind"]) <= {"reproduction", "consistency"}
    assert df["pass"].dtype == bool
    assert set(df.attrs["seconds"]) == {"HPLAJW-DISKSIM", "MIMIC-F3.1"}
    # Same seed, same checks.
    again = spindle.reproduce("HPLAJW-DISKSIM", jobs=1)
    assert again.equals(df[df["experiment"] == "HPLAJW-DISKSIM"].reset_index(drop=True))


def test_unknown_ids_and_options_are_value_errors():
    with pytest.raises(ValueError, match="no experiment `NOPE`"):
        spindle.reproduce("NOPE")
    with pytest.raises(ValueError, match="durability"):
        spindle.reproduce("HPLAJW-DISKSIM", durability="sometimes")
    with pytest.raises(ValueError, match="full_scale=True applies to PROX-T2 only"):
        spindle.reproduce("HPLAJW-DISKSIM", full_scale=True)
    with pytest.raises(ValueError, match="empty list"):
        spindle.reproduce([])
