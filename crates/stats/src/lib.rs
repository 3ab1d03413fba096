//! The statistics every truebench crate uses, each with one definition:
//!
//! - **median**: the middle value; for an even count the average of the two middle values
//!   ([`median`]; of integers — nanoseconds, loop counts — the average rounded down);
//! - **percentile** `p` (0…100): nearest rank — the smallest value such that at least `p` %
//!   of the values are at or below it, i.e. the ⌈p·n/100⌉-th smallest (the first for
//!   `p` = 0). Always a value that was measured. This is also what hdrhistogram's
//!   `value_at_quantile` gives, so the percentiles of the histograms (the periodic engine's
//!   latencies and slacks) and of plain lists mean the same thing. For an even count the
//!   50th percentile is the lower middle value, not the median ([`percentile`],
//!   [`nearest_rank`], [`weighted_percentile`] where each value counts for its weight, e.g.
//!   the seconds a clock was held);
//! - **range**: largest − smallest, from two values on; **spread**: the range as a
//!   percentage of the median ([`range`], [`spread_pct`]);
//! - **sample standard deviation** (n − 1), from two values on ([`sample_sd`], and
//!   [`Moments`] for a running one that keeps no values);
//! - **rank correlation**: Spearman's, ties sharing their mean rank ([`rank_correlation`]);
//! - **a mean's 95 % interval** where consecutive values are correlated: batch means with
//!   Student's t ([`batch_mean_interval`]); a **trend**: the least-squares slope with its
//!   standard error ([`slope`]).
//!
//! NaN is no value: every function here ignores NaN inputs (a list of only NaN is empty).
//! Infinities are ordinary values, ordered as `f64::total_cmp` orders them. An empty list
//! gives `None`, never a made-up 0.

mod correlation;
mod interval;
mod moments;
mod order;

pub use correlation::rank_correlation;
pub use interval::{batch_mean_interval, slope, t95, MeanInterval};
pub use moments::{mean, sample_sd, Moments};
pub use order::{
    median, nearest_rank, percentile, range, spread_pct, weighted_percentile, Sorted, Value,
};
