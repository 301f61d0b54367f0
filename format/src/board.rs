//! Boards, squares, cells, moves and positions, with their text notation.
//!
//! Squares are numbered `y * width + x` with `x` the file (a = 0) and `y` the rank
//! (1 = 0). Every board from 1x1 to 10x10 is representable.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The largest board side supported (10x10 is the tournament board).
pub const MAX_SIDE: u8 = 10;

/// A square index `y * width + x`.
pub type Square = u8;

/// Errors from parsing notation: board names, squares, moves and grids.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotationError {
    #[error("unknown board {0:?}: expected WxH (e.g. 5x4, sides 1 to 10) or 'standard'")]
    UnknownBoard(String),
    #[error("board {width}x{height} is larger than 10x10 or empty")]
    BoardSize { width: usize, height: usize },
    #[error("board {0}x{1} has no small-board start (needs width and height of at least 4); give --position instead")]
    NoStart(u8, u8),
    #[error("bad square {0:?}: expected a file letter and a rank inside the board, e.g. b4")]
    BadSquare(String),
    #[error("bad move {0:?}: expected from-to x arrow, e.g. b1-b4xd4")]
    BadMove(String),
    #[error("bad grid: {0}")]
    BadGrid(String),
    #[error("bad side to move {0:?}: expected white or black")]
    BadColor(String),
}

/// A player. White moves first from the start positions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Color {
    White,
    Black,
}

impl Color {
    /// The other player.
    pub fn opponent(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }

    /// `"White"` or `"Black"`.
    pub fn name(self) -> &'static str {
        match self {
            Color::White => "White",
            Color::Black => "Black",
        }
    }

    /// Parses `white`/`black` (also `w`/`b`, any case).
    pub fn parse(text: &str) -> Result<Color, NotationError> {
        match text.trim().to_ascii_lowercase().as_str() {
            "white" | "w" => Ok(Color::White),
            "black" | "b" => Ok(Color::Black),
            _ => Err(NotationError::BadColor(text.to_string())),
        }
    }
}

impl fmt::Display for Color {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What stands on a square.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Cell {
    Empty,
    White,
    Black,
    Arrow,
}

impl Cell {
    /// The queen of `color`.
    pub fn queen(color: Color) -> Cell {
        match color {
            Color::White => Cell::White,
            Color::Black => Cell::Black,
        }
    }

    /// The grid character: `.` empty, `O` White, `X` Black, `#` arrow.
    pub fn to_char(self) -> char {
        match self {
            Cell::Empty => '.',
            Cell::White => 'O',
            Cell::Black => 'X',
            Cell::Arrow => '#',
        }
    }

    /// Reads a grid character (case-insensitive for the queens).
    pub fn from_char(c: char) -> Option<Cell> {
        match c {
            '.' => Some(Cell::Empty),
            'O' | 'o' => Some(Cell::White),
            'X' | 'x' => Some(Cell::Black),
            '#' => Some(Cell::Arrow),
            _ => None,
        }
    }
}

/// Board dimensions: `width` files (a..) by `height` ranks (1..).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Board {
    pub width: u8,
    pub height: u8,
}

impl Board {
    /// A board of the given size, if both sides are between 1 and 10.
    pub fn new(width: usize, height: usize) -> Result<Board, NotationError> {
        if width == 0 || height == 0 || width > MAX_SIDE as usize || height > MAX_SIDE as usize {
            return Err(NotationError::BoardSize { width, height });
        }
        Ok(Board {
            width: width as u8,
            height: height as u8,
        })
    }

    /// Checks the invariant `1 <= width, height <= 10` (for decoded values).
    pub fn is_valid(self) -> bool {
        (1..=MAX_SIDE).contains(&self.width) && (1..=MAX_SIDE).contains(&self.height)
    }

    /// Number of squares.
    pub fn len(self) -> usize {
        self.width as usize * self.height as usize
    }

    /// Never true for a valid board; present for API completeness.
    pub fn is_empty(self) -> bool {
        self.len() == 0
    }

    /// The square at file `x`, rank `y` (both from 0).
    pub fn square(self, x: usize, y: usize) -> Square {
        (y * self.width as usize + x) as Square
    }

    /// File and rank (both from 0) of a square.
    pub fn coords(self, sq: Square) -> (usize, usize) {
        (
            sq as usize % self.width as usize,
            sq as usize / self.width as usize,
        )
    }

    /// The square's name, e.g. `b4`.
    pub fn square_name(self, sq: Square) -> String {
        let (x, y) = self.coords(sq);
        format!("{}{}", (b'a' + x as u8) as char, y + 1)
    }

    /// The last line of a drawing with coordinates: the files' letters, each under its
    /// column (three spaces for the rank numbers, then ` a b c …`), and a newline.
    pub fn files_line(self) -> String {
        let mut out = String::from("   ");
        for x in 0..self.width {
            out.push(' ');
            out.push((b'a' + x) as char);
        }
        out.push('\n');
        out
    }

    /// Parses a square name such as `b4` or `J10` (must lie on this board).
    pub fn parse_square(self, text: &str) -> Result<Square, NotationError> {
        let bad = || NotationError::BadSquare(text.to_string());
        let mut chars = text.chars();
        let file = chars.next().ok_or_else(bad)?.to_ascii_lowercase();
        if !file.is_ascii_lowercase() {
            return Err(bad());
        }
        let rank_text = chars.as_str();
        if rank_text.is_empty()
            || !rank_text.bytes().all(|b| b.is_ascii_digit())
            || rank_text.len() > 2
        {
            return Err(bad());
        }
        let rank: usize = rank_text.parse().map_err(|_| bad())?;
        let x = (file as u8 - b'a') as usize;
        if x >= self.width as usize || rank == 0 || rank > self.height as usize {
            return Err(bad());
        }
        Ok(self.square(x, rank - 1))
    }

    /// Parses a board name: `WxH` (e.g. `5x4`) or `standard` (10x10).
    pub fn parse(text: &str) -> Result<Board, NotationError> {
        let t = text.trim().to_ascii_lowercase();
        if t == "standard" {
            return Board::new(10, 10);
        }
        let (w, h) = t
            .split_once('x')
            .ok_or_else(|| NotationError::UnknownBoard(text.to_string()))?;
        let w: usize = w
            .parse()
            .map_err(|_| NotationError::UnknownBoard(text.to_string()))?;
        let h: usize = h
            .parse()
            .map_err(|_| NotationError::UnknownBoard(text.to_string()))?;
        Board::new(w, h)
    }
}

impl fmt::Display for Board {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}", self.width, self.height)
    }
}

/// A move: a queen from `from` to `to`, then an arrow from `to` to `arrow`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Move {
    pub from: Square,
    pub to: Square,
    pub arrow: Square,
}

impl Move {
    /// Writes the move as `b1-b4xd4`.
    pub fn notation(self, board: Board) -> String {
        format!(
            "{}-{}x{}",
            board.square_name(self.from),
            board.square_name(self.to),
            board.square_name(self.arrow)
        )
    }

    /// Parses `b1-b4xd4` (any case). Only the syntax and the squares are checked here,
    /// not whether the move is legal.
    pub fn parse(board: Board, text: &str) -> Result<Move, NotationError> {
        let bad = || NotationError::BadMove(text.to_string());
        let t = text.trim().to_ascii_lowercase();
        let (from, rest) = t.split_once('-').ok_or_else(bad)?;
        let (to, arrow) = rest.split_once('x').ok_or_else(bad)?;
        let sq = |s: &str| board.parse_square(s).map_err(|_| bad());
        Ok(Move {
            from: sq(from)?,
            to: sq(to)?,
            arrow: sq(arrow)?,
        })
    }
}

/// A position: the board, what stands on every square, and the side to move.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Position {
    pub board: Board,
    /// `board.len()` cells, indexed by square.
    pub cells: Vec<Cell>,
    pub to_move: Color,
}

impl Position {
    /// An empty board.
    pub fn empty(board: Board, to_move: Color) -> Position {
        Position {
            board,
            cells: vec![Cell::Empty; board.len()],
            to_move,
        }
    }

    /// Checks the invariants of a decoded value: a valid board and one cell per square.
    pub fn is_valid(&self) -> bool {
        self.board.is_valid() && self.cells.len() == self.board.len()
    }

    /// The paper's small-board start: White on b1, (W-1)1, a2, W2; Black mirrored on the
    /// top two ranks; White to move. Needs both sides of at least 4.
    pub fn small_board_start(board: Board) -> Result<Position, NotationError> {
        let (w, h) = (board.width as usize, board.height as usize);
        if w < 4 || h < 4 {
            return Err(NotationError::NoStart(board.width, board.height));
        }
        let mut p = Position::empty(board, Color::White);
        for (x, y, c) in [
            (1, 0, Cell::White),
            (w - 2, 0, Cell::White),
            (0, 1, Cell::White),
            (w - 1, 1, Cell::White),
            (1, h - 1, Cell::Black),
            (w - 2, h - 1, Cell::Black),
            (0, h - 2, Cell::Black),
            (w - 1, h - 2, Cell::Black),
        ] {
            p.cells[board.square(x, y) as usize] = c;
        }
        Ok(p)
    }

    /// The 10x10 tournament start: White a4 d1 g1 j4, Black a7 d10 g10 j7; White to move.
    pub fn standard_start() -> Position {
        let board = Board {
            width: 10,
            height: 10,
        };
        let mut p = Position::empty(board, Color::White);
        for (x, y, c) in [
            (0, 3, Cell::White),
            (3, 0, Cell::White),
            (6, 0, Cell::White),
            (9, 3, Cell::White),
            (0, 6, Cell::Black),
            (3, 9, Cell::Black),
            (6, 9, Cell::Black),
            (9, 6, Cell::Black),
        ] {
            p.cells[board.square(x, y) as usize] = c;
        }
        p
    }

    /// The start position named by a board argument: `standard` or `WxH`.
    pub fn start(name: &str) -> Result<Position, NotationError> {
        if name.trim().eq_ignore_ascii_case("standard") {
            return Ok(Position::standard_start());
        }
        Position::small_board_start(Board::parse(name)?)
    }

    /// If this position (ignoring the side to move) is a named start, its name.
    pub fn start_name(&self) -> Option<String> {
        if self.board.width == 10
            && self.board.height == 10
            && self.cells == Position::standard_start().cells
        {
            return Some("standard".to_string());
        }
        let start = Position::small_board_start(self.board).ok()?;
        (start.cells == self.cells).then(|| self.board.to_string())
    }

    /// Parses a CGSuite/MCGS grid: rows from the top rank down, separated by `|`;
    /// `X` Black, `O` White, `#` arrow, `.` empty. Rows must all have the same length.
    pub fn parse_grid(text: &str, to_move: Color) -> Result<Position, NotationError> {
        let rows: Vec<&str> = text.trim().split('|').map(str::trim).collect();
        let height = rows.len();
        let width = rows[0].chars().count();
        if width == 0 {
            return Err(NotationError::BadGrid("empty row".to_string()));
        }
        for (i, row) in rows.iter().enumerate() {
            let n = row.chars().count();
            if n != width {
                return Err(NotationError::BadGrid(format!(
                    "ragged rows: row {} has {} squares, the first row has {}",
                    i + 1,
                    n,
                    width
                )));
            }
        }
        let board = Board::new(width, height).map_err(|_| {
            NotationError::BadGrid(format!("{width}x{height} is larger than 10x10"))
        })?;
        let mut p = Position::empty(board, to_move);
        for (i, row) in rows.iter().enumerate() {
            let y = height - 1 - i;
            for (x, c) in row.chars().enumerate() {
                let cell = Cell::from_char(c).ok_or_else(|| {
                    NotationError::BadGrid(format!(
                        "unexpected character {c:?} in row {} (use X O # .)",
                        i + 1
                    ))
                })?;
                p.cells[board.square(x, y) as usize] = cell;
            }
        }
        Ok(p)
    }

    /// The grid notation of the cells (rows from the top rank down, `|` between rows).
    pub fn grid(&self) -> String {
        let (w, h) = (self.board.width as usize, self.board.height as usize);
        let mut out = String::with_capacity(self.cells.len() + h);
        for y in (0..h).rev() {
            for x in 0..w {
                out.push(self.cells[self.board.square(x, y) as usize].to_char());
            }
            if y > 0 {
                out.push('|');
            }
        }
        out
    }

    /// A drawing with coordinates, top rank first, for terminals.
    pub fn render(&self) -> String {
        let (w, h) = (self.board.width as usize, self.board.height as usize);
        let mut out = String::new();
        for y in (0..h).rev() {
            out.push_str(&format!("{:>2} ", y + 1));
            for x in 0..w {
                out.push(' ');
                out.push(self.cells[self.board.square(x, y) as usize].to_char());
            }
            out.push('\n');
        }
        out.push_str(&self.board.files_line());
        out.push_str(&format!("{} to move\n", self.to_move));
        out
    }

    /// A one-line description: the start name or the grid, and the side to move.
    pub fn describe(&self) -> String {
        match self.start_name() {
            Some(name) => format!("{name} start, {} to move", self.to_move),
            None => format!("{} {}, {} to move", self.board, self.grid(), self.to_move),
        }
    }

    /// Counts the queens of `color`.
    pub fn queens(&self, color: Color) -> usize {
        let q = Cell::queen(color);
        self.cells.iter().filter(|&&c| c == q).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_positions_match_the_notation_section() {
        let p = Position::start("5x6").unwrap();
        assert_eq!(p.grid(), ".X.X.|X...X|.....|.....|O...O|.O.O.");
        let s = Position::start("standard").unwrap();
        assert_eq!(s.queens(Color::White), 4);
        assert_eq!(
            s.cells[s.board.parse_square("d10").unwrap() as usize],
            Cell::Black
        );
        assert_eq!(Position::start("3x5"), Err(NotationError::NoStart(3, 5)));
    }

    #[test]
    fn moves_and_squares_round_trip() {
        let b = Board::parse("10x10").unwrap();
        let m = Move::parse(b, "B1-B4xJ10").unwrap();
        assert_eq!(m.notation(b), "b1-b4xj10");
        assert!(Move::parse(b, "b1-b4").is_err());
        assert!(Move::parse(b, "b1-b4xk4").is_err());
        assert!(Board::parse("11x3").is_err());
        assert!(Board::parse("4by4").is_err());
    }

    #[test]
    fn grids_parse_and_reject_ragged_rows() {
        let p = Position::parse_grid(".O.|#.#|O..", Color::Black).unwrap();
        assert_eq!(p.grid(), ".O.|#.#|O..");
        assert_eq!(p.cells[0], Cell::White);
        assert!(matches!(
            Position::parse_grid("..|...", Color::White),
            Err(NotationError::BadGrid(_))
        ));
        assert!(Position::parse_grid("..a", Color::White).is_err());
        assert!(Position::parse_grid("...........", Color::White).is_err());
    }
}
