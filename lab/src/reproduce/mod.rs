//! `headstart lab reproduce`: a figure or table of the seed papers as one command. Each
//! reproduction (catalog.rs) names the lab runs it needs (experiment TOML, as
//! `headstart lab run` takes it), runs them, and compares what they measured with
//! what the paper states: a value read from the paper's text or tables, or a bound
//! the text gives ("lower than 0.5"). It writes the comparison as a terminal table,
//! comparison.csv and .jsonl, comparison.md (the rows REPRODUCTION.md quotes) and
//! comparison.png (the paper's marks over the lab's lines), beside each run's own
//! results folder and figures.

pub mod catalog;

use crate::experiment::ExperimentText;
use crate::metrics::FlowRow;
use crate::plot::{self, ComparePoint};
use crate::report;
use crate::run::{self, Output};
use anyhow::{bail, Context, Result};
use comfy_table::Table;
use serde::Serialize;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// What a reproduction's runs may vary with.
pub struct Ctx {
    /// The ≤ 5-minute variant: fewer sizes, repetitions and flows.
    pub quick: bool,
    /// Where the mahimahi traces are (the cellular figures).
    pub traces: PathBuf,
}

impl Ctx {
    /// `quick` or `full`.
    pub fn pick<T>(&self, quick: T, full: T) -> T {
        if self.quick { quick } else { full }
    }
    pub fn trace(&self, name: &str) -> String {
        self.traces.join(name).display().to_string()
    }
}

/// One lab run of a reproduction: a label the comparison finds it by, and the
/// experiment.
pub struct Run {
    pub label: String,
    pub toml: String,
}

/// What the paper says of one point.
#[derive(Clone, Copy, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Claim {
    /// A number from the paper's text or tables; agreement within `tol` of it
    /// (relative), within half the step it was printed to (`step`: 1 for "6 ms"), or
    /// within the lab's own spread.
    Value { v: f64, tol: f64, step: f64 },
    AtMost { v: f64 },
    AtLeast { v: f64 },
    /// The paper gives no number here (a figure only): the lab's value stands alone.
    None,
}

#[derive(Clone, Debug, Serialize)]
pub struct Point {
    pub series: String,
    pub x: String,
    pub paper: Claim,
    pub lab: Option<f64>,
    /// Twice the standard error of the lab's mean (None: one value).
    pub spread: Option<f64>,
}

impl Point {
    pub fn new(series: impl Into<String>, x: impl Into<String>, paper: Claim, lab: (Option<f64>, Option<f64>)) -> Point {
        Point { series: series.into(), x: x.into(), paper, lab: lab.0, spread: lab.1 }
    }

    pub fn agreement(&self) -> &'static str {
        let Some(lab) = self.lab.filter(|v| v.is_finite()) else { return "not measured" };
        let s = self.spread.unwrap_or(0.0);
        let ok = match self.paper {
            Claim::Value { v, tol, step } => (lab - v).abs() <= (tol * v.abs()).max(step / 2.0).max(s),
            Claim::AtMost { v } => lab - s <= v,
            Claim::AtLeast { v } => lab + s >= v,
            Claim::None => return "lab only",
        };
        if ok { "agrees" } else { "DIFFERS" }
    }

    fn paper_text(&self) -> String {
        match self.paper {
            Claim::Value { v, .. } => fmt(v),
            Claim::AtMost { v } => format!("≤ {}", fmt(v)),
            Claim::AtLeast { v } => format!("≥ {}", fmt(v)),
            Claim::None => "—".into(),
        }
    }

    fn lab_text(&self) -> String {
        match (self.lab, self.spread) {
            (Some(v), Some(s)) => format!("{} ± {}", fmt(v), fmt(s)),
            (Some(v), None) => fmt(v),
            _ => "—".into(),
        }
    }
}

fn fmt(v: f64) -> String {
    if !v.is_finite() {
        "—".into()
    } else if v.abs() >= 100.0 {
        format!("{v:.0}")
    } else if v.abs() >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.3}")
    }
}

/// One reproduction.
pub struct Reproduction {
    pub id: &'static str,
    /// The paper and the figure or table: "S-Cubic Fig. 2".
    pub source: &'static str,
    pub title: &'static str,
    /// What the compared numbers are, with their unit.
    pub quantity: &'static str,
    pub runs: fn(&Ctx) -> Vec<Run>,
    pub compare: fn(&Runs) -> Vec<Point>,
    /// Where the lab's setup departs from the paper's, said once.
    pub departs: &'static str,
    /// A figure in the paper's form drawn from all the runs (figure.png), where no
    /// single run's own plots are it.
    pub figure: Option<fn(&Runs, &Path) -> Result<()>>,
}

/// The runs' results, found by label.
pub struct Runs(Vec<(String, PathBuf, Vec<FlowRow>)>);

impl Runs {
    fn find(&self, label: &str) -> Option<&(String, PathBuf, Vec<FlowRow>)> {
        self.0.iter().find(|r| r.0 == label)
    }
    /// The measured, completed flows of a run (warm-ups and primers left out).
    pub fn rows(&self, label: &str) -> Vec<&FlowRow> {
        self.find(label).map(|r| r.2.iter().filter(|f| f.role == "measured" && f.fct_s.is_some()).collect()).unwrap_or_default()
    }
    /// Every completed flow of a run, warm-ups and primers included (they cross the
    /// bottleneck too).
    pub fn all_rows(&self, label: &str) -> Vec<&FlowRow> {
        self.find(label).map(|r| r.2.iter().filter(|f| f.fct_s.is_some()).collect()).unwrap_or_default()
    }
    pub fn dir(&self, label: &str) -> Option<&Path> {
        self.find(label).map(|r| r.1.as_path())
    }
    /// A CSV of a run's folder, without its header.
    pub fn csv(&self, label: &str, name: &str) -> Vec<Vec<String>> {
        self.dir(label).and_then(|d| plot::read_csv(&d.join(name)).ok()).unwrap_or_default()
    }
}

/// The mean of `xs` and twice its standard error (≈ a 95 % interval; None for fewer
/// than two): the uncertainty of the mean, not the spread of the values (a mean over
/// flows of every size is not as uncertain as its sizes are different).
pub fn mean_spread(xs: &[f64]) -> (Option<f64>, Option<f64>) {
    let xs: Vec<f64> = xs.iter().copied().filter(|x| x.is_finite()).collect();
    if xs.is_empty() {
        return (None, None);
    }
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    (Some(mean), (xs.len() > 1).then(|| 2.0 * (var / n).sqrt()))
}

pub fn find(id: &str) -> Result<&'static Reproduction> {
    catalog::ALL.iter().find(|r| r.id == id).with_context(|| {
        format!("no reproduction '{id}' (`headstart lab reproduce --list` shows them)")
    })
}

/// The --list table: every ID, and every figure or table the lab cannot run.
pub fn list() -> String {
    let mut t = Table::new();
    t.set_header(["ID", "paper", "what"]);
    for r in catalog::ALL {
        t.add_row([r.id, r.source, r.title]);
    }
    let mut out = format!("{t}\n{} reproductions. Not reproducible in the lab (REPRODUCTION.md says what stands in):\n", catalog::ALL.len());
    for (source, why) in catalog::NOT_IN_LAB {
        let _ = writeln!(out, "  {source}: {why}");
    }
    out
}

/// Runs one reproduction and writes its comparison into `dir`.
pub fn reproduce(id: &str, ctx: &Ctx, dir: Option<PathBuf>, quiet: bool) -> Result<PathBuf> {
    let r = find(id)?;
    let runs = (r.runs)(ctx);
    // Every experiment is checked before the first one runs.
    let mut texts = Vec::new();
    for run in &runs {
        let mut text: ExperimentText = toml::from_str(&run.toml).with_context(|| format!("{id}: run {} is not a valid experiment", run.label))?;
        text.name = Some(format!("{id}-{}", run.label));
        text.validate().with_context(|| format!("{id}: run {}", run.label))?;
        texts.push(text);
    }
    let dir = dir.unwrap_or_else(|| run::default_dir(&format!("reproduce-{id}{}", if ctx.quick { "-quick" } else { "" })));
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let started = std::time::Instant::now();
    let mut done = Vec::new();
    for (i, (run, text)) in runs.iter().zip(texts).enumerate() {
        eprintln!("{id}: run {}/{} ({}), {:.0} s in", i + 1, runs.len(), run.label, started.elapsed().as_secs_f64());
        let out = Output { dir: Some(dir.join(&run.label)), quiet, no_plot: false };
        let run_dir = run::run_experiment(text, &out)?;
        let rows = report::read_rows(&run_dir)?;
        done.push((run.label.clone(), run_dir, rows));
    }
    compare_and_write(r, ctx, &dir, done, started.elapsed().as_secs_f64())?;
    Ok(dir)
}

/// Compares again what an earlier `reproduce` of `id` left in `dir` (its runs' folders),
/// running nothing: a changed comparison, re-read from the same measurements.
pub fn recompare(id: &str, ctx: &Ctx, dir: &Path) -> Result<()> {
    let r = find(id)?;
    let mut done = Vec::new();
    for run in (r.runs)(ctx) {
        let run_dir = dir.join(&run.label);
        let rows = report::read_rows(&run_dir).with_context(|| format!("{}: no results of run {} (was it `reproduce {id}{}`?)", dir.display(), run.label, if ctx.quick { " --quick" } else { "" }))?;
        done.push((run.label, run_dir, rows));
    }
    compare_and_write(r, ctx, dir, done, 0.0)
}

fn compare_and_write(r: &Reproduction, ctx: &Ctx, dir: &Path, done: Vec<(String, PathBuf, Vec<FlowRow>)>, elapsed_s: f64) -> Result<()> {
    let runs = Runs(done);
    let points = (r.compare)(&runs);
    if points.is_empty() {
        bail!("{}: the runs gave nothing to compare", r.id);
    }
    if let Some(draw) = r.figure {
        draw(&runs, &dir.join("figure.png")).with_context(|| format!("{}: drawing figure.png", r.id))?;
    }
    write_comparison(r, ctx, dir, &points, elapsed_s)
}

#[derive(Serialize)]
struct Row<'a> {
    id: &'a str,
    source: &'a str,
    quick: bool,
    series: &'a str,
    x: &'a str,
    paper: Claim,
    lab: Option<f64>,
    spread: Option<f64>,
    agreement: &'a str,
}

fn write_comparison(r: &Reproduction, ctx: &Ctx, dir: &Path, points: &[Point], elapsed_s: f64) -> Result<()> {
    let mut t = Table::new();
    t.set_header(["series", "point", &format!("paper ({})", r.quantity), "lab", "agreement"]);
    let mut md = format!(
        "#### {} — {}: {}\n\n`headstart lab reproduce {}{}`, {}, commit {}.\n\n| series | point | paper | lab | agreement |\n|---|---|---|---|---|\n",
        r.id,
        r.source,
        r.title,
        r.id,
        if ctx.quick { " --quick" } else { "" },
        if elapsed_s > 0.0 { format!("{elapsed_s:.0} s") } else { "compared again from its runs (--from)".into() },
        headstart::GIT_COMMIT
    );
    let mut csv = String::from("id,series,point,paper_kind,paper,lab,spread,agreement\n");
    let mut rows = Vec::new();
    for p in points {
        t.add_row([p.series.clone(), p.x.clone(), p.paper_text(), p.lab_text(), p.agreement().to_string()]);
        let _ = writeln!(md, "| {} | {} | {} | {} | {} |", p.series, p.x, p.paper_text(), p.lab_text(), p.agreement());
        let (kind, v) = match p.paper {
            Claim::Value { v, .. } => ("value", Some(v)),
            Claim::AtMost { v } => ("at_most", Some(v)),
            Claim::AtLeast { v } => ("at_least", Some(v)),
            Claim::None => ("none", None),
        };
        let o = |x: Option<f64>| x.map(|v| format!("{v:.6}")).unwrap_or_default();
        let _ = writeln!(csv, "{},\"{}\",\"{}\",{kind},{},{},{},{}", r.id, p.series, p.x, o(v), o(p.lab), o(p.spread), p.agreement());
        rows.push(Row { id: r.id, source: r.source, quick: ctx.quick, series: &p.series, x: &p.x, paper: p.paper, lab: p.lab, spread: p.spread, agreement: p.agreement() });
    }
    let agree = points.iter().filter(|p| p.agreement() == "agrees").count();
    let differ = points.iter().filter(|p| p.agreement() == "DIFFERS").count();
    let summary = format!("{agree} agree, {differ} differ, {} without a paper number", points.len() - agree - differ);
    let _ = writeln!(md, "\n{summary}. Departures from the paper's setup: {}\n", r.departs);
    std::fs::write(dir.join("comparison.md"), &md)?;
    std::fs::write(dir.join("comparison.csv"), csv)?;
    std::fs::write(dir.join("comparison.jsonl"), report::jsonl(&rows)?)?;
    let chart: Vec<ComparePoint> = points
        .iter()
        .map(|p| ComparePoint {
            series: p.series.clone(),
            x: p.x.clone(),
            lab: p.lab,
            spread: p.spread,
            paper: match p.paper {
                Claim::Value { v, .. } | Claim::AtMost { v } | Claim::AtLeast { v } => Some(v),
                Claim::None => None,
            },
            bound: match p.paper {
                Claim::AtMost { .. } => -1,
                Claim::AtLeast { .. } => 1,
                _ => 0,
            },
        })
        .collect();
    plot::compare(&dir.join("comparison.png"), &format!("{} — {} (lab: lines; paper: hollow marks)", r.source, r.title), r.quantity, &chart)?;
    println!("{} — {}: {}\n{t}\n{summary}\nlab departs from the paper: {}\nresults in {}", r.id, r.source, r.title, r.departs, dir.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agreement_follows_the_claim_and_the_spread() {
        let p = |paper, lab, spread| Point { series: "s".into(), x: "x".into(), paper, lab, spread };
        assert_eq!(p(Claim::Value { v: 1.0, tol: 0.1, step: 0.0 }, Some(1.05), None).agreement(), "agrees");
        assert_eq!(p(Claim::Value { v: 1.0, tol: 0.1, step: 0.0 }, Some(1.2), None).agreement(), "DIFFERS");
        assert_eq!(p(Claim::Value { v: 1.0, tol: 0.1, step: 0.0 }, Some(1.2), Some(0.25)).agreement(), "agrees");
        // "1 ms" in a table of whole milliseconds is anything that rounds to it.
        assert_eq!(p(Claim::Value { v: 1.0, tol: 0.1, step: 1.0 }, Some(0.6), None).agreement(), "agrees");
        assert_eq!(p(Claim::Value { v: 1.0, tol: 0.1, step: 1.0 }, Some(0.4), None).agreement(), "DIFFERS");
        assert_eq!(p(Claim::AtMost { v: 0.5 }, Some(0.45), None).agreement(), "agrees");
        assert_eq!(p(Claim::AtMost { v: 0.5 }, Some(0.6), Some(0.05)).agreement(), "DIFFERS");
        assert_eq!(p(Claim::AtLeast { v: 30.0 }, Some(29.0), Some(2.0)).agreement(), "agrees");
        assert_eq!(p(Claim::None, Some(3.0), None).agreement(), "lab only");
        assert_eq!(p(Claim::AtLeast { v: 30.0 }, None, None).agreement(), "not measured");
        // Two values 2 apart: sd √2, standard error 1, the interval ± 2.
        assert_eq!(mean_spread(&[1.0, 3.0, f64::NAN]), (Some(2.0), Some(2.0)));
        assert_eq!(mean_spread(&[2.0]), (Some(2.0), None));
    }

    #[test]
    fn every_reproduction_has_a_unique_id_and_valid_experiments_in_both_variants() {
        assert!(catalog::ALL.len() >= 20, "{} reproductions", catalog::ALL.len());
        let mut ids = std::collections::HashSet::new();
        for r in catalog::ALL {
            assert!(ids.insert(r.id), "{} twice", r.id);
            for quick in [true, false] {
                let ctx = Ctx { quick, traces: PathBuf::from("/nonexistent-traces") };
                let runs = (r.runs)(&ctx);
                assert!(!runs.is_empty(), "{}", r.id);
                let mut labels = std::collections::HashSet::new();
                for run in runs {
                    assert!(labels.insert(run.label.clone()), "{}: label {} twice", r.id, run.label);
                    let text: ExperimentText = toml::from_str(&run.toml).unwrap_or_else(|e| panic!("{} {}: {e}\n{}", r.id, run.label, run.toml));
                    // Trace paths do not exist here: everything else must validate.
                    if text.link.trace.is_none() {
                        if let Err(e) = text.validate() {
                            // The comparison controllers are registered by the run itself.
                            assert!(format!("{e:#}").contains("kernel") || format!("{e:#}").contains("knobs"), "{} {}: {e:#}", r.id, run.label);
                        }
                    }
                }
            }
        }
    }
}
