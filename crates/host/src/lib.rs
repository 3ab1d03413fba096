//! Read-only view of one Linux machine, rooted at a directory: the `Host` reader, pure
//! parsers, knowledge tables compiled in as data, and the `Inventory` they yield.

pub mod cpuidle;
pub mod devices;
pub mod host;
pub mod parse;
pub mod procfs;

pub use host::{
    file_kind, open_if_present, open_regular, read_if_present, read_regular, FsSpace, Host,
    ReadError,
};
pub mod inventory;
pub mod irq;
pub mod kernel;
pub mod knowledge;
pub mod opp;
pub mod review;
pub mod soc;

pub use inventory::Inventory;
