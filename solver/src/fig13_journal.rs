//! The journal of a Fig. 13 run: one line per finished solve, appended and synced, so that a rerun skips what is done.

use crate::eval::cgt::{ActiveCensus, CENSUS_SIZES};
use crate::fig13::{Case, Cost, Fig13Error, Fig13Options, Measure, Outcome, SolverConfig, Usage};
use amazons_format::Color;
use std::collections::HashMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// The journal of one board: `DIR/fig13-BOARD.journal`, a header line with the settings
/// the node counts depend on, then one tab-separated line per finished solve (cases over
/// the budget included; configurations the give-up rule skipped are not written).
pub struct Journal {
    path: PathBuf,
    file: std::fs::File,
    done: HashMap<(String, String), Measure>,
}

/// The key of a case: its grid and side to move (the case numbers change with the
/// selection; the positions do not).
fn case_key(case: &Case) -> String {
    format!("{} {}", case.position.grid(), case.position.to_move)
}

/// The header line: the settings that decide the node counts.
fn header(board: &str, o: &Fig13Options) -> String {
    format!(
        "# amazons testset fig13 journal v1: board={board} max_nodes={} ab_log2={} dfpn_log2={} plain_mib={}",
        o.budget(board),
        o.ab_log2,
        o.dfpn_log2,
        o.plain_mib
    )
}

impl Journal {
    /// Opens (or creates) the journal of `board` in `dir` and reads the solves it holds.
    /// A last line cut short by a crash is dropped; a journal written with other settings
    /// is an error (another output directory, or delete it).
    pub fn open(dir: &Path, board: &str, o: &Fig13Options) -> Result<Journal, Fig13Error> {
        let path = dir.join(format!("fig13-{board}.journal"));
        let io = |source| Fig13Error::Io {
            path: path.clone(),
            source,
        };
        std::fs::create_dir_all(dir).map_err(io)?;
        let head = header(board, o);
        let mut done = HashMap::new();
        let text = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(io(e)),
        };
        // Complete lines only: cut after the last newline.
        let complete = text.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(&path)
            .map_err(io)?;
        file.set_len(complete as u64).map_err(io)?;
        let text = String::from_utf8_lossy(&text[..complete]).into_owned();
        let mut lines = text.lines();
        match lines.next() {
            None => {
                let mut f = &file;
                f.write_all(format!("{head}\n").as_bytes()).map_err(io)?;
                file.sync_all().map_err(io)?;
            }
            Some(first) if first == head => {}
            Some(first) => {
                return Err(Fig13Error::Usage(format!(
                    "{}: written with other settings ({first}); this run: {head}. Use another output directory or delete the journal",
                    path.display()
                )))
            }
        }
        for (n, line) in lines.enumerate() {
            let (key, m) = parse_line(line, &o.configs).ok_or_else(|| {
                Fig13Error::Usage(format!("{}: line {} is damaged", path.display(), n + 2))
            })?;
            done.insert(key, m);
        }
        let mut j = Journal { path, file, done };
        // Append from here on.
        use std::io::Seek as _;
        j.file
            .seek(std::io::SeekFrom::End(0))
            .map_err(|source| Fig13Error::Io {
                path: j.path.clone(),
                source,
            })?;
        Ok(j)
    }

    /// The solves the journal holds.
    pub fn len(&self) -> usize {
        self.done.len()
    }

    /// Whether the journal holds no solve.
    pub fn is_empty(&self) -> bool {
        self.done.is_empty()
    }

    /// The recorded solve of `case` with `config`, if any.
    pub fn get(&self, case: &Case, config: SolverConfig) -> Option<Measure> {
        self.done
            .get(&(case_key(case), config.label()))
            .filter(|m| m.config == config)
            .cloned()
    }

    /// Appends the solve of `case` and syncs it to the disk.
    pub fn append(&mut self, case: &Case, m: &Measure) -> Result<(), Fig13Error> {
        let line = format_line(case, m);
        let io = |source| Fig13Error::Io {
            path: self.path.clone(),
            source,
        };
        self.file.write_all(line.as_bytes()).map_err(io)?;
        self.file.sync_data().map_err(io)?;
        self.done
            .insert((case_key(case), m.config.label()), m.clone());
        Ok(())
    }
}

fn list(v: &[u64]) -> String {
    v.iter().map(u64::to_string).collect::<Vec<_>>().join(",")
}

/// One line: case key, config, outcome, the numbers, the census (or `-`).
fn format_line(case: &Case, m: &Measure) -> String {
    let outcome = match m.outcome {
        Outcome::Solved(c) => format!("solved:{}", c.name()),
        Outcome::OverBudget {
            in_extraction: false,
        } => "over:search".into(),
        Outcome::OverBudget {
            in_extraction: true,
        } => "over:extraction".into(),
        Outcome::NotRun => "not-run".into(),
    };
    let opt = |v: Option<f64>| v.map_or("-".to_string(), |x| format!("{x:.6}"));
    let census = m.census.as_ref().map_or("-\t-\t-\t-\t-".to_string(), |c| {
        format!(
            "{}\t{}\t{}\t{}\t{}",
            list(&c.asked),
            list(&c.answered),
            c.nanos,
            c.evals_with_hit,
            c.decided_with_hit
        )
    });
    format!(
        "{}\t{}\t{}\t{}\t{}\t{:.6}\t{:.6}\t{}\t{}\t{}\t{}\t{}\n",
        case_key(case),
        m.config.label(),
        outcome,
        m.search.nodes,
        m.extraction.nodes,
        m.search.secs,
        m.extraction.secs,
        opt(m.usage.cpu_s),
        opt(m.usage.peak_mib),
        m.evaluations,
        m.eval_decided,
        census
    )
}

fn parse_list(s: &str) -> Option<[u64; CENSUS_SIZES + 1]> {
    let v: Vec<u64> = s
        .split(',')
        .map(str::parse)
        .collect::<Result<_, _>>()
        .ok()?;
    v.try_into().ok()
}

/// Parses a line back: the key and the measure, `None` when damaged or of a
/// configuration not in `configs`.
fn parse_line(line: &str, configs: &[SolverConfig]) -> Option<((String, String), Measure)> {
    let f: Vec<&str> = line.split('\t').collect();
    if f.len() != 16 {
        return None;
    }
    let config = *configs.iter().find(|c| c.label() == f[1])?;
    let outcome = match f[2] {
        "over:search" => Outcome::OverBudget {
            in_extraction: false,
        },
        "over:extraction" => Outcome::OverBudget {
            in_extraction: true,
        },
        "not-run" => Outcome::NotRun,
        s => Outcome::Solved(Color::parse(s.strip_prefix("solved:")?).ok()?),
    };
    let opt = |s: &str| -> Option<Option<f64>> {
        if s == "-" {
            Some(None)
        } else {
            s.parse().ok().map(Some)
        }
    };
    let census = if f[11] == "-" {
        None
    } else {
        Some(ActiveCensus {
            asked: parse_list(f[11])?,
            answered: parse_list(f[12])?,
            nanos: f[13].parse().ok()?,
            evals_with_hit: f[14].parse().ok()?,
            decided_with_hit: f[15].parse().ok()?,
        })
    };
    let m = Measure {
        config,
        outcome,
        search: Cost {
            nodes: f[3].parse().ok()?,
            secs: f[5].parse().ok()?,
        },
        extraction: Cost {
            nodes: f[4].parse().ok()?,
            secs: f[6].parse().ok()?,
        },
        usage: Usage {
            cpu_s: opt(f[7])?,
            peak_mib: opt(f[8])?,
        },
        evaluations: f[9].parse().ok()?,
        eval_decided: f[10].parse().ok()?,
        census,
    };
    Some(((f[0].to_string(), f[1].to_string()), m))
}
