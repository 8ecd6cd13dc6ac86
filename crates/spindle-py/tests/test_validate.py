"""spindle.validate: DiskSim's real-drive validation traces as a DataFrame."""

import pytest

import spindle


def test_the_four_built_in_drives_match_disksim():
    df = spindle.validate()
    assert list(df.index) == ["cheetah9LP", "ibm18es", "atlas10k", "hp_c2247a"]
    assert (df["requests"] > 9_000).all()
    # The same demerit as DiskSim 4.0 on its own drives, atlas10k far better.
    for disk in ["cheetah9LP", "ibm18es", "hp_c2247a"]:
        assert df.loc[disk, "rms_ratio_vs_disksim"] == pytest.approx(1.0, abs=0.02)
    assert df.loc["atlas10k", "rms_ratio_vs_disksim"] < 0.5


def test_calibration_is_judged_on_the_half_it_never_saw():
    df = spindle.validate("cheetah9LP", calibrated=True)
    row = df.loc["cheetah9LP"]
    assert row["train_requests"] + row["test_requests"] == 10_000
    assert row["calibration.train_rms_after_ms"] <= row["calibration.train_rms_before_ms"]
    assert row["test_rms_calibrated_ms"] > 0
    assert "calibration.adjustments.read_miss_ms" in df.columns
    # Its trace does not pin the platter's phase: judged phase-averaged, beside one replay.
    assert row["calibration.prediction"] == "phase-averaged"
    assert row["calibration.phase_alignment"] < 0.5
    assert row["test_replay_noise_ms"] > 0
    assert row["test_rms_replay_ms"] > 0


def test_unknown_drives_are_errors():
    with pytest.raises(ValueError, match="neither an existing .parv file nor a built-in"):
        spindle.validate("nope")
    with pytest.raises(FileNotFoundError):
        spindle.validate(["/no/such/drive.parv"])
    with pytest.raises(ValueError, match="empty list"):
        spindle.validate([])
