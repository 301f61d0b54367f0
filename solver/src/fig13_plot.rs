//! SVG plots of the solver comparison in the style of the paper's Fig. 13 (plotters, SVG backend).

use crate::fig13::{BoardRun, Fig13Options, Outcome};
use plotters::prelude::*;

/// The plot of one board: nodes (search, or search plus extraction when `total`) on a
/// log axis against the test case, one line per configuration; solves over the budget
/// are drawn as crosses on the dashed budget line and break their configuration's line;
/// a configuration's line ends where the give-up rule stopped running it.
pub fn svg(r: &BoardRun, o: &Fig13Options, total: bool) -> Result<String, String> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (960, 560)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let n = r.cases.len().max(1);
        let nodes = |j: usize, i: usize| -> (f64, Outcome) {
            let m = &r.rows[i][j];
            let v = if total {
                m.search.nodes + m.extraction.nodes
            } else {
                m.search.nodes
            };
            (v.max(1) as f64, m.outcome)
        };
        let budget = o.budget(&r.board) as f64;
        let top = (budget * 4.0).max(10.0);
        let what = if total {
            "search + extraction nodes"
        } else {
            "search nodes"
        };
        let mut chart = ChartBuilder::on(&root)
            .caption(
                format!("{}: {what} per test case (budget {budget:.0})", r.board),
                ("sans-serif", 20),
            )
            .margin(12)
            .x_label_area_size(45)
            .y_label_area_size(80)
            .build_cartesian_2d(0.5f64..(n as f64 + 0.5), (1f64..top).log_scale())
            .map_err(|e| e.to_string())?;
        let empties: Vec<u32> = r.cases.iter().map(|c| c.empties).collect();
        chart
            .configure_mesh()
            .x_desc("test case (empty squares in parentheses; they grow to the right)")
            .y_desc(what)
            .x_labels(n.min(40))
            .x_label_formatter(&|x| {
                let i = x.round() as usize;
                match empties.get(i.wrapping_sub(1)) {
                    Some(e) if (x - i as f64).abs() < 1e-6 => format!("{i} ({e})"),
                    _ => String::new(),
                }
            })
            .y_label_formatter(&|y| format!("{y:.0e}"))
            .draw()
            .map_err(|e| e.to_string())?;
        chart
            .draw_series(DashedLineSeries::new(
                [(0.5, budget), (n as f64 + 0.5, budget)],
                6,
                4,
                BLACK.mix(0.5).stroke_width(1),
            ))
            .map_err(|e| e.to_string())?
            .label("node budget")
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLACK.mix(0.5)));
        for (j, c) in o.configs.iter().enumerate() {
            let color = Palette99::pick(j).to_rgba();
            let width = if c.kind == crate::solvers::SolverKind::Ab {
                3
            } else {
                2
            };
            // Solved points, split into runs at the cases over the budget.
            let mut segment: Vec<(f64, f64)> = Vec::new();
            let mut segments = Vec::new();
            let mut over = Vec::new();
            for i in 0..r.cases.len() {
                let (v, outcome) = nodes(j, i);
                let x = i as f64 + 1.0;
                match outcome {
                    Outcome::Solved(_) => segment.push((x, v)),
                    Outcome::OverBudget { .. } => {
                        over.push((x, budget));
                        segments.push(std::mem::take(&mut segment));
                    }
                    Outcome::NotRun => segments.push(std::mem::take(&mut segment)),
                }
            }
            segments.push(segment);
            for (k, seg) in segments.iter().enumerate() {
                let drawn = chart
                    .draw_series(LineSeries::new(
                        seg.iter().copied(),
                        color.stroke_width(width),
                    ))
                    .map_err(|e| e.to_string())?;
                if k == 0 {
                    drawn.label(c.label()).legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(width))
                    });
                }
                chart
                    .draw_series(seg.iter().map(|&p| Circle::new(p, 3, color.filled())))
                    .map_err(|e| e.to_string())?;
            }
            chart
                .draw_series(
                    over.iter()
                        .map(|&p| Cross::new(p, 6, color.stroke_width(2))),
                )
                .map_err(|e| e.to_string())?;
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .position(SeriesLabelPosition::UpperLeft)
            .draw()
            .map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(out)
}
