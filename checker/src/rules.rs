//! The rules of Amazons on plain arrays and ray walks, plus the region, component and search helpers the proof rules need (the searches hold sets of squares as masks).
//!
//! Every public function accepts any [`Position`]; one whose cell count does not match its
//! board (never produced by `format::decode`) is treated as having no moves and no squares.

use crate::mask::{squares, Mask, Rays};
use amazons_format::{Board, Cell, Color, Move, Position};
use std::collections::HashMap;

/// The eight queen directions `(dx, dy)`.
pub(crate) const DIRS: [(i32, i32); 8] = [
    (-1, -1),
    (0, -1),
    (1, -1),
    (-1, 0),
    (1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
];

/// The square one step from `sq` in direction `(dx, dy)`, if it is on the board.
pub(crate) fn step(board: Board, sq: usize, (dx, dy): (i32, i32)) -> Option<usize> {
    let (w, h) = (board.width as i32, board.height as i32);
    let x = (sq % board.width as usize) as i32 + dx;
    let y = (sq / board.width as usize) as i32 + dy;
    if x < 0 || x >= w || y < 0 || y >= h {
        return None;
    }
    Some((y * w + x) as usize)
}

/// The (up to eight) squares adjacent to `sq`.
pub fn neighbours(board: Board, sq: usize) -> impl Iterator<Item = usize> {
    DIRS.into_iter().filter_map(move |d| step(board, sq, d))
}

/// Every square a queen on `from` reaches along the eight rays over empty squares, `hole`
/// counting as empty as well (the square the shooting queen just left).
fn rays(board: Board, cells: &[Cell], from: usize, hole: Option<usize>, out: &mut Vec<usize>) {
    for d in DIRS {
        let mut sq = from;
        while let Some(next) = step(board, sq, d) {
            if cells.get(next) != Some(&Cell::Empty) && Some(next) != hole {
                break;
            }
            out.push(next);
            sq = next;
        }
    }
}

/// All legal board moves of `color` on `cells`, sorted by `(from, to, arrow)`.
fn moves_on(board: Board, cells: &[Cell], color: Color) -> Vec<Move> {
    let queen = Cell::queen(color);
    let (mut moves, mut tos, mut arrows) = (Vec::new(), Vec::new(), Vec::new());
    for from in (0..cells.len()).filter(|&sq| cells[sq] == queen) {
        tos.clear();
        rays(board, cells, from, None, &mut tos);
        for &to in &tos {
            arrows.clear();
            rays(board, cells, to, Some(from), &mut arrows);
            moves.extend(arrows.iter().map(|&arrow| Move {
                from: from as u8,
                to: to as u8,
                arrow: arrow as u8,
            }));
        }
    }
    moves.sort_unstable();
    moves
}

/// The first of `color`'s legal moves on `cells` in canonical order (SPEC 2) among those
/// whose arrow lands on `from` when `shoot_back[from]` (the outlast completion, SPEC 5.4):
/// the lowest `from` that can move, its lowest `to`, then the lowest arrow (`from` itself
/// when it must shoot back, always legal: it is on the line just travelled).
pub fn first_move(board: Board, cells: &[Cell], color: Color, shoot_back: &[bool]) -> Option<Move> {
    let (mut tos, mut arrows) = (Vec::new(), Vec::new());
    for from in (0..cells.len()).filter(|&sq| cells[sq] == Cell::queen(color)) {
        tos.clear();
        rays(board, cells, from, None, &mut tos);
        let Some(&to) = tos.iter().min() else {
            continue;
        };
        arrows.clear();
        rays(board, cells, to, Some(from), &mut arrows);
        let arrow = match shoot_back.get(from) {
            Some(true) => from,
            _ => *arrows.iter().min()?,
        };
        #[rustfmt::skip]
        return Some(Move { from: from as u8, to: to as u8, arrow: arrow as u8 });
    }
    None
}

/// The legal board moves of `color` in `pos` (whoever is to move), in canonical order.
pub fn legal_moves_of(pos: &Position, color: Color) -> Vec<Move> {
    if !pos.is_valid() {
        return Vec::new();
    }
    moves_on(pos.board, &pos.cells, color)
}

/// The legal board moves of the side to move, in canonical order (SPEC section 2).
pub fn legal_moves(pos: &Position) -> Vec<Move> {
    legal_moves_of(pos, pos.to_move)
}

/// Whether `a -> b` is a queen line whose squares after `a` (up to and including `b`) are all
/// empty or `hole`.
fn clear_line(board: Board, cells: &[Cell], a: usize, b: usize, hole: Option<usize>) -> bool {
    let w = board.width as usize;
    let (dx, dy) = (
        (b % w) as i32 - (a % w) as i32,
        (b / w) as i32 - (a / w) as i32,
    );
    if (dx, dy) == (0, 0) || (dx != 0 && dy != 0 && dx.abs() != dy.abs()) {
        return false;
    }
    let mut sq = a;
    while sq != b {
        match step(board, sq, (dx.signum(), dy.signum())) {
            Some(next) if cells.get(next) == Some(&Cell::Empty) || Some(next) == hole => sq = next,
            _ => return false,
        }
    }
    true
}

/// Whether `m` is a legal move of `color` on `cells` (squares off the board are illegal).
fn legal_on(board: Board, cells: &[Cell], color: Color, m: Move) -> bool {
    let (from, to, arrow) = (m.from as usize, m.to as usize, m.arrow as usize);
    from < cells.len()
        && to < cells.len()
        && arrow < cells.len()
        && cells[from] == Cell::queen(color)
        && clear_line(board, cells, from, to, None)
        && clear_line(board, cells, to, arrow, Some(from))
}

/// Whether `m` is a legal move of the side to move (SPEC section 1).
pub fn is_legal(pos: &Position, m: Move) -> bool {
    pos.is_valid() && legal_on(pos.board, &pos.cells, pos.to_move, m)
}

/// Plays `m` on `cells` without checking it (`m` must be legal there).
fn apply(cells: &mut [Cell], m: Move) {
    let (from, to, arrow) = (m.from as usize, m.to as usize, m.arrow as usize);
    if from < cells.len() && to < cells.len() && arrow < cells.len() {
        cells[to] = cells[from];
        cells[from] = Cell::Empty;
        cells[arrow] = Cell::Arrow;
    }
}

/// The position after the side to move plays `m`, which must be legal (see [`is_legal`]);
/// the side to move flips.
pub fn play(pos: &Position, m: Move) -> Position {
    let mut next = pos.clone();
    apply(&mut next.cells, m);
    next.to_move = pos.to_move.opponent();
    next
}

/// Plays `m` as a move of `color` on `cells` if it is legal there (used by the outlast rule,
/// where only one side moves); returns whether it was legal.
pub fn play_alone(board: Board, cells: &mut [Cell], color: Color, m: Move) -> bool {
    let legal = cells.len() == board.len() && legal_on(board, cells, color, m);
    if legal {
        apply(cells, m);
    }
    legal
}

/// The region `R` of SPEC 5.4: the squares of `color`'s queens plus every empty square
/// 8-connected to one of them through empty squares.
pub fn region(pos: &Position, color: Color) -> Vec<bool> {
    let queen = Cell::queen(color);
    let mut in_r: Vec<bool> = pos.cells.iter().map(|&c| c == queen).collect();
    if !pos.is_valid() {
        return in_r;
    }
    let mut stack: Vec<usize> = (0..in_r.len()).filter(|&sq| in_r[sq]).collect();
    while let Some(sq) = stack.pop() {
        for n in neighbours(pos.board, sq) {
            if !in_r[n] && pos.cells[n] == Cell::Empty {
                in_r[n] = true;
                stack.push(n);
            }
        }
    }
    in_r
}

/// The 8-connected components of the squares where `mask` is true, each sorted, ordered by
/// their smallest square (SPEC 5.4 and 5.5).
pub fn components(board: Board, mask: &[bool]) -> Vec<Vec<usize>> {
    let mut seen = vec![false; mask.len()];
    let mut out = Vec::new();
    if mask.len() != board.len() {
        return out;
    }
    for start in 0..mask.len() {
        if !mask[start] || seen[start] {
            continue;
        }
        seen[start] = true;
        let (mut comp, mut stack) = (Vec::new(), vec![start]);
        while let Some(sq) = stack.pop() {
            comp.push(sq);
            for n in neighbours(board, sq) {
                if mask[n] && !seen[n] {
                    seen[n] = true;
                    stack.push(n);
                }
            }
        }
        comp.sort_unstable();
        out.push(comp);
    }
    out
}

/// The basic partition of SPEC 5.5: the 8-connected components of non-arrow squares.
pub fn partition(pos: &Position) -> Vec<Vec<usize>> {
    let mask: Vec<bool> = pos.cells.iter().map(|&c| c != Cell::Arrow).collect();
    components(pos.board, &mask)
}

/// `pos` with every square outside `squares` turned into an arrow (a local position).
pub fn restrict(pos: &Position, squares: &[usize]) -> Position {
    let mut local = pos.clone();
    local.cells.iter_mut().for_each(|c| *c = Cell::Arrow);
    for &sq in squares {
        if let (Some(dst), Some(&src)) = (local.cells.get_mut(sq), pos.cells.get(sq)) {
            *dst = src;
        }
    }
    local
}

/// The largest number of moves `color` can make one after another in `pos` while the other
/// side never moves, by exhaustive search (SPEC 5.4). Only meant for small regions: the
/// checker calls it on components with at most `ONE_PLAYER_EXACT_LIMIT` empty squares.
pub fn one_player_max(pos: &Position, color: Color) -> u32 {
    OnePlayer::new(pos.board).max(pos, color)
}

/// The exhaustive one-player search with its memo, which can be kept across calls on
/// positions of one board (the same territories recur in a certificate).
///
/// A state is the set of the mover's queens and the set of empty squares (bit `sq` of a
/// `u128`; boards have at most 100 squares); every other square is blocked. The search
/// splits a state into its 8-connected regions of queens and empty squares: a move (queen
/// path and arrow path) only touches empty squares connected to the moving queen and the
/// queen's own square, so regions never interact and the maximum of the whole is the sum of
/// the regions' maxima. Every move fills one empty square for good, so a region's maximum is
/// at most its number of empty squares, and its search stops once it reaches that bound.
pub struct OnePlayer {
    board: Board,
    rays: Rays<u128>,
    memo: HashMap<(u128, u128), u32, amazons_format::fasthash::Fast>,
}

impl OnePlayer {
    /// An empty memo for positions on `board`.
    pub fn new(board: Board) -> OnePlayer {
        OnePlayer {
            board,
            rays: Rays::new(board),
            memo: HashMap::default(),
        }
    }

    /// The one-player maximum of `color` in `pos` (0 for an invalid position).
    pub fn max(&mut self, pos: &Position, color: Color) -> u32 {
        if !pos.is_valid() || pos.board.len() > 128 {
            return 0;
        }
        if pos.board != self.board {
            *self = OnePlayer::new(pos.board);
        }
        let mask = |cell: Cell| {
            (0..pos.cells.len())
                .filter(|&sq| pos.cells[sq] == cell)
                .fold(0u128, |m, sq| m | 1 << sq)
        };
        self.split(mask(Cell::queen(color)), mask(Cell::Empty))
    }

    /// Sum of the maxima of the 8-connected regions of `queens | empty` holding a queen.
    fn split(&mut self, queens: u128, empty: u128) -> u32 {
        let (mut left, mut total) = (queens, 0);
        while left != 0 {
            let region = self
                .rays
                .flood(left.trailing_zeros() as usize, queens | empty);
            left &= !region;
            total += self.region_max(queens & region, empty & region);
        }
        total
    }

    fn reach(&self, from: usize, open: u128) -> impl Iterator<Item = usize> {
        squares(self.rays.reach(from, open))
    }

    /// The maximum for one region: every move of every queen, memoized.
    fn region_max(&mut self, queens: u128, empty: u128) -> u32 {
        let bound = empty.count_ones();
        if bound == 0 {
            return 0;
        }
        if let Some(&known) = self.memo.get(&(queens, empty)) {
            return known;
        }
        let mut best = 0;
        'search: for from in squares(queens) {
            for to in self.reach(from, empty) {
                let moved = queens & !(1 << from) | 1 << to;
                for arrow in self.reach(to, (empty | 1 << from) & !(1 << to)) {
                    let left = (empty | 1 << from) & !(1 << to) & !(1 << arrow);
                    best = best.max(1 + self.split(moved, left));
                    if best == bound {
                        break 'search;
                    }
                }
            }
        }
        self.memo.insert((queens, empty), best);
        best
    }
}

/// The exhaustive two-player search of SPEC 5.8, with its memo (kept across calls on
/// positions of one board, up to [`GameSearch::MEMO_CAP`] states, then cleared).
///
/// A state is the White queens, the Black queens and the empty squares (bit `sq` of a mask:
/// a `u64` on boards of at most 64 squares, else a `u128`), the side to move and the spare
/// count; every other square holds an arrow. The side to move wins if one of its actions
/// (SPEC 2: board moves, then a spare move if it holds one) leads to a state the opponent,
/// then to move, loses; with no action it loses. Every action removes an empty square or
/// one of the mover's spare moves, so the search ends.
///
/// Three things only make it faster, never change a verdict (SPEC 5.8): a side that holds
/// no spare move and has no empty square next to any of its queens has no action, so it
/// loses at once; the last two board moves found winning at a state with as many empty
/// squares are tried first, each only if it is legal here (its queen the mover's, its
/// destination and then its arrow each reached along one ray of open squares); then the
/// board moves are tried with the destinations, then the arrows, next to an opponent's
/// queen first (all of them are still tried before a loss is declared; the first winning
/// one ends the search).
pub struct GameSearch {
    board: Board,
    masks: Masks,
    /// States searched (memo misses) since the last [`GameSearch::mover_wins_within`].
    nodes: u64,
    /// Past this many nodes a search gives up ([`GameSearch::mover_wins_within`] only; the
    /// checker's own searches never set it).
    budget: u64,
}

/// The search's rays and memo, over the narrowest mask type that holds the board.
enum Masks {
    Narrow(Rays<u64>, Memo<u64>),
    Wide(Rays<u128>, Memo<u128>),
}

impl Masks {
    fn new(board: Board) -> Masks {
        if board.len() <= 64 {
            Masks::Narrow(Rays::new(board), Memo::default())
        } else {
            Masks::Wide(Rays::new(board), Memo::default())
        }
    }

    fn clear(&mut self) {
        match self {
            Masks::Narrow(_, memo) => memo.clear(),
            Masks::Wide(_, memo) => memo.clear(),
        }
    }
}

impl GameSearch {
    /// States remembered before the memo is cleared (bounds the checker's memory).
    pub const MEMO_CAP: usize = 1 << 15;

    /// An empty memo for positions on `board`.
    pub fn new(board: Board) -> GameSearch {
        GameSearch {
            board,
            masks: Masks::new(board),
            nodes: 0,
            budget: u64::MAX,
        }
    }

    /// [`GameSearch::mover_wins`] from an empty memo, given up (`None`) past `budget`
    /// states: what a producer pays to replace a subtree by a `Search` step, the same
    /// whatever was searched before. The memo is emptied again after giving up, since the
    /// states left in it are not all settled.
    pub fn mover_wins_within(&mut self, pos: &Position, spare: i32, budget: u64) -> Option<bool> {
        self.masks.clear();
        self.nodes = 0;
        self.budget = budget;
        let win = self.mover_wins(pos, spare);
        self.budget = u64::MAX;
        if self.nodes > budget {
            self.masks.clear();
            return None;
        }
        Some(win)
    }

    /// Whether the side to move in `pos` wins, Black holding `spare` spare moves (White
    /// `-spare` if negative). An invalid position (or one over 128 squares) counts as lost.
    pub fn mover_wins(&mut self, pos: &Position, spare: i32) -> bool {
        if !pos.is_valid() || pos.board.len() > 128 {
            return false;
        }
        if pos.board != self.board {
            (self.board, self.masks) = (pos.board, Masks::new(pos.board));
        }
        let (nodes, budget) = (&mut self.nodes, self.budget);
        match &mut self.masks {
            Masks::Narrow(rays, memo) => Game::start(rays, memo, nodes, budget, pos, spare),
            Masks::Wide(rays, memo) => Game::start(rays, memo, nodes, budget, pos, spare),
        }
    }
}

/// The two-player memo: each state searched with its verdict.
type Memo<W> = HashMap<State<W>, bool, amazons_format::fasthash::Fast>;

/// A board move as its queen's square, destination and arrow.
type Action = [u8; 3];

/// One search over masks of type `W`: the board's rays, the memo, the node count and, by
/// number of empty squares, the last two board moves found winning (newest first).
struct Game<'a, W> {
    rays: &'a Rays<W>,
    memo: &'a mut Memo<W>,
    nodes: &'a mut u64,
    budget: u64,
    killers: [[Option<Action>; 2]; 129],
}

impl<'a, W: Mask> Game<'a, W> {
    /// [`GameSearch::mover_wins`] on a valid position whose squares all fit in `W`.
    fn start(
        rays: &'a Rays<W>,
        memo: &'a mut Memo<W>,
        nodes: &'a mut u64,
        budget: u64,
        pos: &Position,
        spare: i32,
    ) -> bool {
        if memo.len() > GameSearch::MEMO_CAP {
            memo.clear();
        }
        let mask = |cell: Cell| {
            (0..pos.cells.len())
                .filter(|&sq| pos.cells[sq] == cell)
                .fold(W::ZERO, |m, sq| m | W::ONE << sq)
        };
        let (white, black) = (mask(Cell::White), mask(Cell::Black));
        let white_moves = pos.to_move == Color::White;
        let mut game = Game {
            rays,
            memo,
            nodes,
            budget,
            killers: [[None; 2]; 129],
        };
        game.wins(white, black, mask(Cell::Empty), white_moves, spare)
    }

    fn wins(&mut self, white: W, black: W, empty: W, white_moves: bool, spare: i32) -> bool {
        // A queen that moves passes an adjacent square first, and the arrow may go back to
        // where it came from: a side has a board move exactly when an empty square touches
        // one of its queens. Without one, and without a spare move, it has lost.
        let (mine, theirs) = if white_moves {
            (white, black)
        } else {
            (black, white)
        };
        let holds = if white_moves { spare < 0 } else { spare > 0 };
        if !holds && self.rays.grow(mine) & empty == W::ZERO {
            return false;
        }
        let key = State {
            white_or_empty: white | empty,
            black_or_empty: black | empty,
            spare_and_side: u64::from(spare as u32) << 1 | u64::from(white_moves),
        };
        if let Some(&known) = self.memo.get(&key) {
            return known;
        }
        *self.nodes += 1;
        if *self.nodes > self.budget {
            return false;
        }
        // The two last winning board moves at this many empty squares first, each played
        // only where legal: its queen is the mover's, its destination within the queen's
        // reach over the empty squares, its arrow within reach once the queen has moved,
        // exactly as the loop below finds its moves. Both are tried again there (memoized).
        let depth = empty.count_ones() as usize;
        for [from, to, arrow] in self.killers[depth]
            .into_iter()
            .flatten()
            .map(|k| k.map(usize::from))
        {
            let open = (empty | W::ONE << from) & !(W::ONE << to);
            if mine & W::ONE << from != W::ZERO
                && self.rays.slides(from, to, empty)
                && self.rays.slides(to, arrow, open)
                && self.wins_by([from, to, arrow], (mine, theirs, empty), white_moves, spare)
            {
                self.memo.insert(key, true);
                return true;
            }
        }
        let mut win = false;
        let near_theirs = self.rays.grow(theirs);
        let sets = (mine, theirs, empty);
        'search: for from in squares(mine) {
            let tos = self.rays.reach(from, empty);
            for to in squares(tos & near_theirs).chain(squares(tos & !near_theirs)) {
                let open = (empty | W::ONE << from) & !(W::ONE << to);
                let shots = self.rays.reach(to, open);
                for arrow in squares(shots & near_theirs).chain(squares(shots & !near_theirs)) {
                    if self.wins_by([from, to, arrow], sets, white_moves, spare) {
                        win = true;
                        break 'search;
                    }
                }
            }
        }
        // A spare move: Black holds `spare > 0`, White `-spare`; taking one moves it to 0.
        if !win && holds {
            let left = spare - spare.signum();
            win = !self.wins(white, black, empty, !white_moves, left);
        }
        self.memo.insert(key, win);
        win
    }

    /// Whether the board move `[from, to, arrow]`, legal for the side to move with queens
    /// `mine` against `theirs` on `empty`, leaves the opponent (then to move) lost; if so
    /// the move becomes the newest winning one at its number of empty squares.
    fn wins_by(
        &mut self,
        [from, to, arrow]: [usize; 3],
        (mine, theirs, empty): (W, W, W),
        white_moves: bool,
        spare: i32,
    ) -> bool {
        let moved = mine & !(W::ONE << from) | W::ONE << to;
        let left = (empty | W::ONE << from) & !(W::ONE << to) & !(W::ONE << arrow);
        let (w, b) = if white_moves {
            (moved, theirs)
        } else {
            (theirs, moved)
        };
        if self.wins(w, b, left, !white_moves, spare) {
            return false;
        }
        let killers = &mut self.killers[empty.count_ones() as usize];
        let action = Some([from, to, arrow].map(|sq| sq as u8));
        if killers[0] != action {
            *killers = [action, killers[0]];
        }
        true
    }
}

/// A state of the two-player search as its memo's key: `white | empty` and `black | empty`
/// (the three sets are disjoint, so the pair determines them), the spare count and the side
/// to move (bit 0 set: White).
#[derive(PartialEq, Eq)]
struct State<W> {
    white_or_empty: W,
    black_or_empty: W,
    spare_and_side: u64,
}

impl<W: Mask> std::hash::Hash for State<W> {
    /// One word for the hasher: the state's words folded by rotate and xor. Equal states
    /// hash equally; the memo compares whole states, so the folding only spreads buckets.
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        let word = self.white_or_empty.fold()
            ^ self.black_or_empty.fold().rotate_left(32)
            ^ self.spare_and_side.rotate_left(8);
        h.write_u64(word);
    }
}
