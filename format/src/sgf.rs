//! SGF game records in the Amazons convention (FF\[4\] GM\[18\]): reading and writing.
//!
//! # The convention
//!
//! - A point is two letters: the column (`a` = leftmost) and the row counted **from the
//!   top** (`a` = top row), so SGF rows run opposite to this project's ranks: on a board
//!   of height `h`, SGF row `r` (0-based) is rank `h - r`.
//! - A move is three points run together: from, to, arrow. `B[djddgd]` on 10x10 is
//!   `d1-d7xg7` here.
//! - `SZ[n]` is an n x n board, `SZ[w:h]` a rectangular one (default 10); this crate reads
//!   boards up to 10x10.
//! - `AB`, `AW` set up queens, `AE` empties points, `AA` sets up arrows; `PL` names the side
//!   to move.
//! - The default start (no setup in the root) is `AB[dj][gj][ag][jg]AW[da][ga][ad][jd]`,
//!   and `B` moves first.
//!
//! # Colours
//!
//! In that default start the side called `B` stands on d1, g1, a4 and j4 (the bottom)
//! and moves first: that is this project's **White**. So SGF's `B` is [`Color::White`]
//! and SGF's `W` is [`Color::Black`] throughout ([`sgf_letter`], [`color_of_letter`]).
//! Boards other than 10x10 without setup properties start from this project's
//! small-board start ([`Position::small_board_start`]), with `B` (White) to move.
//!
//! # Example
//!
//! ```
//! use amazons_format::{sgf, Color, Position};
//!
//! // The convention's own example, from its default 10x10 start.
//! let game = sgf::read_game("(;FF[4]GM[18];B[djddgd];W[addgad])").unwrap();
//! assert_eq!(game.setup, Position::standard_start());
//! let board = game.setup.board;
//! let (color, first) = game.moves[0];
//! assert_eq!((color, first.notation(board).as_str()), (Color::White, "d1-d7xg7"));
//! assert_eq!(sgf::move_value(board, first), "djddgd");
//! ```

use crate::board::{Board, Cell, Color, Move, Position, Square, MAX_SIDE};
use std::fmt::Write as _;

/// Nesting of variations deeper than this is refused (a guard against stack exhaustion).
pub const MAX_NESTING: usize = 1_000;

/// Why an SGF text could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SgfError {
    #[error("SGF syntax error at byte {offset}: {message}")]
    Syntax { offset: usize, message: String },
    #[error("no game tree in the SGF text")]
    Empty,
    #[error("GM[{0}] is not Amazons (GM[18])")]
    NotAmazons(String),
    #[error("bad SZ[{0}]: expected a side or width:height, each from 1 to 10")]
    BadSize(String),
    #[error("bad point [{point}] on a {board} board: two letters, column and row from the top, inside the board")]
    BadPoint { point: String, board: Board },
    #[error("bad move {color}[{value}]: expected three points (from, to, arrow), e.g. B[djddgd]")]
    BadMove { color: String, value: String },
    #[error("bad PL[{0}]: expected B or W")]
    BadPlayer(String),
    #[error("variations nested deeper than {MAX_NESTING} levels")]
    TooDeep,
    #[error("setup places more than one thing on {0}")]
    Conflict(String),
}

/// One node: its properties in order, each with its values (escapes removed).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Node {
    pub props: Vec<(String, Vec<String>)>,
}

impl Node {
    /// The values of a property (empty if absent).
    pub fn get<'a>(&'a self, id: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.props
            .iter()
            .filter(move |(k, _)| k == id)
            .flat_map(|(_, v)| v.iter().map(String::as_str))
    }

    /// Whether the node has the property.
    pub fn has(&self, id: &str) -> bool {
        self.props.iter().any(|(k, _)| k == id)
    }
}

/// A game tree: a sequence of nodes, then its variations.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GameTree {
    pub nodes: Vec<Node>,
    pub variations: Vec<GameTree>,
}

impl GameTree {
    /// The nodes of the main line (first variation at every branching).
    pub fn main_line(&self) -> Vec<&Node> {
        let mut out: Vec<&Node> = Vec::new();
        let mut tree = self;
        loop {
            out.extend(tree.nodes.iter());
            match tree.variations.first() {
                Some(next) => tree = next,
                None => return out,
            }
        }
    }
}

/// SGF's letter for a player of this project: White is `B`, Black is `W` (see the module
/// documentation).
pub fn sgf_letter(color: Color) -> &'static str {
    match color {
        Color::White => "B",
        Color::Black => "W",
    }
}

/// This project's player for an SGF colour letter (`B` or `W`, any case).
pub fn color_of_letter(letter: &str) -> Option<Color> {
    match letter.trim() {
        "B" | "b" => Some(Color::White),
        "W" | "w" => Some(Color::Black),
        _ => None,
    }
}

/// Parses an SGF collection and returns its first game tree.
pub fn parse(text: &str) -> Result<GameTree, SgfError> {
    let mut p = Parser {
        bytes: text.as_bytes(),
        at: 0,
    };
    p.skip_ws();
    if p.at >= p.bytes.len() {
        return Err(SgfError::Empty);
    }
    p.tree(0)
}

struct Parser<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Parser<'_> {
    fn err(&self, message: &str) -> SgfError {
        SgfError::Syntax {
            offset: self.at,
            message: message.to_string(),
        }
    }

    fn skip_ws(&mut self) {
        while self
            .bytes
            .get(self.at)
            .is_some_and(|b| b.is_ascii_whitespace())
        {
            self.at += 1;
        }
    }

    fn eat(&mut self, b: u8) -> bool {
        self.skip_ws();
        if self.bytes.get(self.at) == Some(&b) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn tree(&mut self, depth: usize) -> Result<GameTree, SgfError> {
        if depth > MAX_NESTING {
            return Err(SgfError::TooDeep);
        }
        if !self.eat(b'(') {
            return Err(self.err("expected '(' to open a game tree"));
        }
        let mut tree = GameTree::default();
        while self.eat(b';') {
            tree.nodes.push(self.node()?);
        }
        if tree.nodes.is_empty() {
            return Err(self.err("a game tree needs at least one node (';')"));
        }
        loop {
            self.skip_ws();
            match self.bytes.get(self.at) {
                Some(b'(') => tree.variations.push(self.tree(depth + 1)?),
                Some(b')') => {
                    self.at += 1;
                    return Ok(tree);
                }
                Some(_) => return Err(self.err("expected '(', ';' or ')'")),
                None => return Err(self.err("the game tree is not closed with ')'")),
            }
        }
    }

    fn node(&mut self) -> Result<Node, SgfError> {
        let mut node = Node::default();
        loop {
            self.skip_ws();
            let start = self.at;
            // FF[3] allowed lower-case letters inside identifiers; only the capitals count.
            while self
                .bytes
                .get(self.at)
                .is_some_and(|b| b.is_ascii_alphabetic())
            {
                self.at += 1;
            }
            if self.at == start {
                return Ok(node);
            }
            let id: String = self.bytes[start..self.at]
                .iter()
                .filter(|b| b.is_ascii_uppercase())
                .map(|&b| b as char)
                .collect();
            if id.is_empty() {
                return Err(self.err("a property name needs capital letters"));
            }
            let mut values = Vec::new();
            while self.eat(b'[') {
                values.push(self.value()?);
            }
            if values.is_empty() {
                return Err(self.err(&format!("property {id} has no value")));
            }
            node.props.push((id, values));
        }
    }

    fn value(&mut self) -> Result<String, SgfError> {
        let mut out = Vec::new();
        loop {
            match self.bytes.get(self.at) {
                None => return Err(self.err("a property value is not closed with ']'")),
                Some(b']') => {
                    self.at += 1;
                    return Ok(String::from_utf8_lossy(&out).into_owned());
                }
                Some(b'\\') => {
                    self.at += 1;
                    match self.bytes.get(self.at) {
                        None => return Err(self.err("a property value ends in '\\'")),
                        // A soft line break: escaped newline (and a CR/LF pair) vanishes.
                        Some(b'\n') | Some(b'\r') => {
                            let first = self.bytes[self.at];
                            self.at += 1;
                            let pair = if first == b'\n' { b'\r' } else { b'\n' };
                            if self.bytes.get(self.at) == Some(&pair) {
                                self.at += 1;
                            }
                        }
                        Some(&b) => {
                            out.push(b);
                            self.at += 1;
                        }
                    }
                }
                Some(&b) => {
                    out.push(b);
                    self.at += 1;
                }
            }
        }
    }
}

/// The board named by a root's `SZ` (10x10 if absent).
pub fn board_of(root: &Node) -> Result<Board, SgfError> {
    let Some(size) = root.get("SZ").next() else {
        return Ok(Board {
            width: 10,
            height: 10,
        });
    };
    let bad = || SgfError::BadSize(size.to_string());
    let side = |t: &str| -> Result<usize, SgfError> {
        let n: usize = t.trim().parse().map_err(|_| bad())?;
        if n == 0 || n > MAX_SIDE as usize {
            return Err(bad());
        }
        Ok(n)
    };
    let (w, h) = match size.split_once(':') {
        Some((w, h)) => (side(w)?, side(h)?),
        None => {
            let n = side(size)?;
            (n, n)
        }
    };
    Board::new(w, h).map_err(|_| bad())
}

/// The SGF point of a square: column letter, then row letter counted from the top.
pub fn point(board: Board, sq: Square) -> String {
    let (x, y) = board.coords(sq);
    let row = board.height as usize - 1 - y;
    format!("{}{}", letter(x), letter(row))
}

fn letter(i: usize) -> char {
    if i < 26 {
        (b'a' + i as u8) as char
    } else {
        (b'A' + (i - 26) as u8) as char
    }
}

fn index(c: u8) -> Option<usize> {
    match c {
        b'a'..=b'z' => Some((c - b'a') as usize),
        b'A'..=b'Z' => Some((c - b'A') as usize + 26),
        _ => None,
    }
}

/// Reads an SGF point (two letters) on `board`.
pub fn parse_point(board: Board, text: &str) -> Result<Square, SgfError> {
    let bad = || SgfError::BadPoint {
        point: text.to_string(),
        board,
    };
    let b = text.trim().as_bytes();
    if b.len() != 2 {
        return Err(bad());
    }
    let (x, row) = (index(b[0]).ok_or_else(bad)?, index(b[1]).ok_or_else(bad)?);
    if x >= board.width as usize || row >= board.height as usize {
        return Err(bad());
    }
    Ok(board.square(x, board.height as usize - 1 - row))
}

/// The SGF value of a move: from, to and arrow points run together.
pub fn move_value(board: Board, m: Move) -> String {
    format!(
        "{}{}{}",
        point(board, m.from),
        point(board, m.to),
        point(board, m.arrow)
    )
}

/// Reads a move value (six letters) on `board`; `color` names the property in errors.
pub fn parse_move(board: Board, color: &str, value: &str) -> Result<Move, SgfError> {
    let bad = || SgfError::BadMove {
        color: color.to_string(),
        value: value.to_string(),
    };
    let v = value.trim();
    if v.len() != 6 || !v.is_ascii() {
        return Err(bad());
    }
    let p = |i: usize| parse_point(board, &v[i..i + 2]).map_err(|_| bad());
    Ok(Move {
        from: p(0)?,
        to: p(2)?,
        arrow: p(4)?,
    })
}

/// A game read from SGF: the position after the root's setup, and the main line's moves
/// with the player of each (this project's colours). Legality is the caller's to check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Game {
    pub setup: Position,
    pub moves: Vec<(Color, Move)>,
}

/// Applies a node's setup properties (AB, AW, AE, AA, PL) to `pos`.
fn apply_setup(pos: &mut Position, node: &Node) -> Result<(), SgfError> {
    let board = pos.board;
    let mut placed = std::collections::HashSet::new();
    for (id, cell) in [
        ("AE", Cell::Empty),
        ("AB", Cell::White),
        ("AW", Cell::Black),
        ("AA", Cell::Arrow),
    ] {
        for value in node.get(id) {
            for sq in points(board, value)? {
                if cell != Cell::Empty && !placed.insert(sq) {
                    return Err(SgfError::Conflict(point(board, sq)));
                }
                pos.cells[sq as usize] = cell;
            }
        }
    }
    if let Some(pl) = node.get("PL").next() {
        pos.to_move = color_of_letter(pl).ok_or_else(|| SgfError::BadPlayer(pl.to_string()))?;
    }
    Ok(())
}

/// The squares of a point-list value: one point, or a compressed rectangle `ab:cd`.
fn points(board: Board, value: &str) -> Result<Vec<Square>, SgfError> {
    match value.split_once(':') {
        None => Ok(vec![parse_point(board, value)?]),
        Some((a, b)) => {
            let (a, b) = (parse_point(board, a)?, parse_point(board, b)?);
            let ((x0, y0), (x1, y1)) = (board.coords(a), board.coords(b));
            let mut out = Vec::new();
            for y in y0.min(y1)..=y0.max(y1) {
                for x in x0.min(x1)..=x0.max(x1) {
                    out.push(board.square(x, y));
                }
            }
            Ok(out)
        }
    }
}

/// Reads the first game of an SGF text: board, setup and the main line's moves.
pub fn read_game(text: &str) -> Result<Game, SgfError> {
    let tree = parse(text)?;
    let line = tree.main_line();
    let root = line.first().ok_or(SgfError::Empty)?;
    if let Some(gm) = root.get("GM").next() {
        if gm.trim() != "18" {
            return Err(SgfError::NotAmazons(gm.to_string()));
        }
    }
    let board = board_of(root)?;
    let has_setup = ["AB", "AW", "AE", "AA"].iter().any(|id| root.has(id));
    let mut setup = if has_setup {
        Position::empty(board, Color::White)
    } else if board.width == 10 && board.height == 10 {
        Position::standard_start()
    } else {
        Position::small_board_start(board).unwrap_or_else(|_| Position::empty(board, Color::White))
    };
    apply_setup(&mut setup, root)?;
    let mut moves = Vec::new();
    for node in &line {
        for id in ["B", "W"] {
            for value in node.get(id) {
                let color = color_of_letter(id).unwrap_or(Color::White);
                moves.push((color, parse_move(board, id, value)?));
            }
        }
    }
    Ok(Game { setup, moves })
}

/// A move of a tree to write, with its comment and the variations after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Variation {
    pub color: Color,
    pub mv: Move,
    pub comment: Option<String>,
    pub children: Vec<Variation>,
}

/// Escapes a text value (`]` and `\`).
fn escape(text: &str) -> String {
    text.replace('\\', "\\\\").replace(']', "\\]")
}

/// Writes a game tree: a root node with FF, GM, SZ, the setup of `setup` (AB, AW, AA and
/// PL) and `comment`, then the variations. One child continues the sequence; several
/// become parenthesised variations.
pub fn write(setup: &Position, comment: &str, children: &[Variation]) -> String {
    let board = setup.board;
    let mut out = String::new();
    let size = if board.width == board.height {
        board.width.to_string()
    } else {
        format!("{}:{}", board.width, board.height)
    };
    let _ = write!(
        out,
        "(;FF[4]GM[18]SZ[{size}]AP[amazons:{}]",
        env!("CARGO_PKG_VERSION")
    );
    for (id, cell) in [
        ("AB", Cell::White),
        ("AW", Cell::Black),
        ("AA", Cell::Arrow),
    ] {
        let list: Vec<String> = (0..board.len())
            .filter(|&sq| setup.cells.get(sq) == Some(&cell))
            .map(|sq| format!("[{}]", point(board, sq as Square)))
            .collect();
        if !list.is_empty() {
            let _ = write!(out, "{id}{}", list.concat());
        }
    }
    let _ = write!(out, "PL[{}]", sgf_letter(setup.to_move));
    if !comment.is_empty() {
        let _ = write!(out, "C[{}]", escape(comment));
    }
    write_children(&mut out, board, children);
    out.push_str(")\n");
    out
}

fn write_children(out: &mut String, board: Board, children: &[Variation]) {
    let one = |out: &mut String, v: &Variation| {
        let _ = write!(out, ";{}[{}]", sgf_letter(v.color), move_value(board, v.mv));
        if let Some(c) = &v.comment {
            let _ = write!(out, "C[{}]", escape(c));
        }
        write_children(out, board, &v.children);
    };
    match children {
        [] => {}
        [only] => {
            out.push('\n');
            one(out, only)
        }
        many => {
            for v in many {
                out.push_str("\n(");
                one(out, v);
                out.push(')');
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_conventions_example_reads_as_expected() {
        // The convention's example moves from its default start.
        let g = read_game("(;FF[4]GM[18];B[djddgd];W[addgad];B[gjehea])").expect("reads");
        assert_eq!(g.setup, Position::standard_start());
        let b = g.setup.board;
        let text: Vec<String> = g.moves.iter().map(|(_, m)| m.notation(b)).collect();
        assert_eq!(text, ["d1-d7xg7", "a7-d4xa7", "g1-e3xe10"]);
        let colors: Vec<Color> = g.moves.iter().map(|(c, _)| *c).collect();
        assert_eq!(colors, [Color::White, Color::Black, Color::White]);
    }

    #[test]
    fn the_default_start_puts_b_on_this_projects_white_squares() {
        let start = Position::standard_start();
        let b = start.board;
        let mut sgf = Position::empty(b, Color::White);
        let tree = parse("(;AB[dj][gj][ag][jg]AW[da][ga][ad][jd])").expect("parses");
        apply_setup(&mut sgf, &tree.nodes[0]).expect("setup");
        assert_eq!(sgf, start);
    }

    #[test]
    fn points_round_trip_and_rows_count_from_the_top() {
        let b = Board::new(5, 4).expect("board");
        assert_eq!(point(b, b.parse_square("a4").expect("sq")), "aa");
        assert_eq!(point(b, b.parse_square("e1").expect("sq")), "ed");
        for sq in 0..b.len() as Square {
            assert_eq!(parse_point(b, &point(b, sq)), Ok(sq));
        }
        assert!(parse_point(b, "fa").is_err());
        assert!(parse_point(b, "ae").is_err());
    }

    #[test]
    fn written_trees_read_back() {
        let start = Position::small_board_start(Board::new(5, 4).expect("board")).expect("start");
        let b = start.board;
        let m = Move::parse(b, "b1-b2xd2").expect("move");
        let r = Move::parse(b, "d4-c3xc4").expect("move");
        let tree = vec![Variation {
            color: Color::White,
            mv: m,
            comment: Some("proof's move [x]".into()),
            children: vec![
                Variation {
                    color: Color::Black,
                    mv: r,
                    comment: None,
                    children: vec![],
                },
                Variation {
                    color: Color::Black,
                    mv: Move::parse(b, "a3-b3xc2").expect("move"),
                    comment: None,
                    children: vec![],
                },
            ],
        }];
        let text = write(&start, "a \\ comment", &tree);
        assert!(text.contains("SZ[5:4]"), "{text}");
        let g = read_game(&text).expect("reads back");
        assert_eq!(g.setup, start);
        assert_eq!(g.moves, vec![(Color::White, m), (Color::Black, r)]);
        let parsed = parse(&text).expect("parses");
        assert_eq!(parsed.nodes[0].get("C").next(), Some("a \\ comment"));
        assert_eq!(parsed.variations.len(), 2);
    }

    #[test]
    fn bad_texts_are_typed_errors() {
        assert_eq!(parse(""), Err(SgfError::Empty));
        assert!(matches!(parse("(;B[aa"), Err(SgfError::Syntax { .. })));
        assert!(matches!(parse("(;B[aa]"), Err(SgfError::Syntax { .. })));
        assert!(matches!(
            read_game("(;GM[1])"),
            Err(SgfError::NotAmazons(_))
        ));
        assert!(matches!(read_game("(;SZ[11])"), Err(SgfError::BadSize(_))));
        assert!(matches!(read_game("(;SZ[5:0])"), Err(SgfError::BadSize(_))));
        assert!(matches!(
            read_game("(;SZ[4];B[aabb])"),
            Err(SgfError::BadMove { .. })
        ));
        assert!(matches!(
            read_game("(;SZ[4]AA[zz])"),
            Err(SgfError::BadPoint { .. })
        ));
        assert!(matches!(
            read_game("(;SZ[4]AB[aa]AW[aa])"),
            Err(SgfError::Conflict(_))
        ));
        let deep = "(;".to_string() + &"(;".repeat(MAX_NESTING + 5);
        assert_eq!(parse(&deep), Err(SgfError::TooDeep));
    }
}
