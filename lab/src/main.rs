//! headstart-lab: the lab's program, run as `headstart lab …` (the server tool hands
//! its arguments over). Parse (cli.rs), call the lab library, print.

mod cli;

use anyhow::Result;
use clap::Parser;
use cli::{Cli, LabCommand, OutArgs};
use headstart::bpf::{self, abi, status};
use headstart::cli::{fail, show, usage_error};
use headstart::sys;
use headstart_lab::experiment::{ExperimentText, LinkText, WorkloadText};
use headstart_lab::{calibrate, overhead, plot, run, topology};
use std::path::Path;

fn main() {
    // SAFETY: restoring the default disposition of SIGPIPE at startup.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => usage_error(e),
    };
    if let Err(e) = lab(cli.command) {
        fail(e);
    }
}

fn output(o: OutArgs) -> run::Output {
    run::Output { dir: o.out, quiet: o.quiet, no_plot: o.no_plot }
}

fn results(dir: &Path) -> Result<()> {
    println!("results: {}", dir.display());
    Ok(())
}

fn lab(cmd: LabCommand) -> Result<()> {
    match cmd {
        LabCommand::Sweep(a) => {
            let text = ExperimentText {
                name: Some("sweep".into()),
                link: LinkText { rate: Some(a.rate), rtt: a.rtt, buffer: a.buffer, loss: a.loss,
                    trace: a.trace,
                    uplink_trace: a.uplink_trace,
                    uplink_loss: a.uplink_loss,
                    ack_aggregation: a.ack_aggregation,
                    aggregation: a.aggregation,
                    ..Default::default()
                },
                workload: WorkloadText::Sweep { cc: a.cc, sizes: a.sizes, reps: a.reps, warm: a.warm, warm_size: a.warm_size, keep_table: a.keep_table, ipv6: a.ipv6 },
                sample: a.sample,
                packet_series: false,
                seed: a.seed,
                http: a.http,
                app: a.app,
                connections: a.connections,
                idle: a.idle,
                idle_rate: a.idle_rate,
                first_size: a.first_size,
                rwnd_override: Some(!a.no_rwnd),
                client_initrwnd: a.client_initrwnd,
                reader_stall: a.reader_stall,
                reader_stall_every: a.reader_stall_every,
                server_uid: a.server_uid,
                knobs: Default::default(),
            };
            results(&run::run_experiment(text, &output(a.out))?)
        }
        LabCommand::Run { file, out } => {
            let mut text = ExperimentText::from_toml_file(&file)?;
            if text.name.is_none() {
                text.name = file.file_stem().map(|s| s.to_string_lossy().into_owned());
            }
            results(&run::run_experiment(text, &output(out))?)
        }
        LabCommand::Plot { dir } => {
            for p in plot::plot_dir(&dir)? {
                println!("{}", p.display());
            }
            Ok(())
        }
        LabCommand::Calibrate { rates, rtt, buffer, seconds, cc, trace, out } => {
            results(&calibrate::calibrate(calibrate::CalibrateArgs { rates, rtt, buffer, seconds, cc, trace }, &output(out))?)
        }
        LabCommand::AgentBench { events_per_s, peers, seconds, out } => results(&headstart_lab::fleet::agent_bench(&events_per_s, peers, seconds, &output(out))?),
        LabCommand::Overhead { cc, bytes, reps, out } => results(&overhead::run_and_report(&cc, &bytes, reps, &output(out))?),
        LabCommand::Knobs { assignments, reset, json } => {
            sys::require_root()?;
            let mut knobs = if reset { abi::LabKnobs::default() } else { bpf::read_knob_record()? };
            for a in &assignments {
                knobs.set(a)?;
            }
            if reset || !assignments.is_empty() {
                bpf::write_knob_record(&knobs)?;
            }
            let report = status::KnobsReport::of(&knobs);
            show(&report, json, |r| r.0.iter().map(|(n, v)| format!("{n}={}", v.as_str().unwrap_or_default())).collect::<Vec<_>>().join(" ") + "\n")
        }
        LabCommand::Reproduce { id, list, quick, traces, out, from, quiet } => {
            let Some(id) = id.filter(|_| !list) else {
                print!("{}", headstart_lab::reproduce::list());
                return Ok(());
            };
            headstart_lab::reproduce::find(&id)?;
            let ctx = headstart_lab::reproduce::Ctx { quick, traces };
            if let Some(dir) = from {
                return headstart_lab::reproduce::recompare(&id, &ctx, &dir);
            }
            sys::require_root()?;
            headstart_lab::reproduce::reproduce(&id, &ctx, out, quiet).map(|_| ())
        }
        LabCommand::Clean => {
            sys::require_root()?;
            let swept = topology::sweep_leftovers()?;
            println!("removed {} leftover lab namespace(s){}", swept.len(), if swept.is_empty() { String::new() } else { format!(": {}", swept.join(" ")) });
            Ok(())
        }
    }
}
