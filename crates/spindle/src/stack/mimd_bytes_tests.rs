//! MimdRAID's intra-disk 2 × 2 storing real bytes (issue 19's "real bytes" item):
//! with `reliable`, it survives any one drive failing mid-workload; without, a failure
//! loses that drive's share, and reads of it are refused, never invented.

use super::*;
use crate::array::mirror::MirrorOp;
use crate::array::mirror_tests::survives_every_failure;
use crate::disk::presets::preset;
use crate::stack::mimd::{BandAngles, IntraForm, RotPlacement, SplitUnit};

fn intra_2x2(reliable: bool, form: IntraForm) -> Organization {
    Organization::Intra {
        split: 2,
        rotational: 2,
        form,
        rotation: RotPlacement::Even,
        bands: BandAngles::Skew,
        unit: match form {
            IntraForm::Simulation => SplitUnit::Cylinder,
            IntraForm::Prototype => SplitUnit::Share,
        },
        reliable,
    }
}

fn array(reliable: bool, form: IntraForm) -> Mirror {
    let p = preset("st34502lw").expect("preset");
    byte_array(intra_2x2(reliable, form), &p, 4, 3, 8).expect("intra array")
}

#[test]
fn reliable_2x2_intra_survives_any_single_failure_mid_workload() {
    let cases = [IntraForm::Simulation, IntraForm::Prototype]
        .into_iter()
        .flat_map(|form| {
            (1..=3u64).flat_map(move |seed| {
                (0..4).map(move |failed| (format!("{form:?}"), array(true, form), seed, failed))
            })
        });
    survives_every_failure("intra 2x2", cases);
}

#[test]
fn every_block_keeps_its_sectors_together_and_one_copy_elsewhere() {
    let m = array(true, IntraForm::Simulation);
    let p = preset("st34502lw").expect("preset");
    let drive = crate::disk::hdd::Hdd::new(p.clone())
        .expect("drive")
        .capacity();
    // Four drives holding one drive's worth of data four times over, less the room
    // for each share's copy on the next drive: about 4/5 of a drive.
    let frac = (m.blocks() * 8) as f64 / drive as f64;
    assert!((0.74..0.81).contains(&frac), "capacity {frac} of a drive");
    let placement =
        BlockPlacement::new(intra_2x2(true, IntraForm::Simulation), &p, 4, 3).expect("placement");
    let step = (m.blocks() / 5_000).max(1);
    for b in (0..m.blocks()).step_by(step as usize) {
        let copies = m.copies(b);
        // 2 bands × 2 rotational replicas on one drive, and the copy on the next.
        assert_eq!(copies.len(), 5, "block {b}");
        let home = copies[0].member;
        assert!(copies[..4].iter().all(|c| c.member == home && c.reads));
        assert_eq!(copies[4].member, (home + 1) % 4);
        assert!(!copies[4].reads);
        let mut keys: Vec<u64> = copies[..4].iter().map(|c| c.key).collect();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), 4, "block {b}: two copies on one sector");
        // Every sector of the block has its copies on the same members.
        for s in 1..8 {
            let members: Vec<usize> = placement
                .layout
                .copies_at(b * 8 + s)
                .iter()
                .map(|c| c.0)
                .collect();
            let want: Vec<usize> = copies.iter().map(|c| c.member).collect();
            assert_eq!(members, want, "block {b} sector {s}");
        }
    }
}

#[test]
fn without_reliable_a_failure_loses_the_share_and_refuses_its_reads() {
    let mut m = array(false, IntraForm::Simulation);
    let on = |m: &Mirror, d: usize| {
        (0..m.blocks())
            .step_by(997)
            .find(|&b| m.copies(b).iter().all(|c| c.member == d))
            .expect("a block on the member")
    };
    let (lost, kept) = (on(&m, 0), on(&m, 1));
    let data = crate::store::block_from(b"intra");
    m.batch(
        &[
            MirrorOp::Write(lost, data.clone()),
            MirrorOp::Write(kept, data.clone()),
        ],
        None,
    )
    .expect("write");
    m.fail_disk(0).expect("fail");
    assert!(
        m.batch(&[MirrorOp::Read(lost)], None).is_err(),
        "a block whose every copy was on the failed drive is refused"
    );
    let out = m.batch(&[MirrorOp::Read(kept)], None).expect("read");
    assert_eq!(out.reads[0], Some(data));
    assert!(m.replace_and_rebuild(0).is_err(), "nothing to rebuild from");
}

#[test]
fn a_reliable_intra_needs_two_drives() {
    let p = preset("st34502lw").expect("preset");
    let err = BlockPlacement::new(intra_2x2(true, IntraForm::Simulation), &p, 1, 3)
        .err()
        .expect("refused");
    assert!(err.contains("at least 2 members"), "{err}");
    // A shape that cannot work is refused for what it is, not for the copies' room.
    let mut org = intra_2x2(true, IntraForm::Simulation);
    if let Organization::Intra { rotational, .. } = &mut org {
        *rotational = 7;
    }
    let err = BlockPlacement::new(org, &p, 4, 3).err().expect("refused");
    assert!(err.contains("rotational replicas must be within"), "{err}");
}

#[test]
fn no_two_copies_share_a_sector() {
    // Three windows of consecutive blocks (the volume's start, middle and end): every
    // sector of every copy is a distinct sector of its member.
    // wd-re3 numbers its tracks in bands of cylinders, surface by surface: a
    // cylinder's head-0 track comes before the other heads' tracks of the cylinders
    // just below it, so the copies' region must start past all of them.
    for (disk, form) in [
        ("st34502lw", IntraForm::Simulation),
        ("st34502lw", IntraForm::Prototype),
        ("wd-re3", IntraForm::Simulation),
    ] {
        let p = preset(disk).expect("preset");
        let placement = BlockPlacement::new(intra_2x2(true, form), &p, 4, 3).expect("placement");
        let n = placement.blocks();
        let mut used = std::collections::HashSet::new();
        for start in [0, n / 2, n - 3_000] {
            for b in start..start + 3_000 {
                for s in 0..8 {
                    for (m, l, _) in placement.layout.copies_at(b * 8 + s) {
                        assert!(
                            used.insert((m, l)),
                            "{disk} {form:?}: member {m} sector {l} twice"
                        );
                    }
                }
            }
        }
    }
}
