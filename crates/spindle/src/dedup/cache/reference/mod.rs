//! The content cache as it was before its metadata was compacted (u64 epochs, a
//! separate chain-link vector, a sector count per content): the reference the compact
//! structure must match operation for operation. Tests only.
#![allow(dead_code)]

mod cache;
mod replace;
mod table;

pub use cache::ContentCache;
