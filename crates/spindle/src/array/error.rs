//! What can go wrong on an array that stores bytes: bad requests, failed members,
//! unrecoverable rows, and breaches of the simulation's own invariants.

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ArrayError {
    #[error("disk model: {0}")]
    Disk(String),
    #[error("{disk}: a member's {data_blocks} data blocks (its blocks less their checksum blocks) hold no whole stripe unit of {unit_blocks}")]
    StripeUnitTooLarge {
        disk: String,
        data_blocks: u64,
        unit_blocks: u64,
    },
    #[error("volume block {block} is outside the volume ({blocks} blocks)")]
    OutOfRange { block: u64, blocks: u64 },
    #[error("member {0} does not exist")]
    NoSuchMember(usize),
    #[error("member {0} has already failed")]
    AlreadyFailed(usize),
    #[error("member {0} has not failed: nothing to rebuild")]
    NothingToRebuild(usize),
    #[error("second failure: member {second} failed while member {first} was down; rows that need both are lost")]
    DoubleFailure { first: usize, second: usize },
    #[error("stripe row {row}: {why}; the data cannot be recovered")]
    Unrecoverable { row: u64, why: String },
    #[error("a write without bytes on an array that stores real bytes")]
    BytesRequired,
    /// A breach of the simulation's own invariants (a bug, not bad input): the
    /// operation stopped and the run must not be trusted.
    #[error("internal error: {0}")]
    Internal(String),
    /// Asked to stop from outside ([`crate::interrupt`]).
    #[error("{}", crate::interrupt::MESSAGE)]
    Interrupted,
}

impl ArrayError {
    /// Passes a data error (a row that cannot be recovered: the caller's to report
    /// per block) and returns an internal error as `Err`, to stop the operation.
    pub(crate) fn internal(self) -> Result<ArrayError, ArrayError> {
        match self {
            ArrayError::Internal(_) => Err(self),
            e => Ok(e),
        }
    }
}
