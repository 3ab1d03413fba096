//! Suites: the orchestrations behind truebench's commands (idle gate → tune → phases →
//! evidence → restore). Each suite is generic over the measurement it drives, so the
//! orchestration is tested on fixture roots with scripted measurements.

pub mod clocks;
mod clocks_limits;
pub mod clocks_session;
pub mod command;
pub mod efficiency;
pub mod governors;
pub mod idle;
pub mod interactivity;
pub mod io;
pub mod lock;
pub mod meter;
pub mod net;
pub mod per_cluster;
pub mod power;
pub mod progress;
pub mod review;
pub mod run;
pub mod score;
pub mod session;
pub mod sweep;
pub mod thermal;
