//! The hard-disk model: geometry ([`geometry`]), seek curves ([`seek`]), the parameter
//! set ([`params`]), the mechanism with its controller and cache ([`hdd`]), the
//! firmware command queue ([`drive`]), the built-in drives ([`presets`]), DiskSim's
//! disk parameter files ([`parv`]) and a calibrated drive's measured corrections
//! ([`residual`], [`buffer_residual`]).

pub mod altered;
pub mod buffer_residual;
pub mod bus;
pub mod busy;
pub mod drive;
pub mod geometry;
pub mod hdd;
pub mod params;
pub mod parv;
pub mod presets;
pub mod residual;
pub mod rotation;
pub mod seek;

pub use drive::Drive;
pub use geometry::{
    Geometry, GeometrySpec, Location, Pbn, Sparing, TrackOrder, TrackRun, ZoneSpec,
};
pub use hdd::{Breakdown, Completion, Hdd, HostView, Request};
pub use params::{Cache, Controller, DiskParams, Firmware, FirmwarePolicy, Mechanics, ReadAhead};
pub use seek::SeekCurve;
