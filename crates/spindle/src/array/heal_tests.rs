//! Healing of RAID-4 rows that hold more faults than parity repairs (`Raid4::heal`):
//! such a row is settled (its unprovable blocks pinned and refused, its parity
//! recomputed), a refused block reads back right once it is written again, and the
//! row repairs a later single fault again.

use super::layout::data_block;
use super::*;
use crate::disk::presets::preset;
use crate::store::{block_from, Block};

/// A 4+1 group with a stripe unit of 16 blocks: volume blocks 5, 21, 37 and 53 are
/// row 5 of members 0-3; member 4 holds its parity.
fn array(heal: bool) -> Raid4 {
    let cfg = Raid4Config {
        data_disks: 4,
        stripe_unit_blocks: 16,
        ..Raid4Config::default()
    };
    let mut a = Raid4::new(preset("wd-re3").expect("preset"), cfg).expect("array");
    a.heal = heal;
    a
}

const ROW: u64 = 5;
const ROW_BLOCKS: [u64; 4] = [5, 21, 37, 53];

fn bytes(tag: u8) -> Block {
    block_from(&[tag; 200])
}

/// Writes the row's four blocks and returns what they hold.
fn fill_row(a: &mut Raid4) -> Vec<(u64, Block)> {
    let w: Vec<(u64, Block)> = ROW_BLOCKS
        .iter()
        .enumerate()
        .map(|(i, &v)| (v, bytes(i as u8 + 1)))
        .collect();
    a.write_batch(&w).expect("write");
    w
}

/// Flips a bit of the stored data of member `disk` in the row.
fn flip(a: &mut Raid4, disk: usize) {
    assert!(a.inject_bit_flip(disk, data_block(ROW), 77));
}

fn read(a: &mut Raid4, v: u64) -> Result<Block, ArrayError> {
    let (mut out, _) = a.read_batch(&[v]).expect("in range");
    out.remove(0)
}

/// Two bad data blocks in one row: both refused. Writing one of them again heals it
/// (without healing the write itself is refused); the other stays refused until it
/// is written too; and once the row is settled a third fault in it is repaired.
#[test]
fn a_refused_block_reads_back_right_after_it_is_written_again() {
    let mut plain = array(false);
    fill_row(&mut plain);
    flip(&mut plain, 0);
    flip(&mut plain, 1);
    assert!(
        plain.write_batch(&[(5, bytes(9))]).is_err(),
        "without healing a write into a row with two faults is refused"
    );

    let mut a = array(true);
    let w = fill_row(&mut a);
    flip(&mut a, 0);
    flip(&mut a, 1);
    assert!(read(&mut a, 5).is_err());
    assert!(read(&mut a, 21).is_err());
    // The row's good blocks still read right.
    assert_eq!(read(&mut a, 37).expect("good block"), w[2].1);
    a.write_batch(&[(5, bytes(9))])
        .expect("the rewrite heals the block");
    assert_eq!(read(&mut a, 5).expect("healed"), bytes(9));
    assert!(
        read(&mut a, 21).is_err(),
        "the other bad block stays refused"
    );
    assert_eq!(a.settlements().rows, 1);
    // The row is consistent again: a new fault in it is repaired from parity.
    flip(&mut a, 3);
    assert_eq!(read(&mut a, 53).expect("repaired"), w[3].1);
    a.write_batch(&[(21, bytes(10))]).expect("rewrite");
    assert_eq!(read(&mut a, 21).expect("healed"), bytes(10));
    assert_eq!(a.lost_blocks(), 0);
    assert_eq!(a.settlements().blocks_rewritten, 2);
    // Parity is right: every data block rebuilds from it.
    for (d, want) in [(0, bytes(9)), (1, bytes(10)), (2, w[2].1.clone())] {
        flip(&mut a, d);
        assert_eq!(read(&mut a, ROW_BLOCKS[d]).expect("rebuilt"), want);
    }
}

/// A scrub repairs a row with one fault in place (the member's bytes are right again)
/// and settles a row with two, after which a third fault there is repaired too.
#[test]
fn a_scrub_repairs_a_row_with_one_fault_and_settles_one_with_two() {
    let mut a = array(true);
    let w = fill_row(&mut a);
    let good = a.member_store_mut(2).expect("member").read(data_block(ROW));
    flip(&mut a, 2);
    let (errors, rep) = a.scrub().expect("scrub");
    assert!(errors.is_empty(), "{errors:?}");
    assert!(rep.repairs >= 1, "{rep:?}");
    let now = a.member_store_mut(2).expect("member").read(data_block(ROW));
    assert!(now == good, "the scrub rewrote the damaged block");
    assert_eq!(a.settlements().rows, 0, "one fault needs no settling");

    // Two faults: flipped data blocks on two members. (A zeroed checksum block with
    // one flipped data block is repaired: the block with the bad metadata is tried
    // against the other's intact entry.)
    flip(&mut a, 0);
    flip(&mut a, 1);
    let (errors, _) = a.scrub().expect("scrub");
    assert!(
        errors.is_empty(),
        "settled rows are not unrecoverable: {errors:?}"
    );
    let s = a.settlements();
    assert_eq!((s.rows, s.blocks_lost), (1, 2), "{s:?}");
    assert!(read(&mut a, 5).is_err());
    assert!(read(&mut a, 21).is_err());
    assert_eq!(read(&mut a, 37).expect("good"), w[2].1);
    flip(&mut a, 3);
    let (errors, rep) = a.scrub().expect("scrub");
    assert!(errors.is_empty() && rep.repairs >= 1, "{errors:?} {rep:?}");
    assert_eq!(read(&mut a, 53).expect("repaired after settling"), w[3].1);
    let (_, rep) = a.scrub().expect("scrub");
    assert_eq!(rep.detections, 0, "a second scrub finds nothing");
}

/// Issue 16's stale row (an update's data and parity writes both lost: the row is
/// consistent at the older version) is settled with the block refused, never
/// returned at its older version, and reads back right once written again.
#[test]
fn a_stale_row_is_settled_refused_and_healed_by_a_rewrite() {
    let mut a = array(true);
    a.write_batch(&[(5, bytes(1))]).expect("first");
    let store =
        |a: &mut Raid4, d: usize| a.member_store_mut(d).expect("member").read(data_block(ROW));
    let (d0, p0) = (store(&mut a, 0), store(&mut a, 4));
    a.write_batch(&[(5, bytes(2))]).expect("update");
    a.member_store_mut(0)
        .expect("m")
        .write(data_block(ROW), &d0);
    a.member_store_mut(4)
        .expect("m")
        .write(data_block(ROW), &p0);
    for _ in 0..2 {
        assert!(read(&mut a, 5).is_err(), "the older version is refused");
        a.scrub().expect("scrub");
    }
    assert_eq!(a.settlements().rows, 1);
    a.write_batch(&[(5, bytes(3))]).expect("rewrite");
    assert_eq!(read(&mut a, 5).expect("healed"), bytes(3));
    flip(&mut a, 0);
    assert_eq!(
        read(&mut a, 5).expect("rebuilt from the recomputed parity"),
        bytes(3)
    );
}

/// With a member down a row cannot be settled (the missing block is defined by the
/// others): the write is refused, never guessed, and the row settles once rebuilt.
#[test]
fn a_degraded_row_is_not_settled_until_rebuilt() {
    let mut a = array(true);
    let w = fill_row(&mut a);
    flip(&mut a, 0);
    a.fail_disk(2).expect("fail");
    assert!(read(&mut a, 5).is_err());
    assert!(
        read(&mut a, 37).is_err(),
        "member 2's block needs member 0's"
    );
    assert!(a.write_batch(&[(5, bytes(9))]).is_err());
    assert_eq!(a.settlements().rows, 0);
    a.replace_disk(2).expect("replace");
    while !a.rebuild_step(64).expect("rebuild") {}
    a.write_batch(&[(5, bytes(9))])
        .expect("settled, then written");
    assert_eq!(read(&mut a, 5).expect("healed"), bytes(9));
    assert!(read(&mut a, 37).is_err(), "lost with the failed member");
    assert_eq!(read(&mut a, 21).expect("good"), w[1].1);
}
