//! This crate's integration tests in one binary: one link instead of one per file, and the
//! files' tests share the test threads instead of running binary after binary.

mod convert_corpus;
mod corpus_sections;
mod import_clusters;
mod import_soc;
mod known_rules;
mod opp_limits;
mod results_md_agreement;
mod verdict_patterns;
