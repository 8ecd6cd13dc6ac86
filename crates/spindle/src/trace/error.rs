//! The one error type of every trace reader.

/// Where in a trace file a problem is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Position {
    /// The file as a whole (it could not be read, or a header is missing).
    File,
    /// A 1-based line of a text trace.
    Line(usize),
    /// A record of a binary trace: its 1-based number and the byte offset of its first
    /// byte in the file.
    Record { number: usize, offset: usize },
}

impl std::fmt::Display for Position {
    /// Rendered with its leading colon so that `File` adds nothing: `f:12`, `f:record 3
    /// (byte 2260)`, `f`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Position::File => Ok(()),
            Position::Line(line) => write!(f, ":{line}"),
            Position::Record { number, offset } => write!(f, ":record {number} (byte {offset})"),
        }
    }
}

/// A trace that could not be read or parsed: `"{file}:{line}: {msg}"` where `msg` names
/// the field and what was found in it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{file}{at}: {msg}")]
pub struct TraceError {
    pub file: String,
    pub at: Position,
    pub msg: String,
}

impl TraceError {
    pub(crate) fn file(file: &str, msg: impl Into<String>) -> TraceError {
        TraceError {
            file: file.to_string(),
            at: Position::File,
            msg: msg.into(),
        }
    }

    pub(crate) fn line(file: &str, line: usize, msg: impl Into<String>) -> TraceError {
        TraceError {
            file: file.to_string(),
            at: Position::Line(line),
            msg: msg.into(),
        }
    }

    /// The 1-based line, for errors tied to a line of a text trace.
    pub fn line_number(&self) -> Option<usize> {
        match self.at {
            Position::Line(line) => Some(line),
            _ => None,
        }
    }
}

impl From<crate::validate::trace::TraceError> for TraceError {
    /// The validate reader reports line 0 for problems not tied to a line.
    fn from(e: crate::validate::trace::TraceError) -> TraceError {
        TraceError {
            file: e.file,
            at: match e.line {
                0 => Position::File,
                line => Position::Line(line),
            },
            msg: e.msg,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display() {
        assert_eq!(TraceError::line("a.csv", 3, "m").to_string(), "a.csv:3: m");
        assert_eq!(TraceError::file("a.csv", "m").to_string(), "a.csv: m");
        let e = TraceError {
            file: "x.srt".into(),
            at: Position::Record {
                number: 2,
                offset: 2260,
            },
            msg: "m".into(),
        };
        assert_eq!(e.to_string(), "x.srt:record 2 (byte 2260): m");
    }
}
