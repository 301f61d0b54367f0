//! A parser for CGSuite game notation: `{a,b|c}`, slashes `{4||2|0}`, numbers `-3/4`, `*2`, `^`, `v*`, `^^`, `+-1`, `+-{1,{2|0}}`.

use crate::error::CgtError;
use crate::game::{GameId, GameStore};
use crate::rational::Rational;

struct Parser<'a> {
    s: &'a [u8],
    pos: usize,
    text: &'a str,
}

enum Piece {
    List(Vec<GameId>),
    Bars(usize),
}

impl<'a> Parser<'a> {
    fn err(&self, reason: &str) -> CgtError {
        CgtError::Parse {
            text: self.text.to_string(),
            reason: format!("{reason} at byte {}", self.pos),
        }
    }

    fn skip_ws(&mut self) {
        while self.pos < self.s.len() && self.s[self.pos].is_ascii_whitespace() {
            self.pos += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.skip_ws();
        self.s.get(self.pos).copied()
    }

    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    /// A sequence of option lists separated by runs of bars, up to `}` or the end.
    fn seq(&mut self, store: &mut GameStore) -> Result<Vec<Piece>, CgtError> {
        let mut pieces = Vec::new();
        let mut list = Vec::new();
        loop {
            match self.peek() {
                None | Some(b'}') => break,
                Some(b'|') => {
                    pieces.push(Piece::List(std::mem::take(&mut list)));
                    let mut n = 0;
                    while self.eat(b'|') {
                        n += 1;
                    }
                    pieces.push(Piece::Bars(n));
                }
                Some(b',') => {
                    self.pos += 1;
                }
                Some(_) => {
                    let g = self.item(store)?;
                    list.push(g);
                }
            }
        }
        pieces.push(Piece::List(list));
        Ok(pieces)
    }

    fn build(&self, store: &mut GameStore, pieces: &[Piece]) -> Result<GameId, CgtError> {
        let mut best: Option<(usize, usize)> = None;
        let mut ties = 0;
        for (i, p) in pieces.iter().enumerate() {
            if let Piece::Bars(n) = p {
                match best {
                    Some((_, m)) if *n < m => {}
                    Some((_, m)) if *n == m => ties += 1,
                    _ => {
                        best = Some((i, *n));
                        ties = 0;
                    }
                }
            }
        }
        let Some((i, _)) = best else {
            return Err(self.err("expected '|'"));
        };
        if ties > 0 {
            return Err(self.err("ambiguous slashes"));
        }
        let l = self.side(store, &pieces[..i])?;
        let r = self.side(store, &pieces[i + 1..])?;
        Ok(store.game(&l, &r))
    }

    fn side(&self, store: &mut GameStore, pieces: &[Piece]) -> Result<Vec<GameId>, CgtError> {
        if pieces.len() == 1 {
            if let Piece::List(l) = &pieces[0] {
                return Ok(l.clone());
            }
        }
        Ok(vec![self.build(store, pieces)?])
    }

    /// `postfix ('+' postfix)*` (also `x+-y`).
    fn item(&mut self, store: &mut GameStore) -> Result<GameId, CgtError> {
        let mut g = self.postfix(store)?;
        while self.peek() == Some(b'+') {
            if self.s.get(self.pos + 1) != Some(&b'-') {
                self.pos += 1;
            }
            let h = self.postfix(store)?;
            g = store.add(g, h);
        }
        Ok(g)
    }

    /// `primary ['.Tiny' | '.Miny']`: `x.Tiny = {0||0|-x}`, `x.Miny = {x|0||0}`.
    fn postfix(&mut self, store: &mut GameStore) -> Result<GameId, CgtError> {
        let g = self.primary(store)?;
        if self.peek() == Some(b'.') {
            let rest = &self.s[self.pos + 1..];
            let tiny = rest.starts_with(b"Tiny");
            if !tiny && !rest.starts_with(b"Miny") {
                return Err(self.err("expected .Tiny or .Miny"));
            }
            self.pos += 5;
            let z = store.zero();
            let ng = store.neg(g);
            return Ok(if tiny {
                let inner = store.game(&[z], &[ng]);
                store.game(&[z], &[inner])
            } else {
                let inner = store.game(&[g], &[z]);
                store.game(&[inner], &[z])
            });
        }
        Ok(g)
    }

    fn primary(&mut self, store: &mut GameStore) -> Result<GameId, CgtError> {
        match self.peek() {
            Some(b'(') => {
                self.pos += 1;
                let g = self.item(store)?;
                if !self.eat(b')') {
                    return Err(self.err("expected ')'"));
                }
                Ok(g)
            }
            Some(b'{') => {
                self.pos += 1;
                let pieces = self.seq(store)?;
                if !self.eat(b'}') {
                    return Err(self.err("expected '}'"));
                }
                self.build(store, &pieces)
            }
            Some(b'+') if self.s.get(self.pos + 1) == Some(&b'-') => {
                self.pos += 2;
                let opts: Vec<GameId> = if self.peek() == Some(b'{') {
                    self.pos += 1;
                    let pieces = self.seq(store)?;
                    if !self.eat(b'}') {
                        return Err(self.err("expected '}'"));
                    }
                    if pieces.len() == 1 {
                        match &pieces[0] {
                            Piece::List(l) => l.clone(),
                            Piece::Bars(_) => return Err(self.err("bad +-")),
                        }
                    } else {
                        vec![self.build(store, &pieces)?]
                    }
                } else {
                    vec![self.postfix(store)?]
                };
                let neg: Vec<GameId> = opts.iter().map(|&g| store.neg(g)).collect();
                Ok(store.game(&opts, &neg))
            }
            Some(_) => self.nus(store),
            None => Err(self.err("unexpected end")),
        }
    }

    fn digits(&mut self) -> Option<i64> {
        let start = self.pos;
        while self.pos < self.s.len() && self.s[self.pos].is_ascii_digit() {
            self.pos += 1;
        }
        std::str::from_utf8(&self.s[start..self.pos])
            .ok()?
            .parse()
            .ok()
    }

    fn nus(&mut self, store: &mut GameStore) -> Result<GameId, CgtError> {
        self.skip_ws();
        let start = self.pos;
        let negative = self.s.get(self.pos) == Some(&b'-');
        if negative {
            self.pos += 1;
        }
        let mut number = Rational::ZERO;
        if let Some(n) = self.digits() {
            let mut x = Rational::int(n);
            if self.s.get(self.pos) == Some(&b'/') {
                self.pos += 1;
                let d = self.digits().ok_or_else(|| self.err("bad fraction"))?;
                x = Rational::new(n, d).ok_or_else(|| self.err("bad fraction"))?;
                if !x.is_dyadic() {
                    return Err(self.err("not a dyadic rational"));
                }
            }
            number = if negative { -x } else { x };
        } else if negative {
            return Err(self.err("expected a number after '-'"));
        }
        let mut ups: i64 = 0;
        while let Some(&c) = self.s.get(self.pos) {
            match c {
                b'^' => ups += 1,
                b'v' => ups -= 1,
                _ => break,
            }
            self.pos += 1;
        }
        if ups.abs() == 1 {
            if let Some(k) = self.digits() {
                ups *= k;
            }
        }
        let mut nim: Option<u32> = None;
        if self.s.get(self.pos) == Some(&b'*') {
            self.pos += 1;
            nim = Some(match self.digits() {
                Some(k) => u32::try_from(k).map_err(|_| self.err("bad nimber"))?,
                None => 1,
            });
        }
        if self.pos == start {
            return Err(self.err("unexpected character"));
        }
        let mut g = store.number(number);
        if ups != 0 {
            let u = store.up();
            let u = if ups < 0 { store.neg(u) } else { u };
            for _ in 0..ups.abs() {
                g = store.add(g, u);
            }
        }
        if let Some(k) = nim {
            let s = store.nimber(k);
            g = store.add(g, s);
        }
        Ok(g)
    }
}

impl GameStore {
    /// Parses CGSuite notation into a canonical game.
    pub fn parse(&mut self, text: &str) -> Result<GameId, CgtError> {
        let mut p = Parser {
            s: text.as_bytes(),
            pos: 0,
            text,
        };
        let pieces = p.seq(self)?;
        if p.peek().is_some() {
            return Err(p.err("trailing input"));
        }
        if pieces.len() == 1 {
            if let Piece::List(l) = &pieces[0] {
                if l.len() == 1 {
                    return Ok(l[0]);
                }
            }
            return Err(p.err("expected one game"));
        }
        p.build(self, &pieces)
    }
}
