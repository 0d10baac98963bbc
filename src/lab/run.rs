//! Running an experiment end to end, as the CLI does: validate everything, make sure
//! the headstart controllers it names are registered, run, then write the rows, the
//! tables and the figures into the results folder.

use crate::bpf::abi::{split_assignments, Knobs, LabKnobs};
use super::experiment::{Experiment, ExperimentText};
use super::{plot, report, workloads};
use crate::sys::{self, Interrupt};
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
    let missing: Vec<String> = ccs.into_iter().filter(|k| crate::bpf::is_ours(k) && !crate::bpf::is_current(k)).map(str::to_string).collect();
    if !missing.is_empty() {
        let loaded = crate::bpf::load(&missing, crate::bpf::DEFAULT_TABLE_ENTRIES)?;
        eprintln!("loaded {} for this run (they stay registered: `headstart unload` removes them)", loaded.join(", "));
    }
    Ok(())
}

/// The experiment's `[knobs]` in force for the run (the operator's record and the
/// lab's); when it drops (on success, on error and after Ctrl-C, which unwinds) each
/// knob it changed is put back, unless someone changed it meanwhile: an operator's
/// `headstart off` during a run stays.
struct KnobsForRun {
    knobs: Option<(Knobs, Knobs)>,
    lab: Option<(LabKnobs, LabKnobs)>,
}

impl KnobsForRun {
    fn apply(assignments: &[String]) -> Result<KnobsForRun> {
        let (ops, lab) = split_assignments(assignments)?;
        // Both records are read and every value checked before either is written.
        let mut run = KnobsForRun { knobs: None, lab: None };
        let knobs = if ops.is_empty() { None } else { Some(crate::bpf::read_knobs()?) };
        let lab_knobs = if lab.is_empty() { None } else { Some(crate::bpf::read_lab_knobs()?) };
        let set_all = |mut k: Knobs| -> Result<(Knobs, Knobs)> {
            let previous = k.clone();
            for a in &ops {
                k.set(a)?;
            }
            Ok((previous, k))
        };
        let set_lab = |mut k: LabKnobs| -> Result<(LabKnobs, LabKnobs)> {
            let previous = k.clone();
            for a in &lab {
                k.set(a)?;
            }
            Ok((previous, k))
        };
        let knobs = knobs.map(set_all).transpose()?;
        let lab_knobs = lab_knobs.map(set_lab).transpose()?;
        if let Some((_, set)) = &knobs {
            crate::bpf::write_knobs(set)?;
            run.knobs = knobs;
        }
        if let Some((_, set)) = &lab_knobs {
            crate::bpf::write_lab_knobs(set)?;
            run.lab = lab_knobs;
        }
        Ok(run)
    }
}

impl Drop for KnobsForRun {
    fn drop(&mut self) {
        if let Some((previous, set)) = self.knobs.take() {
            let put = crate::bpf::read_knobs().and_then(|mut now| if now.put_back(&previous, &set) { crate::bpf::write_knobs(&now) } else { Ok(()) });
            if let Err(e) = put {
                eprintln!("headstart: error: could not put the knobs back: {e:#}");
            }
        }
        if let Some((previous, set)) = self.lab.take() {
            let put = crate::bpf::read_lab_knobs().and_then(|mut now| if now.put_back(&previous, &set) { crate::bpf::write_lab_knobs(&now) } else { Ok(()) });
            if let Err(e) = put {
                eprintln!("headstart: error: could not put the lab knobs back: {e:#}");
            }
        }
    }
}

/// Validates `text` before anything is created, runs it and writes its results.
pub fn run_experiment(text: ExperimentText, out: &Output) -> Result<PathBuf> {
    let exp: Experiment = text.validate()?;
    sys::require_root()?;
    let dir = out.prepare(exp.workload.kind())?;
    load_headstart_ccs(exp.workload.ccs().iter().map(|c| c.kernel.as_str()))?;
    let _knobs = KnobsForRun::apply(&exp.knobs)?;
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
