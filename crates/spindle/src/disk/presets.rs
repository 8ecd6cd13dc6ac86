//! Built-in drives.
