//! The text report of `amazons value`: value, thermograph, temperature, mean, stops, class, outcome and bounds.

use amazons_cgt::{Bound, BoundKind, CgtError, Class, GameStore, InfKind, Outcome};
use amazons_format::Position;
use std::fmt::Write as _;

/// Class in words.
pub fn class_name(c: &Class) -> String {
    let inf = |k: &InfKind| match k {
        InfKind::Zero => "zero",
        InfKind::Positive => "positive",
        InfKind::Negative => "negative",
        InfKind::Fuzzy => "fuzzy",
    };
    match c {
        Class::Number(x) => format!("number {x}"),
        Class::Star => "star (*)".into(),
        Class::Infinitesimal(k) => format!("infinitesimal ({})", inf(k)),
        Class::Tepid(x, k) => format!("number {x} plus a {} infinitesimal", inf(k)),
        Class::Hot => "hot".into(),
    }
}

fn outcome_words(o: Outcome) -> &'static str {
    match o {
        Outcome::L => "L (Black wins whoever starts)",
        Outcome::R => "R (White wins whoever starts)",
        Outcome::P => "P (the second player wins)",
        Outcome::N => "N (the first player wins)",
    }
}

fn bound_text(b: &Bound, lower: bool) -> String {
    match (b.kind, lower) {
        (BoundKind::Plain, true) => format!("[{}", b.value),
        (BoundKind::Plain, false) => format!("{}]", b.value),
        (BoundKind::Tightened, true) => format!("({}", b.value),
        (BoundKind::Tightened, false) => format!("{})", b.value),
        (BoundKind::Relaxed, true) => format!("[{}-e", b.value),
        (BoundKind::Relaxed, false) => format!("{}+e]", b.value),
    }
}

/// The report of `amazons value --position GRID`, with the default follower limit.
pub fn value_report(position: &Position) -> Result<String, CgtError> {
    value_report_with_limit(position, amazons_cgt::DEFAULT_FOLLOWER_LIMIT)
}

/// The report of `amazons value`: canonical value, thermograph points (`L: (x, t) ...`,
/// `R: ...`), temperature, mean, stops, class, outcome and bounds of the position's areas
/// (all of them together, Left = Black). Fails if evaluating it needs more than `limit`
/// positions.
pub fn value_report_with_limit(position: &Position, limit: usize) -> Result<String, CgtError> {
    let mut store = GameStore::new();
    let g = store.value_of_area_with_limit(position, limit)?;
    let th = store.thermograph(g);
    let class = store.classify(g);
    let outcome = store.outcome(g);
    let exact = store.bounds(g);
    let paper = th.bounds();
    let mut s = String::new();
    let _ = writeln!(s, "position: {}", position.grid());
    let _ = writeln!(s, "value: {}", store.display(g));
    let _ = writeln!(s, "thermograph:");
    let _ = writeln!(s, "{}", th.point_string());
    let _ = writeln!(s, "temperature: {}", th.temperature());
    let _ = writeln!(s, "mean: {}", th.mast_value());
    let _ = writeln!(s, "left stop: {}", th.left_stop());
    let _ = writeln!(s, "right stop: {}", th.right_stop());
    let _ = writeln!(s, "class: {}", class_name(&class));
    let _ = writeln!(s, "outcome: {}", outcome_words(outcome));
    let _ = writeln!(
        s,
        "bounds (thermograph): {}, {}",
        bound_text(&paper.0, true),
        bound_text(&paper.1, false)
    );
    let _ = writeln!(
        s,
        "bounds (exact): {}, {}",
        bound_text(&exact.0, true),
        bound_text(&exact.1, false)
    );
    Ok(s)
}
