//! Tests of how far a split task has got, read from its directory alone (`split_progress`, for `amazons index`).

use super::tests::{black_to_move, legal_moves, small_table, tempdir};
use super::*;

#[test]
fn split_progress_counts_the_shards_of_the_list_a_split_works_on_level_by_level() {
    let (p, losing, winning) = black_to_move();
    let opts = small_table();
    let dir = tempdir("levels");
    assert!(split_progress(&dir, "t", &p).is_empty(), "never split");
    let mut order = vec![winning, losing];
    order.extend(
        legal_moves(&p)
            .into_iter()
            .filter(|&m| m != winning && m != losing),
    );
    record_split(&dir, "t", &p, &order, true);
    // The list: the replies to the guess, the best move of the ranking.
    let sub = Plan::new(&p, Some(winning)).expect("plan").prefixed("t");
    let replies: Vec<&Task> = sub.unique().collect();
    assert!(replies.len() >= 4, "{}", replies.len());
    assert_eq!(split_progress(&dir, "t", &p), vec![(0, replies.len())]);
    for t in &replies[..2] {
        split::solve_position(&dir, &t.position, &t.name, &p, &opts, false).expect("solved");
    }
    // A damaged file does not count, nor does a shard of another position.
    let shards = dir.join("shards");
    std::fs::write(shard_file(&dir, &replies[2].name), b"not a shard").expect("write");
    std::fs::copy(
        shard_file(&dir, &replies[0].name),
        shards.join(format!("{}.cert", replies[3].name)),
    )
    .expect("copy");
    assert_eq!(split_progress(&dir, "t", &p), vec![(2, replies.len())]);
    // An open reply split itself (leaning the other way: every move a subtask) adds a level.
    let deeper = replies[4.min(replies.len() - 1)];
    record_split(
        &dir,
        &deeper.name,
        &deeper.position,
        &legal_moves(&deeper.position),
        false,
    );
    let every = Plan::new(&deeper.position, None)
        .expect("plan")
        .unique()
        .count();
    assert_eq!(
        split_progress(&dir, "t", &p),
        vec![(2, replies.len()), (0, every)]
    );
    // Three guesses refuted: every move of the task is a subtask, none with a shard yet.
    for &m in &order[..GUESSES] {
        record_refuted(&dir, "t", &p, m);
    }
    let moves = Plan::new(&p, None).expect("plan").unique().count();
    assert_ne!(moves, replies.len());
    assert_eq!(split_progress(&dir, "t", &p), vec![(0, moves)]);
    // A new ranking that leans to the side to move: the replies to its guess again.
    record_split(&dir, "t", &p, &order, true);
    assert_eq!(split_progress(&dir, "t", &p)[0], (2, replies.len()));
    let _ = std::fs::remove_dir_all(&dir);
}
