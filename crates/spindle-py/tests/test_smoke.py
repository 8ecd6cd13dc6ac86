import pytest

import spindle


def test_default_run_reports_the_hplajw_trace():
    out = spindle.run_json(limit=2000)
    assert out["metrics"]["requests"] == 2000


def test_bad_option_is_a_value_error_naming_the_flag():
    with pytest.raises(ValueError, match="--queue-depth"):
        spindle.run_json(queue_depth="many")
