//! A hash-consed store of canonical short partizan games: construction with simplification, negation, sums, comparison, stops and outcomes (the store also holds the memo tables of the layers above: thermographs and area values).
//!
//! Every game in a [`GameStore`] is in canonical form (no dominated and no reversible
//! options), so two games are equal exactly when their [`GameId`]s are equal. Options are
//! stored sorted by id; the printer sorts them the way CGSuite does.

use crate::fx::FxBuild;
use crate::rational::Rational;
use crate::thermograph::Thermograph;
use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// The id of a canonical game inside one [`GameStore`]. Ids of different stores do not mix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GameId(u32);

impl GameId {
    /// The raw index (stable for the life of the store).
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// The id with this raw index (callers make sure it names a stored game).
    pub(crate) fn from_index(index: usize) -> GameId {
        GameId(index as u32)
    }
}

/// A number-up-star `number + ups·↑ + *nimber` (CGSuite's "Uptimal" of length 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Nus {
    pub number: Rational,
    pub ups: i32,
    pub nimber: u32,
}

impl Nus {
    /// True if there is no up and no star part.
    pub fn is_number(&self) -> bool {
        self.ups == 0 && self.nimber == 0
    }
}

/// Outcome class: who wins when each side starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// Left (Black) wins whoever starts: `G > 0`.
    L,
    /// Right (White) wins whoever starts: `G < 0`.
    R,
    /// The second player wins: `G = 0`.
    P,
    /// The first player wins: `G || 0`.
    N,
}

impl Outcome {
    /// True if Left (Black) wins moving first (`G` is not `<= 0`).
    pub fn left_wins_moving_first(self) -> bool {
        matches!(self, Outcome::L | Outcome::N)
    }

    /// True if Right (White) wins moving first (`G` is not `>= 0`).
    pub fn right_wins_moving_first(self) -> bool {
        matches!(self, Outcome::R | Outcome::N)
    }
}

#[derive(Debug, Clone)]
struct Node {
    /// Where the options start in [`GameStore::opts`]: the left ones, then the right ones.
    start: usize,
    lefts: u32,
    rights: u32,
    /// The next game whose options hash to the same [`GameStore::index`] key, or [`NONE`].
    next: u32,
    nus: Option<Nus>,
    /// Left and right stop, computed once from the options' stops when interned.
    stops: (Rational, Rational),
}

/// Left then right options, and the number of left ones, as a map key (one allocation).
type OptionKey = (Box<[GameId]>, u32);

/// No game: the end of a chain of games whose options hash alike.
const NONE: u32 = u32::MAX;

/// The [`GameStore::index`] key of an option list pair: a hash, folded so that the map's
/// own hash of it sees every bit. Equal hashes are told apart by comparing the options.
#[cfg(not(test))]
fn option_hash(left: &[GameId], right: &[GameId]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = crate::fx::FxHasher::default();
    left.hash(&mut h);
    right.hash(&mut h);
    let x = h.finish();
    x ^ (x >> 32)
}

/// In the unit tests, a hash that only sees the option counts: most games then share a
/// key, so every test below also runs the collision chains.
#[cfg(test)]
fn option_hash(left: &[GameId], right: &[GameId]) -> u64 {
    (left.len() * 64 + right.len()) as u64
}

/// An arena of canonical games with interning and memoized operations. The options of all
/// games live in one vector and are found by hash without a second copy as a map key: the
/// store is most of a large database build's memory.
#[derive(Debug, Clone)]
pub struct GameStore {
    nodes: Vec<Node>,
    opts: Vec<GameId>,
    /// Option hash to the newest game with that hash (older ones chain through `next`).
    index: HashMap<u64, u32, FxBuild>,
    numbers: HashMap<Rational, GameId, FxBuild>,
    le_cache: HashMap<(GameId, GameId), bool, FxBuild>,
    build_cache: HashMap<OptionKey, GameId, FxBuild>,
    sum_cache: HashMap<(GameId, GameId), GameId, FxBuild>,
    neg_cache: HashMap<GameId, GameId, FxBuild>,
    pub(crate) thermo_cache: HashMap<GameId, Arc<Thermograph>, FxBuild>,
    /// Every distinct thermograph in `thermo_cache`, once.
    pub(crate) thermo_shared: HashSet<Arc<Thermograph>, FxBuild>,
    pub(crate) area_cache: HashMap<(u8, u8, crate::bits::Bits), GameId, FxBuild>,
}

impl Default for GameStore {
    fn default() -> Self {
        GameStore::new()
    }
}

/// The simplest dyadic number strictly between `lo` and `hi` (`None` = unbounded).
/// Requires `lo < hi` when both are present.
pub fn simplest_between(lo: Option<Rational>, hi: Option<Rational>) -> Rational {
    match (lo, hi) {
        (None, None) => Rational::ZERO,
        (Some(a), None) => {
            if a < Rational::ZERO {
                Rational::ZERO
            } else {
                Rational::int(a.floor() + 1)
            }
        }
        (None, Some(b)) => {
            if b > Rational::ZERO {
                Rational::ZERO
            } else {
                Rational::int(b.ceil() - 1)
            }
        }
        (Some(a), Some(b)) => {
            if a < Rational::ZERO && b > Rational::ZERO {
                return Rational::ZERO;
            }
            // An integer strictly between: the one nearest to zero.
            if a >= Rational::ZERO {
                let n = Rational::int(a.floor() + 1);
                if n < b {
                    return n;
                }
            } else {
                let n = Rational::int(b.ceil() - 1);
                if n > a {
                    return n;
                }
            }
            // Otherwise the dyadic of least denominator strictly between.
            let mut den: i64 = 2;
            loop {
                let scaled = a * Rational::int(den);
                let m = scaled.floor() + 1;
                let x = Rational::new(m, den).unwrap_or(Rational::ZERO);
                if x < b {
                    return x;
                }
                den = den
                    .checked_mul(2)
                    .unwrap_or_else(|| panic!("no dyadic between {a} and {b}"));
            }
        }
    }
}

impl GameStore {
    /// An empty store (with 0 interned).
    pub fn new() -> GameStore {
        let mut s = GameStore {
            nodes: Vec::new(),
            opts: Vec::new(),
            index: HashMap::default(),
            numbers: HashMap::default(),
            le_cache: HashMap::default(),
            build_cache: HashMap::default(),
            sum_cache: HashMap::default(),
            neg_cache: HashMap::default(),
            thermo_cache: HashMap::default(),
            thermo_shared: HashSet::default(),
            area_cache: HashMap::default(),
        };
        s.zero();
        s
    }

    /// Number of distinct canonical games stored.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Entries in the memo caches (comparisons, option sets, sums, negatives,
    /// thermographs): the memory that [`GameStore::clear_caches`] gives back.
    pub fn cache_len(&self) -> usize {
        self.le_cache.len()
            + self.build_cache.len()
            + self.sum_cache.len()
            + self.neg_cache.len()
            + self.thermo_cache.len()
            + self.area_cache.len()
    }

    /// Empties the memo caches; the games themselves (and their ids) stay, and every
    /// cached answer is recomputed on demand, so results do not change. Long builds call
    /// this to bound their memory.
    pub fn clear_caches(&mut self) {
        self.le_cache = HashMap::default();
        self.build_cache = HashMap::default();
        self.sum_cache = HashMap::default();
        self.neg_cache = HashMap::default();
        self.thermo_cache = HashMap::default();
        self.thermo_shared = HashSet::default();
        self.area_cache = HashMap::default();
    }

    /// The id of the game stored at `index` (the inverse of [`GameId::index`]), if any.
    pub fn id_at(&self, index: usize) -> Option<GameId> {
        (index < self.nodes.len()).then_some(GameId(index as u32))
    }

    /// True if nothing is stored (never, 0 is always there).
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Left options of a canonical game (sorted by id).
    pub fn left(&self, g: GameId) -> &[GameId] {
        let n = &self.nodes[g.index()];
        &self.opts[n.start..n.start + n.lefts as usize]
    }

    /// Right options of a canonical game (sorted by id).
    pub fn right(&self, g: GameId) -> &[GameId] {
        let n = &self.nodes[g.index()];
        let from = n.start + n.lefts as usize;
        &self.opts[from..from + n.rights as usize]
    }

    /// The number-up-star form, if the game is one.
    pub fn nus(&self, g: GameId) -> Option<Nus> {
        self.nodes[g.index()].nus
    }

    /// The value, if the game is a number.
    pub fn number_value(&self, g: GameId) -> Option<Rational> {
        self.nus(g).filter(Nus::is_number).map(|n| n.number)
    }

    /// True if the game is a number.
    pub fn is_number(&self, g: GameId) -> bool {
        self.number_value(g).is_some()
    }

    /// True if the game is an integer.
    pub fn is_integer(&self, g: GameId) -> bool {
        self.number_value(g).is_some_and(Rational::is_integer)
    }

    /// The game 0 = `{|}`.
    pub fn zero(&mut self) -> GameId {
        self.intern(Vec::new(), Vec::new())
    }

    /// `* = {0|0}`.
    pub fn star(&mut self) -> GameId {
        self.nimber(1)
    }

    /// `↑ = {0|*}`.
    pub fn up(&mut self) -> GameId {
        let z = self.zero();
        let s = self.star();
        self.intern(vec![z], vec![s])
    }

    /// The nimber `*n`.
    pub fn nimber(&mut self, n: u32) -> GameId {
        let opts: Vec<GameId> = (0..n).map(|k| self.nimber(k)).collect();
        self.intern(opts.clone(), opts)
    }

    /// The canonical form of a dyadic number. Panics if `x` is not dyadic.
    pub fn number(&mut self, x: Rational) -> GameId {
        if let Some(&g) = self.numbers.get(&x) {
            return g;
        }
        assert!(x.is_dyadic(), "{x} is not a dyadic rational");
        let g = if x.is_integer() {
            if x == Rational::ZERO {
                self.intern(Vec::new(), Vec::new())
            } else if x > Rational::ZERO {
                let p = self.number(x - Rational::ONE);
                self.intern(vec![p], Vec::new())
            } else {
                let p = self.number(x + Rational::ONE);
                self.intern(Vec::new(), vec![p])
            }
        } else {
            let step = Rational::new(1, x.denom()).unwrap_or(Rational::ONE);
            let l = self.number(x - step);
            let r = self.number(x + step);
            self.intern(vec![l], vec![r])
        };
        self.numbers.insert(x, g);
        g
    }

    /// The integer `n`.
    pub fn integer(&mut self, n: i64) -> GameId {
        self.number(Rational::int(n))
    }

    /// [`GameStore::intern`] for the snapshot reader.
    pub(crate) fn intern_canonical(&mut self, left: Vec<GameId>, right: Vec<GameId>) -> GameId {
        self.intern(left, right)
    }

    /// Interns an option list that is already canonical (no dominated or reversible options).
    fn intern(&mut self, mut left: Vec<GameId>, mut right: Vec<GameId>) -> GameId {
        left.sort_unstable();
        left.dedup();
        right.sort_unstable();
        right.dedup();
        let hash = option_hash(&left, &right);
        let mut at = self.index.get(&hash).copied().unwrap_or(NONE);
        while at != NONE {
            let g = GameId(at);
            if self.left(g) == left.as_slice() && self.right(g) == right.as_slice() {
                return g;
            }
            at = self.nodes[g.index()].next;
        }
        let nus = self.recognize_nus(&left, &right);
        let stops = match nus.filter(Nus::is_number) {
            Some(n) => (n.number, n.number),
            None => (
                left.iter()
                    .map(|&x| self.right_stop(x))
                    .max()
                    .unwrap_or(Rational::ZERO),
                right
                    .iter()
                    .map(|&x| self.left_stop(x))
                    .min()
                    .unwrap_or(Rational::ZERO),
            ),
        };
        let raw = u32::try_from(self.nodes.len())
            .ok()
            .filter(|&i| i != NONE)
            .unwrap_or_else(|| panic!("game store full"));
        let id = GameId(raw);
        let start = self.opts.len();
        self.opts.extend_from_slice(&left);
        self.opts.extend_from_slice(&right);
        let next = self.index.insert(hash, raw).unwrap_or(NONE);
        self.nodes.push(Node {
            start,
            lefts: left.len() as u32,
            rights: right.len() as u32,
            next,
            nus,
            stops,
        });
        if let Some(n) = nus.filter(Nus::is_number) {
            self.numbers.entry(n.number).or_insert(id);
        }
        id
    }

    /// `{l | r}` as a number when it is one: every option a number and the largest Left
    /// option below the smallest Right one; the simplest number between them.
    fn number_of_options(&self, l: &[GameId], r: &[GameId]) -> Option<Rational> {
        let ln: Vec<Rational> = l
            .iter()
            .map(|&g| self.number_value(g))
            .collect::<Option<_>>()?;
        let rn: Vec<Rational> = r
            .iter()
            .map(|&g| self.number_value(g))
            .collect::<Option<_>>()?;
        let lo = ln.iter().copied().max();
        let hi = rn.iter().copied().min();
        let is_number = match (lo, hi) {
            (Some(a), Some(b)) => a < b,
            _ => true,
        };
        is_number.then(|| simplest_between(lo, hi))
    }

    /// Recognizes canonical number-up-star forms from their options.
    fn recognize_nus(&self, l: &[GameId], r: &[GameId]) -> Option<Nus> {
        if let Some(number) = self.number_of_options(l, r) {
            return Some(Nus {
                number,
                ups: 0,
                nimber: 0,
            });
        }
        let num = |g: GameId| self.number_value(g);
        let nus = |g: GameId| self.nus(g);
        // n + *m: L = R = {n + *k : k < m}.
        if !l.is_empty() && l == r {
            let first = nus(l[0])?;
            let n = first.number;
            let mut nims: Vec<u32> = Vec::new();
            for &g in l {
                let x = nus(g)?;
                if x.number != n || x.ups != 0 {
                    return None;
                }
                nims.push(x.nimber);
            }
            nims.sort_unstable();
            if nims.iter().enumerate().all(|(k, &v)| v == k as u32) {
                return Some(Nus {
                    number: n,
                    ups: 0,
                    nimber: nims.len() as u32,
                });
            }
            return None;
        }
        // {n, n* | n} = n↑* and {n | n, n*} = n↓*: the lone option n, the pair, the ups.
        let arrow = match (l, r) {
            (&[a, b], &[x]) => Some((x, a, b, 1)),
            (&[x], &[a, b]) => Some((x, a, b, -1)),
            _ => None,
        };
        if let Some((x, a, b, ups)) = arrow {
            let x = num(x)?;
            let a = nus(a)?;
            let b = nus(b)?;
            let ok = |p: Nus, q: Nus| {
                p.is_number() && p.number == x && q.number == x && q.ups == 0 && q.nimber == 1
            };
            if ok(a, b) || ok(b, a) {
                return Some(Nus {
                    number: x,
                    ups,
                    nimber: 1,
                });
            }
            return None;
        }
        if l.len() == 1 && r.len() == 1 {
            let a = nus(l[0])?;
            let b = nus(r[0])?;
            // {n | n + (k↑ + *m)}, k >= 0, not a number: n + (k+1)↑ + *(m^1).
            if a.is_number() && !b.is_number() && b.number == a.number && b.ups >= 0 {
                return Some(Nus {
                    number: a.number,
                    ups: b.ups + 1,
                    nimber: b.nimber ^ 1,
                });
            }
            if b.is_number() && !a.is_number() && a.number == b.number && a.ups <= 0 {
                return Some(Nus {
                    number: b.number,
                    ups: a.ups - 1,
                    nimber: a.nimber ^ 1,
                });
            }
        }
        None
    }

    // ----- comparison -----

    /// `g <= h`.
    pub fn le(&mut self, g: GameId, h: GameId) -> bool {
        if g == h {
            return true;
        }
        if let (Some(x), Some(y)) = (self.number_value(g), self.number_value(h)) {
            return x <= y;
        }
        // Stops settle many comparisons without a search: they are order-preserving
        // (g <= h implies L(g) <= L(h) and R(g) <= R(h)), and L(g) < R(h) gives
        // L(g - h) <= L(g) - R(h) < 0, so g - h < 0 (Siegel, Combinatorial Game Theory,
        // II.3: stops of sums, and a game with a negative left stop is negative).
        let ((gl, gr), (hl, hr)) = (self.nodes[g.index()].stops, self.nodes[h.index()].stops);
        if gl > hl || gr > hr {
            return false;
        }
        if gl < hr {
            return true;
        }
        if let Some(&b) = self.le_cache.get(&(g, h)) {
            return b;
        }
        // g <= h iff no g^L >= h and no h^R <= g.
        let mut result = true;
        for i in 0..self.right(h).len() {
            let x = self.right(h)[i];
            if self.le(x, g) {
                result = false;
                break;
            }
        }
        if result {
            for i in 0..self.left(g).len() {
                let x = self.left(g)[i];
                if self.le(h, x) {
                    result = false;
                    break;
                }
            }
        }
        self.le_cache.insert((g, h), result);
        result
    }

    /// `g >= h`.
    pub fn ge(&mut self, g: GameId, h: GameId) -> bool {
        self.le(h, g)
    }

    /// `g < h`.
    pub fn lt(&mut self, g: GameId, h: GameId) -> bool {
        g != h && self.le(g, h) && !self.le(h, g)
    }

    /// `g > h`.
    pub fn gt(&mut self, g: GameId, h: GameId) -> bool {
        self.lt(h, g)
    }

    /// `g == h` (canonical forms are unique).
    pub fn eq(&self, g: GameId, h: GameId) -> bool {
        g == h
    }

    /// `g || h`: incomparable (confused).
    pub fn confused(&mut self, g: GameId, h: GameId) -> bool {
        !self.le(g, h) && !self.le(h, g)
    }

    /// The partial order: `Some(Less/Equal/Greater)` or `None` if confused.
    pub fn compare(&mut self, g: GameId, h: GameId) -> Option<Ordering> {
        match (self.le(g, h), self.le(h, g)) {
            (true, true) => Some(Ordering::Equal),
            (true, false) => Some(Ordering::Less),
            (false, true) => Some(Ordering::Greater),
            (false, false) => None,
        }
    }

    /// The outcome class of `g`.
    pub fn outcome(&mut self, g: GameId) -> Outcome {
        let z = self.zero();
        match (self.le(z, g), self.le(g, z)) {
            (true, true) => Outcome::P,
            (true, false) => Outcome::L,
            (false, true) => Outcome::R,
            (false, false) => Outcome::N,
        }
    }

    /// Left options of a canonical game (`left`) or its right options.
    fn options(&self, g: GameId, left: bool) -> &[GameId] {
        if left {
            self.left(g)
        } else {
            self.right(g)
        }
    }

    /// `x <= G` (`below`) or `G <= x` (not `below`), where `G = {l | r}` is given by (not
    /// necessarily canonical) options: `x <= G` unless some `G^R <= x` or `G <= x^L`, and
    /// `G <= x` unless some `x <= G^L` or `x^R <= G`.
    fn le_proto(&mut self, x: GameId, l: &[GameId], r: &[GameId], below: bool) -> bool {
        for &o in if below { r } else { l } {
            let past = if below { self.le(o, x) } else { self.le(x, o) };
            if past {
                return false;
            }
        }
        for i in 0..self.options(x, below).len() {
            let y = self.options(x, below)[i];
            if self.le_proto(y, l, r, !below) {
                return false;
            }
        }
        true
    }

    // ----- construction -----

    /// The canonical form of `{l | r}` for canonical options `l`, `r`: dominated options
    /// are removed and reversible ones bypassed until none is left.
    pub fn game(&mut self, l: &[GameId], r: &[GameId]) -> GameId {
        let mut l: Vec<GameId> = l.to_vec();
        let mut r: Vec<GameId> = r.to_vec();
        l.sort_unstable();
        l.dedup();
        r.sort_unstable();
        r.dedup();
        let key: OptionKey = (l.iter().chain(&r).copied().collect(), l.len() as u32);
        if let Some(&g) = self.build_cache.get(&key) {
            return g;
        }
        let g = self.canonicalize(l, r);
        self.build_cache.insert(key, g);
        g
    }

    fn canonicalize(&mut self, mut l: Vec<GameId>, mut r: Vec<GameId>) -> GameId {
        // All options numbers: a number, or a switch between the best options.
        if let Some(x) = self.number_of_options(&l, &r) {
            return self.number(x);
        }
        loop {
            self.remove_dominated(&mut l, true);
            self.remove_dominated(&mut r, false);
            if !self.bypass_reversible(&mut l, &mut r, true)
                && !self.bypass_reversible(&mut l, &mut r, false)
            {
                break;
            }
        }
        self.intern(l, r)
    }

    /// Bypasses the first reversible option of Left (`left`) or of Right in `G = {l | r}`:
    /// a `G^L` with some `G^{LR} <= G` is replaced by the Left options of that `G^{LR}`,
    /// a `G^R` with some `G^{RL} >= G` by the Right options of that `G^{RL}`. Whether
    /// one was found.
    fn bypass_reversible(&mut self, l: &mut Vec<GameId>, r: &mut Vec<GameId>, left: bool) -> bool {
        let n = if left { l.len() } else { r.len() };
        for i in 0..n {
            let g = if left { l[i] } else { r[i] };
            let back: Vec<GameId> = self.options(g, !left).to_vec();
            for x in back {
                if self.le_proto(x, l, r, left) {
                    let repl: Vec<GameId> = self.options(x, left).to_vec();
                    let opts = if left { &mut *l } else { &mut *r };
                    opts.swap_remove(i);
                    for y in repl {
                        if !opts.contains(&y) {
                            opts.push(y);
                        }
                    }
                    return true;
                }
            }
        }
        false
    }

    /// Removes dominated options: for Left the ones `<=` another, for Right the ones `>=`.
    fn remove_dominated(&mut self, opts: &mut Vec<GameId>, left: bool) {
        opts.sort_unstable();
        opts.dedup();
        let n = opts.len();
        let mut keep = vec![true; n];
        for i in 0..n {
            if !keep[i] {
                continue;
            }
            for j in 0..n {
                if i == j || !keep[j] {
                    continue;
                }
                let dominated = if left {
                    self.le(opts[i], opts[j])
                } else {
                    self.le(opts[j], opts[i])
                };
                if dominated {
                    keep[i] = false;
                    break;
                }
            }
        }
        let mut k = 0;
        opts.retain(|_| {
            let b = keep[k];
            k += 1;
            b
        });
    }

    // ----- arithmetic -----

    /// `-g`.
    pub fn neg(&mut self, g: GameId) -> GameId {
        if let Some(&n) = self.neg_cache.get(&g) {
            return n;
        }
        if let Some(x) = self.number_value(g) {
            let n = self.number(-x);
            self.neg_cache.insert(g, n);
            return n;
        }
        let l: Vec<GameId> = self.left(g).to_vec();
        let r: Vec<GameId> = self.right(g).to_vec();
        let nl: Vec<GameId> = r.into_iter().map(|x| self.neg(x)).collect();
        let nr: Vec<GameId> = l.into_iter().map(|x| self.neg(x)).collect();
        // The negative of a canonical form is canonical.
        let n = self.intern(nl, nr);
        self.neg_cache.insert(g, n);
        self.neg_cache.insert(n, g);
        n
    }

    /// The disjunctive sum `g + h` (memoized).
    pub fn add(&mut self, g: GameId, h: GameId) -> GameId {
        let z = self.zero();
        if g == z {
            return h;
        }
        if h == z {
            return g;
        }
        let (a, b) = if g <= h { (g, h) } else { (h, g) };
        if let Some(&s) = self.sum_cache.get(&(a, b)) {
            return s;
        }
        let xa = self.number_value(a);
        let xb = self.number_value(b);
        let s = match (xa, xb) {
            (Some(x), Some(y)) => self.number(x + y),
            _ => {
                let mut l = Vec::new();
                let mut r = Vec::new();
                // Number avoidance: never move in a number while the other part is not one.
                if xa.is_none() {
                    for x in self.left(a).to_vec() {
                        l.push(self.add(x, b));
                    }
                    for x in self.right(a).to_vec() {
                        r.push(self.add(x, b));
                    }
                }
                if xb.is_none() {
                    for x in self.left(b).to_vec() {
                        l.push(self.add(a, x));
                    }
                    for x in self.right(b).to_vec() {
                        r.push(self.add(a, x));
                    }
                }
                self.game(&l, &r)
            }
        };
        self.sum_cache.insert((a, b), s);
        s
    }

    /// `g - h`.
    pub fn sub(&mut self, g: GameId, h: GameId) -> GameId {
        let nh = self.neg(h);
        self.add(g, nh)
    }

    /// The sum of many games.
    pub fn sum(&mut self, games: &[GameId]) -> GameId {
        let mut s = self.zero();
        for &g in games {
            s = self.add(s, g);
        }
        s
    }

    // ----- stops -----

    /// The left stop (the number reached with Left moving first and alternate play).
    pub fn left_stop(&self, g: GameId) -> Rational {
        self.nodes[g.index()].stops.0
    }

    /// The right stop.
    pub fn right_stop(&self, g: GameId) -> Rational {
        self.nodes[g.index()].stops.1
    }

    /// The birthday (height of the game tree of the canonical form).
    pub fn birthday(&self, g: GameId) -> usize {
        self.left(g)
            .iter()
            .chain(self.right(g))
            .map(|&x| self.birthday(x) + 1)
            .max()
            .unwrap_or(0)
    }
}

#[cfg(test)]
mod tests;
