//! CGSuite printing of a store's games: option order, plain and brace notation, and the length-limited display (above `thermography`: the slash forms compare means).

use crate::game::{GameId, GameStore, Nus};
use crate::rational::Rational;
use std::cmp::Ordering;
use std::fmt::Write as _;

impl GameStore {
    /// CGSuite's deterministic ordering of options: numbers, then nimbers, then other
    /// number-up-stars, then the rest by their sorted option lists.
    pub fn cgsuite_cmp(&self, g: GameId, h: GameId) -> Ordering {
        if g == h {
            return Ordering::Equal;
        }
        let rank = |x: Option<Nus>| match x {
            Some(n) if n.is_number() => 0,
            Some(n) if n.number == Rational::ZERO && n.ups == 0 => 1,
            Some(_) => 2,
            None => 3,
        };
        let (a, b) = (self.nus(g), self.nus(h));
        let (ra, rb) = (rank(a), rank(b));
        if ra != rb {
            return ra.cmp(&rb);
        }
        match (a, b) {
            (Some(a), Some(b)) => match ra {
                0 => a.number.cmp(&b.number),
                1 => a.nimber.cmp(&b.nimber),
                _ => (a.number, a.ups, a.nimber).cmp(&(b.number, b.ups, b.nimber)),
            },
            _ => {
                let gl = self.sorted(self.left(g));
                let hl = self.sorted(self.left(h));
                let c = self.cmp_lists(&gl, &hl);
                if c != Ordering::Equal {
                    return c;
                }
                let gr = self.sorted(self.right(g));
                let hr = self.sorted(self.right(h));
                self.cmp_lists(&gr, &hr)
            }
        }
    }

    fn cmp_lists(&self, a: &[GameId], b: &[GameId]) -> Ordering {
        for (x, y) in a.iter().zip(b) {
            let c = self.cgsuite_cmp(*x, *y);
            if c != Ordering::Equal {
                return c;
            }
        }
        a.len().cmp(&b.len())
    }

    fn sorted(&self, opts: &[GameId]) -> Vec<GameId> {
        let mut v = opts.to_vec();
        v.sort_by(|&a, &b| self.cgsuite_cmp(a, b));
        v
    }

    /// The CGSuite notation of `g` (plain text): numbers `1/2`, `*2`, `^`, `v*`, `+-1`,
    /// `+-{1,{2|0}}`, `{3|{1|0},*}`, slashes `{4||2|0}` for single nested options.
    pub fn display(&mut self, g: GameId) -> String {
        let mut out = String::new();
        let _ = self.append(g, &mut out, true, false, usize::MAX);
        out
    }

    /// [`GameStore::display`] if it has at most `max_len` characters, else `None`. The
    /// printing stops as soon as the text is too long, so a huge game (whose text can grow
    /// exponentially with its height) costs about `max_len` characters of work.
    pub fn display_within(&mut self, g: GameId, max_len: usize) -> Option<String> {
        // Sorting the options of a large game the CGSuite way costs far more than its
        // text: rule such games out first.
        if self.text_lower_bound(g, max_len) > max_len {
            return None;
        }
        let mut out = String::new();
        self.append(g, &mut out, true, false, max_len)?;
        Some(out)
    }

    /// A lower bound on the length of `g`'s text, exact up to `cap + 1` at most (the walk
    /// stops there, so it costs about `cap` steps). Every option [`GameStore::append`]
    /// prints has a text of its own: a `+-` form prints its Left options, other forms both
    /// sides with separators, and a `.Tiny`/`.Miny` form (one option each side) at least
    /// its five-letter suffix.
    pub(crate) fn text_lower_bound(&self, g: GameId, cap: usize) -> usize {
        if self.nus(g).is_some() {
            return 1;
        }
        let (l, r) = (self.left(g), self.right(g));
        let maybe_pm =
            !l.is_empty() && l.len() == r.len() && self.left_stop(g) == -self.right_stop(g);
        let sum = |opts: &[GameId], mut total: usize| {
            for &x in opts {
                if total > cap {
                    break;
                }
                total += self.text_lower_bound(x, cap - total) + 1;
            }
            total
        };
        // `+-` and one separator after each option; else one separator after each option
        // but the last, the bar counted in its place.
        let bound = if maybe_pm {
            sum(l, 1)
        } else {
            sum(r, sum(l, 0)).saturating_sub(1)
        };
        if l.len() == 1 && r.len() == 1 {
            bound.min(5)
        } else {
            bound
        }
    }

    fn append_nus(&self, n: Nus, out: &mut String, force_parens: bool) {
        let is_nimber = n.number == Rational::ZERO && n.ups == 0;
        // Parentheses around a number-up-star with a number or a star next to its ups.
        let pure_ups = n.number == Rational::ZERO && n.nimber == 0;
        let parens = force_parens && !n.is_number() && !is_nimber && !pure_ups;
        if parens {
            out.push('(');
        }
        if n.number != Rational::ZERO || (n.nimber == 0 && n.ups == 0) {
            let _ = write!(out, "{}", n.number);
        }
        if n.ups != 0 {
            out.push_str(match n.ups {
                2 => "^^",
                -2 => "vv",
                x if x > 0 => "^",
                _ => "v",
            });
            if n.ups.abs() > 2 {
                let _ = write!(out, "{}", n.ups.abs());
            }
        }
        if n.nimber != 0 {
            out.push('*');
            if n.nimber > 1 {
                let _ = write!(out, "{}", n.nimber);
            }
        }
        if parens {
            out.push(')');
        }
    }

    /// CGSuite's `isNumberTiny`: `{x || x | y}` with `mean(y) < x` (or the mirror image).
    fn number_tiny(&mut self, g: GameId) -> Option<(bool, GameId, GameId)> {
        let l = self.left(g).to_vec();
        let r = self.right(g).to_vec();
        if l.len() != 1 || r.len() != 1 {
            return None;
        }
        if let Some(x) = self.number_value(l[0]) {
            let rl = self.left(r[0]).to_vec();
            let rr = self.right(r[0]).to_vec();
            if rl.len() == 1 && rr.len() == 1 && rl[0] == l[0] && self.mean(rr[0]) < x {
                // Tiny: translate x, subscript x - y.
                let sub = self.sub(l[0], rr[0]);
                return Some((true, l[0], sub));
            }
        }
        if let Some(x) = self.number_value(r[0]) {
            let ll = self.left(l[0]).to_vec();
            let lr = self.right(l[0]).to_vec();
            if lr.len() == 1 && ll.len() == 1 && lr[0] == r[0] && self.mean(ll[0]) > x {
                let sub = self.sub(ll[0], r[0]);
                return Some((false, r[0], sub));
            }
        }
        None
    }

    /// Appends `g`; returns the number of slashes used at the top level (0 if bracketed),
    /// or `None` as soon as `out` or a part of it grows past `limit` characters (the parts
    /// all end up in the text, so the whole would be longer still).
    fn append(
        &mut self,
        g: GameId,
        out: &mut String,
        force_brackets: bool,
        force_parens: bool,
        limit: usize,
    ) -> Option<usize> {
        const MAX_SLASHES: usize = 4;
        if out.len() > limit {
            return None;
        }
        if let Some(n) = self.nus(g) {
            self.append_nus(n, out, force_parens);
            return (out.len() <= limit).then_some(0);
        }
        let lo = self.sorted(self.left(g));
        let ro = self.sorted(self.right(g));
        // `g = -g` needs as many Left as Right options and L(g) = -R(g); checking that
        // first spares negating (and storing the negative of) every large game printed.
        let maybe_pm =
            !lo.is_empty() && lo.len() == ro.len() && self.left_stop(g) == -self.right_stop(g);
        if maybe_pm && self.neg(g) == g {
            out.push_str("+-");
            if lo.len() > 1 {
                out.push('{');
            }
            for (i, &x) in lo.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                self.append(x, out, true, lo.len() == 1, limit)?;
            }
            if lo.len() > 1 {
                out.push('}');
            }
            return (out.len() <= limit).then_some(0);
        }
        if let Some((tiny, translate, subscript)) = self.number_tiny(g) {
            if force_parens {
                out.push('(');
            }
            let z = self.zero();
            if translate != z {
                self.append(translate, out, false, false, limit)?;
                out.push('+');
            }
            let frac = self
                .number_value(subscript)
                .is_some_and(|x| !x.is_integer());
            if frac {
                out.push('(');
            }
            self.append(subscript, out, true, true, limit)?;
            if frac {
                out.push(')');
            }
            out.push_str(if tiny { ".Tiny" } else { ".Miny" });
            if force_parens {
                out.push(')');
            }
            return (out.len() <= limit).then_some(0);
        }
        let (left_out, slashes_l) = self.options_text(&lo, limit)?;
        let (right_out, slashes_r) = self.options_text(&ro, limit)?;
        let slashes = slashes_l.max(slashes_r);
        let brackets = force_brackets || slashes >= MAX_SLASHES;
        if brackets {
            out.push('{');
        }
        out.push_str(&left_out);
        for _ in 0..slashes.min(MAX_SLASHES) {
            out.push('|');
        }
        out.push_str(&right_out);
        if brackets {
            out.push('}');
        }
        if out.len() > limit {
            return None;
        }
        Some(if brackets { 0 } else { slashes })
    }

    /// One side's options `opts` comma-separated (each in braces when there are
    /// several), and the fewest slashes that can separate them from the other side's.
    fn options_text(&mut self, opts: &[GameId], limit: usize) -> Option<(String, usize)> {
        let mut text = String::new();
        let mut slashes = 1;
        for (i, &x) in opts.iter().enumerate() {
            if i > 0 {
                text.push(',');
            }
            let inner = self.append(x, &mut text, opts.len() > 1, false, limit)?;
            slashes = slashes.max(inner + 1);
        }
        Some((text, slashes))
    }

    /// The game written with braces only, options in CGSuite order (no `+-`, no slashes).
    pub fn display_braces(&mut self, g: GameId) -> String {
        if let Some(n) = self.nus(g) {
            let mut s = String::new();
            self.append_nus(n, &mut s, false);
            return s;
        }
        let lo = self.sorted(self.left(g));
        let ro = self.sorted(self.right(g));
        let l: Vec<String> = lo.iter().map(|&x| self.display_braces(x)).collect();
        let r: Vec<String> = ro.iter().map(|&x| self.display_braces(x)).collect();
        format!("{{{}|{}}}", l.join(","), r.join(","))
    }
}
