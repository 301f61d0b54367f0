//! The errors of this crate.

/// Errors of this crate.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CgtError {
    /// A game string could not be parsed.
    #[error("cannot parse game {text:?}: {reason}")]
    Parse { text: String, reason: String },
    /// A thermograph string could not be parsed.
    #[error("cannot parse thermograph: {0}")]
    ThermographParse(String),
    /// The area has more followers than the limit allows.
    #[error("area too complex: more than {limit} followers")]
    TooComplex { limit: usize },
    /// The position is not valid (cells do not match the board).
    #[error("invalid position: {0}")]
    InvalidPosition(String),
}
