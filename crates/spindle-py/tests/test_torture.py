"""spindle.torture: seeded fault campaigns over byte-exact stacks, from Python."""

import pytest

import spindle

KINDS = [
    "lost writes",
    "misdirected writes",
    "torn writes",
    "bit flips",
    "drive failures",
    "power cuts",
]


def test_a_raid5_campaign_reads_nothing_wrong_and_counts_every_fault_kind():
    r = spindle.torture(array="raid5", rate=0.02, ops=400, seed=2)
    assert r.ok and r.wrong_reads == 0 and r.wrong_bytes == 0
    assert "RAID-5" in r.stack and r.seed == 2 and r.ops == 400
    assert list(r.faults.index) == KINDS
    assert list(r.faults.columns) == ["injected", "detected", "repaired", "overwritten"]
    assert r.faults.loc["lost writes", "injected"] > 0
    assert r.counts["reads_right"] > 0
    assert r.simulated_s > 0
    assert "no wrong read" in repr(r)


@pytest.mark.parametrize("seed", [1, 5])
def test_same_seed_same_report(seed):
    a = spindle.torture(array="mirror", members=3, fail=0.02, ops=300, seed=seed)
    b = spindle.torture(array="mirror", members=3, fail=0.02, ops=300, seed=seed)
    assert a.json == b.json
    assert a.ok


def test_a_stack_given_as_text_or_a_file(root):
    path = root / "examples" / "journal-raid4.toml"
    by_path = spindle.torture(stack=path, rate=0.01, ops=200)
    by_text = spindle.torture(stack=path.read_text(), rate=0.01, ops=200)
    assert by_path.json == by_text.json
    assert by_path.ok
    # A journal's counts are its own; the array under it reports apart.
    assert by_path.faults.empty
    assert by_path.counts["power_cuts"] >= 0
    assert by_path.array["rebuilds"] >= 0


def test_a_reliable_intra_array_survives_failures(root):
    r = spindle.torture(stack=root / "examples" / "mimd-intra-reliable.toml", fail=0.02, ops=200)
    assert r.ok
    assert r.faults.loc["drive failures", "injected"] > 0


def test_wrong_reads_make_the_result_not_ok():
    # The wrapper, on a report as the command line prints one with a wrong read.
    r = spindle.TortureResult(
        {
            "stack": "test",
            "seed": 1,
            "ops": 1,
            "simulated_s": 0.0,
            "reads_right": 3,
            "wrong_reads": 1,
            "wrong_bytes": 4096,
        }
    )
    assert not r.ok
    assert "1 WRONG READS" in repr(r)


def test_bad_options_are_the_command_lines_errors():
    with pytest.raises(ValueError, match="--array must be raid4, raid5, mirror, journal or dle"):
        spindle.torture(array="raid9")
    with pytest.raises(ValueError, match="--rate must be a probability"):
        spindle.torture(rate=2)
    with pytest.raises(ValueError, match="similar argument exists: '--ops'"):
        spindle.torture(opps=3)
    with pytest.raises(ValueError, match="<stack>"):
        spindle.torture(stack='[device]\nkind = "raid6"')
    with pytest.raises(FileNotFoundError):
        spindle.torture(stack="/no/such/stack.toml")
    with pytest.raises(ValueError, match="stack= must be TOML text or a path"):
        spindle.torture(stack=3)
    with pytest.raises(ValueError, match="json="):
        spindle.torture(json=True)
