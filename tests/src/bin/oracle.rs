//! An independent exhaustive Amazons search for small boards: plain memoized win/loss search, no code shared with the solver or the checker.
//!
//! Usage: `oracle W H [moves...]`, e.g. `oracle 4 5` or `oracle 5 4 b1-b2xd2`. Prints the
//! winner of the position (with its side to move) and the number of positions visited.
//! Boards up to 32 squares (the state is packed in a u64: three 20..32-bit masks would not
//! fit, so positions are keyed by (white, black, arrows) masks of at most 21 bits each).

use std::collections::HashMap;
use std::process::ExitCode;

/// The four rook directions; a queen also moves along the four [`DIAGONAL`]s.
const STRAIGHT: [(i32, i32); 4] = [(1, 0), (-1, 0), (0, 1), (0, -1)];
/// The four bishop directions.
const DIAGONAL: [(i32, i32); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];

struct Board {
    w: i32,
    h: i32,
}

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct Pos {
    white: u32,
    black: u32,
    arrows: u32,
    white_to_move: bool,
}

impl Board {
    fn sq(&self, x: i32, y: i32) -> u32 {
        (y * self.w + x) as u32
    }

    fn inside(&self, x: i32, y: i32) -> bool {
        x >= 0 && y >= 0 && x < self.w && y < self.h
    }

    /// Squares reachable like a queen from (x, y) over empty squares (`occ` occupied).
    fn reach(&self, x: i32, y: i32, occ: u32, out: &mut Vec<u32>) {
        out.clear();
        for &(dx, dy) in STRAIGHT.iter().chain(&DIAGONAL) {
            let (mut cx, mut cy) = (x + dx, y + dy);
            while self.inside(cx, cy) && occ & (1 << self.sq(cx, cy)) == 0 {
                out.push(self.sq(cx, cy));
                cx += dx;
                cy += dy;
            }
        }
    }

    /// All positions after one move of the side to move.
    fn children(&self, p: &Pos) -> Vec<Pos> {
        let mine = if p.white_to_move { p.white } else { p.black };
        let occ = p.white | p.black | p.arrows;
        let mut out = Vec::new();
        let (mut tos, mut arrows) = (Vec::new(), Vec::new());
        for from in 0..(self.w * self.h) as u32 {
            if mine & (1 << from) == 0 {
                continue;
            }
            let (fx, fy) = ((from as i32) % self.w, (from as i32) / self.w);
            self.reach(fx, fy, occ, &mut tos);
            for &to in &tos {
                let occ2 = (occ & !(1 << from)) | (1 << to);
                let (tx, ty) = ((to as i32) % self.w, (to as i32) / self.w);
                self.reach(tx, ty, occ2, &mut arrows);
                for &a in &arrows {
                    let moved = (mine & !(1 << from)) | (1 << to);
                    let mut c = *p;
                    if p.white_to_move {
                        c.white = moved;
                    } else {
                        c.black = moved;
                    }
                    c.arrows |= 1 << a;
                    c.white_to_move = !p.white_to_move;
                    out.push(c);
                }
            }
        }
        out
    }
}

/// Whether the side to move wins.
fn wins(b: &Board, p: &Pos, memo: &mut HashMap<Pos, bool>, visits: &mut u64) -> bool {
    if let Some(&v) = memo.get(p) {
        return v;
    }
    *visits += 1;
    let mut kids = b.children(p);
    // Try replies that leave the opponent the fewest moves first (only ordering).
    kids.sort_by_cached_key(|c| b.children(c).len());
    let mut result = false;
    for c in &kids {
        if !wins(b, c, memo, visits) {
            result = true;
            break;
        }
    }
    memo.insert(*p, result);
    result
}

fn parse_square(b: &Board, s: &str) -> Option<u32> {
    let mut it = s.chars();
    let x = it.next()? as i32 - 'a' as i32;
    let y: i32 = it.as_str().parse().ok()?;
    b.inside(x, y - 1).then(|| b.sq(x, y - 1))
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(w), Some(h)) = (
        args.first().and_then(|s| s.parse::<i32>().ok()),
        args.get(1).and_then(|s| s.parse::<i32>().ok()),
    ) else {
        eprintln!("usage: oracle W H [moves...]   (W*H <= 32, W, H >= 4)");
        return ExitCode::from(2);
    };
    if w < 4 || h < 4 || w * h > 32 {
        eprintln!("board {w}x{h} not supported (W, H >= 4, W*H <= 32)");
        return ExitCode::from(2);
    }
    let b = Board { w, h };
    // The small-board start: White b1, (W-1)1, a2, W2; Black mirrored on ranks H, H-1.
    let bit = |x: i32, y: i32| 1u32 << b.sq(x, y);
    let mut p = Pos {
        white: bit(1, 0) | bit(w - 2, 0) | bit(0, 1) | bit(w - 1, 1),
        black: bit(1, h - 1) | bit(w - 2, h - 1) | bit(0, h - 2) | bit(w - 1, h - 2),
        arrows: 0,
        white_to_move: true,
    };
    for m in &args[2..] {
        let parts: Vec<&str> = m.split(['-', 'x']).collect();
        let sqs: Option<Vec<u32>> = parts.iter().map(|s| parse_square(&b, s)).collect();
        let Some([from, to, a]) = sqs.as_deref().and_then(|v| <[u32; 3]>::try_from(v).ok()) else {
            eprintln!("bad move {m}");
            return ExitCode::from(2);
        };
        let next = b.children(&p).into_iter().find(|c| {
            let (before, after) = if p.white_to_move {
                (p.white, c.white)
            } else {
                (p.black, c.black)
            };
            before & (1 << from) != 0
                && after & (1 << to) != 0
                && c.arrows == p.arrows | (1 << a)
                && (before ^ after) == (1 << from) | (1 << to)
        });
        match next {
            Some(c) => p = c,
            None => {
                eprintln!("illegal move {m}");
                return ExitCode::from(2);
            }
        }
    }
    let mut memo = HashMap::new();
    let mut visits = 0;
    let t = std::time::Instant::now();
    let mover_wins = wins(&b, &p, &mut memo, &mut visits);
    let mover = if p.white_to_move { "White" } else { "Black" };
    let other = if p.white_to_move { "Black" } else { "White" };
    println!(
        "{w}x{h}: {} positions visited in {:.1} s",
        visits,
        t.elapsed().as_secs_f64()
    );
    println!("winner: {}", if mover_wins { mover } else { other });
    ExitCode::SUCCESS
}
