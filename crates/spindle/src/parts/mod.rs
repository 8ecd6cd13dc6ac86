//! The parts every stack and array is built from: a drive as a sans-IO device
//! ([`drive_node`]) and the host queue in front of a device ([`queue`], which finds
//! the requests a new one overlaps by an [`overlap`] index). Arrays
//! ([`crate::array`]) and the stack's tree ([`crate::stack`]) put them together.

pub mod drive_node;
pub mod overlap;
pub mod queue;
