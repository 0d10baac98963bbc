//! Running an experiment end to end, as the CLI does: validate everything, make sure
//! the headstart controllers it names are registered, run, then write the rows, the
//! tables and the figures into the results folder.

use headstart::bpf::abi::{split_assignments, KnobSet, KnobValues, Lab, Operator};
use super::experiment::{Experiment, ExperimentText};
use super::{plot, report, workloads};
use headstart::sys::{self, Interrupt};
use anyhow::{Context, Result};
use std::path::PathBuf;

/// Where results go and how much is shown on the way.
#[derive(Clone, Debug, Default)]
pub struct Output {
    /// The results folder (default: results/<kind>-<UTC time>).
    pub dir: Option<PathBuf>,
    pub quiet: bool,
    pub no_plot: bool,
}

impl Output {
    /// The results folder, created and checked writable.
    pub fn prepare(&self, kind: &str) -> Result<PathBuf> {
        let dir = self.dir.clone().unwrap_or_else(|| default_dir(kind));
        std::fs::create_dir_all(&dir).with_context(|| format!("cannot create results folder {}", dir.display()))?;
        let probe = dir.join(".write-test");
        std::fs::write(&probe, b"").with_context(|| format!("cannot write into {}", dir.display()))?;
        let _ = std::fs::remove_file(probe);
        Ok(dir)
    }
}

/// results/<kind>-<YYYYMMDD-HHMMSS> in UTC.
pub fn default_dir(kind: &str) -> PathBuf {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    let t = secs % 86_400;
    PathBuf::from(format!("results/{kind}-{y:04}{m:02}{d:02}-{:02}{:02}{:02}", t / 3600, t / 60 % 60, t % 60))
}

/// Days since 1970-01-01 to (year, month, day), proleptic Gregorian.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// Registers the headstart controllers among `ccs` that the kernel lacks.
pub fn load_headstart_ccs<'a>(ccs: impl IntoIterator<Item = &'a str>) -> Result<()> {
    let missing: Vec<String> = ccs.into_iter().filter(|k| headstart::bpf::is_ours(k) && !headstart::bpf::is_current(k)).map(str::to_string).collect();
    if !missing.is_empty() {
        let loaded = headstart::bpf::load(&missing, headstart::bpf::DEFAULT_TABLE_ENTRIES)?;
        eprintln!("loaded {} for this run (they stay registered: `headstart unload` removes them)", loaded.join(", "));
    }
    Ok(())
}

/// Registers the lab's comparison controllers (Jump-Start, Cache, Cache+, Cubic with
/// standard slow start) for a run that names one, loading headstart's maps first.
pub fn register_lab_ccs<'a>(ccs: impl IntoIterator<Item = &'a str>) -> Result<Option<crate::kernel::LabControllers>> {
    if !ccs.into_iter().any(crate::kernel::is_lab_controller) {
        return Ok(None);
    }
    load_headstart_ccs(["s_cubic"])?;
    Ok(Some(crate::kernel::LabControllers::register()?))
}

/// One knob record as a run set it: what it was before and what the run wrote. When
/// it drops (on success, on error and after Ctrl-C, which unwinds) each knob the run
/// changed is put back, unless someone changed it meanwhile: an operator's `headstart
/// off` during a run stays.
struct RecordForRun<S: KnobSet> {
    previous: KnobValues<S>,
    set: KnobValues<S>,
}

impl<S: KnobSet> RecordForRun<S> {
    /// Reads the record and checks every assignment; writes nothing. None if there is none.
    fn prepare(assignments: &[String]) -> Result<Option<Self>> {
        if assignments.is_empty() {
            return Ok(None);
        }
        let previous = headstart::bpf::read_knob_record::<S>()?;
        let mut set = previous.clone();
        for a in assignments {
            set.set(a)?;
        }
        Ok(Some(RecordForRun { previous, set }))
    }
}

impl<S: KnobSet> Drop for RecordForRun<S> {
    fn drop(&mut self) {
        let put = headstart::bpf::read_knob_record::<S>()
            .and_then(|mut now| if now.put_back(&self.previous, &self.set) { headstart::bpf::write_knob_record(&now) } else { Ok(()) });
        if let Err(e) = put {
            eprintln!("headstart: error: could not put the {}s back: {e:#}", S::WHAT);
        }
    }
}

/// The experiment's `[knobs]` in force for the run: the operator's record and the
/// lab's, both checked before either is written.
struct KnobsForRun {
    _knobs: Option<RecordForRun<Operator>>,
    _lab: Option<RecordForRun<Lab>>,
}

impl KnobsForRun {
    fn apply(assignments: &[String]) -> Result<KnobsForRun> {
        let (ops, lab) = split_assignments(assignments)?;
        let run = KnobsForRun { _knobs: RecordForRun::prepare(&ops)?, _lab: RecordForRun::prepare(&lab)? };
        if let Some(r) = &run._knobs {
            headstart::bpf::write_knob_record(&r.set)?;
        }
        if let Some(r) = &run._lab {
            headstart::bpf::write_knob_record(&r.set)?;
        }
        Ok(run)
    }
}

/// The experiment's knobs, with one_table on unless it says otherwise and headstart is
/// loaded: the lab's server namespace stands for this host, so its flows use the
/// host's entries (`headstart table set` before a run, `table get` after it).
fn with_one_table(knobs: &[String]) -> Vec<String> {
    let mut k = knobs.to_vec();
    if !k.iter().any(|a| a.trim_start().starts_with("one_table")) && headstart::bpf::pinned_map("hs_config").is_ok() {
        k.push("one_table=on".into());
    }
    k
}

/// Validates `text` before anything is created, runs it and writes its results.
pub fn run_experiment(text: ExperimentText, out: &Output) -> Result<PathBuf> {
    let exp: Experiment = text.validate()?;
    sys::require_root()?;
    let dir = out.prepare(exp.workload.kind())?;
    load_headstart_ccs(exp.workload.ccs().iter().map(|c| c.kernel.as_str()))?;
    let _lab_ccs = register_lab_ccs(exp.workload.ccs().iter().map(|c| c.kernel.as_str()))?;
    if let crate::experiment::Workload::Fleet(w) = &exp.workload {
        // Each server keeps its own table (its namespace's), as servers of a farm do.
        let mut knobs = exp.knobs.clone();
        if !knobs.iter().any(|a| a.trim_start().starts_with("one_table")) {
            knobs.push("one_table=off".into());
        }
        // Set per mode by the run (fleet+prefix); put back after it with the rest.
        if !knobs.iter().any(|a| a.trim_start().starts_with("prefix_fallback")) {
            knobs.push("prefix_fallback=off".into());
        }
        let _knobs = KnobsForRun::apply(&knobs)?;
        let out_rows = crate::fleet::run(&exp, w, &dir, Interrupt::install()?, out.quiet)?;
        std::fs::write(dir.join("experiment.toml"), toml::to_string(&exp.text)?)?;
        println!("{}\nresults in {}", crate::fleet::table(&out_rows), dir.display());
        return Ok(dir);
    }
    let _knobs = KnobsForRun::apply(&with_one_table(&exp.knobs))?;
    let interrupt = Interrupt::install()?;
    let res = workloads::run(&exp, interrupt, out.quiet)?;
    report::write_all(&dir, &exp, &res)?;
    report::print_and_save(&dir, &exp, &res)?;
    if !out.no_plot {
        plot::plot_dir(&dir).context("plotting")?;
    }
    Ok(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calendar_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(20_779), (2026, 11, 22));
    }

    #[test]
    fn default_dirs_name_the_kind() {
        assert!(default_dir("sweep").to_string_lossy().starts_with("results/sweep-20"));
    }
}
