//! Sharded campaigns: a root split into shards, a manifest over them, the rules of a campaign that runs itself, the verified-shard cache and pruning.
//!
//! [`shard`] splits a root position into tasks and solves each into its own certificate
//! plus a manifest (SPEC 5.7), resumable and parallel. When nobody picks a table size, a
//! node budget or a guess by hand, a sharded solve follows these rules: [`memory`] sizes
//! the table from the machine's free memory, [`ladder`] solves each task whole with
//! growing budgets before it is split, [`order`] ranks the tasks once for all runs,
//! [`decisions`] records every such choice in `DIR/decisions.tsv`, [`safety`] refuses a
//! directory of another plan and moves damaged shards aside, and [`status`] gives the
//! figures of a campaign in progress, and [`sample`] measures a campaign's difficulty
//! on a seeded sample of its tasks before it starts. [`index`] checks a directory of results and
//! campaigns into the tables of `index.md`. [`verified`] remembers the shards already checked,
//! [`prune`] finds the shards a finished manifest does not need, and [`shrink`] re-solves
//! the largest finished shards with another df-pn number rule and keeps the smaller ones.

pub mod decisions;
pub mod index;
pub mod ladder;
pub mod memory;
pub mod order;
pub mod prune;
pub mod safety;
pub mod sample;
pub mod shard;
pub mod shrink;
pub mod status;
pub mod verified;
