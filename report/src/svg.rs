//! Static SVG for the report's HTML: boards with a move drawn (the browser draws the same in JavaScript) and bar charts.

use amazons_format::{Cell, Move, Position};
use std::fmt::Write;

const C: usize = 36;
const M: usize = 18;

/// A board with its queens and arrows, and `mv` drawn (queen path and arrow shot). Each
/// cell carries `data-sq` (its name) and `data-c` (`X`, `O`, `#` or `.`).
pub fn board(pos: &Position, mv: Option<Move>, id: &str) -> String {
    let (w, h) = (pos.board.width as usize, pos.board.height as usize);
    let (width, height) = (2 * M + w * C, 2 * M + h * C);
    let center = |sq: usize| {
        let (x, y) = (sq % w, sq / w);
        (M + x * C + C / 2, M + (h - 1 - y) * C + C / 2)
    };
    let mut s = format!(
        r#"<svg class="board" id="{id}" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" width="{width}" height="{height}">"#
    );
    for y in (0..h).rev() {
        for x in 0..w {
            let sq = y * w + x;
            let cell = pos.cells.get(sq).copied().unwrap_or(Cell::Empty);
            let shade = if (x + y) % 2 == 1 { "l" } else { "d" };
            let arrow = if cell == Cell::Arrow { " arrow" } else { "" };
            let _ = write!(
                s,
                r#"<rect class="sq {shade}{arrow}" data-sq="{}" data-c="{}" x="{}" y="{}" width="{C}" height="{C}"/>"#,
                pos.board.square_name(sq as u8),
                cell.to_char(),
                M + x * C,
                M + (h - 1 - y) * C
            );
        }
    }
    for (sq, &cell) in pos.cells.iter().enumerate() {
        let (cx, cy) = center(sq);
        match cell {
            Cell::White | Cell::Black => {
                let class = if cell == Cell::White {
                    "white"
                } else {
                    "black"
                };
                let _ = write!(
                    s,
                    r#"<circle class="queen {class}" cx="{cx}" cy="{cy}" r="{}"/>"#,
                    C as f64 * 0.33
                );
            }
            Cell::Arrow => {
                let _ = write!(
                    s,
                    r#"<path class="arrowmark" d="M{} {}L{} {}M{} {}L{} {}"/>"#,
                    cx - 9,
                    cy - 9,
                    cx + 9,
                    cy + 9,
                    cx + 9,
                    cy - 9,
                    cx - 9,
                    cy + 9
                );
            }
            Cell::Empty => {}
        }
    }
    if let Some(m) = mv {
        let ((x1, y1), (x2, y2), (x3, y3)) = (
            center(m.from as usize),
            center(m.to as usize),
            center(m.arrow as usize),
        );
        let _ = write!(
            s,
            r#"<line class="path" x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" marker-end="url(#{id}h)"/><line class="shot" x1="{x2}" y1="{y2}" x2="{x3}" y2="{y3}" marker-end="url(#{id}s)"/>"#
        );
    }
    for x in 0..w {
        let _ = write!(
            s,
            r#"<text class="coord" x="{}" y="{}">{}</text>"#,
            M + x * C + C / 2,
            height - 4,
            (b'a' + x as u8) as char
        );
    }
    for y in 0..h {
        let _ = write!(
            s,
            r#"<text class="coord" x="{}" y="{}">{}</text>"#,
            M / 2,
            M + (h - 1 - y) * C + C / 2 + 4,
            y + 1
        );
    }
    let _ = write!(
        s,
        r#"<defs><marker id="{id}h" markerWidth="6" markerHeight="6" refX="5" refY="3" orient="auto"><path d="M0,0L6,3L0,6z" class="headp"/></marker><marker id="{id}s" markerWidth="6" markerHeight="6" refX="5" refY="3" orient="auto"><path d="M0,0L6,3L0,6z" class="heads"/></marker></defs></svg>"#
    );
    s
}

/// A horizontal bar chart: one labelled bar per `(label, value)`, values printed.
pub fn bars(rows: &[(String, u64)], id: &str) -> String {
    let max = rows.iter().map(|r| r.1).max().unwrap_or(1).max(1);
    let (label_w, bar_w, row_h) = (130usize, 300usize, 16usize);
    let height = rows.len() * row_h + 4;
    let mut s = format!(
        r#"<svg class="chart" id="{id}" xmlns="http://www.w3.org/2000/svg" width="{}" height="{height}">"#,
        label_w + bar_w + 110
    );
    for (i, (label, value)) in rows.iter().enumerate() {
        let y = i * row_h + 2;
        let w = (*value as f64 / max as f64 * bar_w as f64).max(if *value > 0 { 1.0 } else { 0.0 });
        let _ = write!(
            s,
            r#"<text x="{}" y="{}" text-anchor="end">{}</text><rect x="{}" y="{y}" width="{w:.1}" height="{}"/><text x="{}" y="{}">{}</text>"#,
            label_w - 6,
            y + 11,
            crate::html::esc(label),
            label_w,
            row_h - 4,
            label_w as f64 + w + 4.0,
            y + 11,
            crate::html::thousands(*value)
        );
    }
    s.push_str("</svg>");
    s
}
