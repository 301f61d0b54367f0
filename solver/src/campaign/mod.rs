//! A campaign that runs itself: table sizing, node-budget ladder, task order, decision log, directory safety and status.
//!
//! These are the rules a sharded solve ([`crate::shard`]) follows when nobody picks a
//! table size, a node budget or a guess by hand: [`memory`] sizes the table from the
//! machine's free memory, [`ladder`] solves each task whole with growing budgets before
//! it is split, [`order`] ranks the tasks once for all runs, [`decisions`] records every
//! such choice in `DIR/decisions.tsv`, [`safety`] refuses a directory of another plan and
//! moves damaged shards aside, and [`status`] gives the figures of a campaign in progress.

pub mod decisions;
pub mod ladder;
pub mod memory;
pub mod order;
pub mod safety;
pub mod status;
