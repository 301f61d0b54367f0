//! The single integration-test binary of the workspace: one module per topic.

mod certificates;
mod common;
mod compact;
mod extraction;
mod mcgs;
mod movegen_agreement;
mod perft;
mod shard_tamper;
mod shards;
mod tamper;
mod testdata;
