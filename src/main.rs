//! headstart: the command-line tool. Parse (args.rs), call the library, print.

mod args;

use anyhow::{Context, Result};
use args::{Cli, Command, LabCommand, OutArgs, TableCommand};
use clap::Parser;
use headstart::bpf::{self, abi, status};
use headstart::lab::experiment::{ExperimentText, LinkText, WorkloadText};
use headstart::lab::{calibrate, overhead, plot, run, topology};
use headstart::service;
use headstart::sys;
use headstart::units;
use serde::Serialize;
use std::path::Path;

fn main() {
    // Die quietly on a closed pipe (`headstart table list | head`), as CLI tools do.
    // SAFETY: restoring the default disposition of SIGPIPE at startup.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => usage_error(e),
    };
    if let Err(e) = dispatch(cli) {
        eprintln!("headstart: error: {}", format!("{e:#}").replace('\n', " "));
        std::process::exit(1);
    }
}

/// clap's errors in the form every other bad input takes: one `headstart: error:`
/// line, exit 1 (help and --version still print and exit 0).
fn usage_error(e: clap::Error) -> ! {
    use clap::error::ErrorKind;
    if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand) {
        let _ = e.print();
        std::process::exit(if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand { 1 } else { 0 });
    }
    // The message is the first paragraph (some run over two lines); usage follows.
    let text = e.render().to_string();
    let msg: Vec<&str> = text.trim_start().lines().take_while(|l| !l.trim().is_empty()).map(str::trim).collect();
    eprintln!("headstart: error: {} (see --help)", msg.join(" ").trim_start_matches("error: "));
    std::process::exit(1);
}

/// Prints `report` as JSON, or as the text `text` makes of it.
fn show<T: Serialize>(report: &T, json: bool, text: impl FnOnce(&T) -> String) -> Result<()> {
    if json {
        println!("{}", serde_json::to_string_pretty(report)?);
    } else {
        println!("{}", text(report).trim_end());
    }
    Ok(())
}

/// Whether a command changes headstart's state (then it holds the command lock).
fn changes_state(c: &Command) -> bool {
    match c {
        Command::Up { .. } | Command::Down { .. } | Command::Off | Command::On { .. } | Command::Shadow | Command::Save { .. } => true,
        Command::Load { .. } | Command::Unload { .. } | Command::Attach { .. } | Command::Detach { .. } => true,
        Command::Config { assignments, .. } => !assignments.is_empty(),
        Command::Table(t) => !matches!(t, TableCommand::List { .. } | TableCommand::Get { .. }),
        _ => false,
    }
}

fn dispatch(cli: Cli) -> Result<()> {
    let _lock = if changes_state(&cli.command) && sys::is_root() { Some(sys::CommandLock::acquire()?) } else { None };
    match cli.command {
        Command::Lab(cmd) => lab(cmd),
        Command::Load { names, table_size } => {
            let loaded = bpf::load(&names, table_size)?;
            if loaded.is_empty() {
                println!("already loaded");
            } else {
                println!("loaded {} (pinned under {})", loaded.join(", "), bpf::PIN_DIR);
            }
            Ok(())
        }
        Command::Up { config, json } => {
            let cfg = service::Config::load(config.as_deref())?;
            let r = service::up(&cfg)?;
            show(&r, json, |r| {
                format!(
                    "up: {} registered ({}), default congestion control {}, {} table entries restored ({} expired{}), window override on {}, knobs {}{}",
                    cfg.controllers.join(", "),
                    if r.loaded.is_empty() { "already".to_string() } else { format!("now: {}", r.loaded.join(", ")) },
                    r.default_cc,
                    r.restored_entries,
                    r.expired_entries,
                    if r.dropped_entries.is_empty() { String::new() } else { format!(", {} bad records left out", r.dropped_entries.len()) },
                    if r.attached.is_empty() { "no interface".to_string() } else { r.attached.join(", ") },
                    match r.knobs_from {
                        "live" => "as they were (headstart was up)",
                        "kept" => "kept from the last down/save",
                        _ => "at their defaults",
                    },
                    if cfg.knobs.is_empty() { String::new() } else { format!(", then the config file's {}", cfg.knobs.join(" ")) }
                )
            })
        }
        Command::Down { config, json } => {
            let cfg = service::Config::load(config.as_deref());
            let (r, mut problems) = service::down(cfg.as_ref().ok())?;
            let kept_in = cfg.as_ref().map(|c| c.state_dir.display().to_string()).unwrap_or_else(|_| "nowhere".into());
            if let Err(e) = cfg {
                problems.insert(0, e.context("nothing saved; the override came off every interface"));
            }
            show(&r, json, |r| {
                format!(
                    "down: {} table entries kept in {}, default congestion control {}, override detached from {}, unregistered {}",
                    r.saved_entries,
                    kept_in,
                    r.default_cc,
                    if r.detached.is_empty() { "no interface".to_string() } else { r.detached.join(", ") },
                    if r.unloaded.is_empty() { "nothing".to_string() } else { r.unloaded.join(", ") }
                )
            })?;
            let mut problems = problems.into_iter();
            match problems.next() {
                None => Ok(()),
                Some(first) => {
                    for p in problems {
                        eprintln!("headstart: warning: {p:#}");
                    }
                    Err(first.context("down did every other step"))
                }
            }
        }
        Command::Off => {
            set_mode("off")?;
            let detached = service::detach_everywhere()?;
            println!("headstart is off: flows start as the kernel's{}", if detached.is_empty() { String::new() } else { format!("; window override detached from {}", detached.join(", ")) });
            Ok(())
        }
        Command::On { config } => {
            let cfg = service::Config::load(config.as_deref())?;
            set_mode("on")?;
            for dev in &cfg.interfaces {
                bpf::attach_rwnd(dev, None)?;
            }
            println!("headstart is on{}", if cfg.interfaces.is_empty() { String::new() } else { format!("; window override on {}", cfg.interfaces.join(", ")) });
            Ok(())
        }
        Command::Shadow => {
            set_mode("shadow")?;
            println!("headstart is in shadow mode: flows start as the kernel's; `headstart status` and `headstart metrics` show how right the table would have been");
            Ok(())
        }
        Command::Metrics { markdown } => {
            if markdown {
                print!("{}", headstart::prometheus::counters_markdown());
            } else {
                print!("{}", headstart::prometheus::render()?);
            }
            Ok(())
        }
        Command::Flows { netns, json } => {
            let f = headstart::flows::flows(netns.as_deref())?;
            show(&f, json, |f| headstart::flows::text(f))
        }
        Command::Check { json } => {
            let reqs = headstart::check::check();
            show(&reqs, json, |r| headstart::check::text(r))?;
            anyhow::ensure!(headstart::check::all_met(&reqs), "a requirement is missing");
            Ok(())
        }
        Command::Save { config } => {
            let cfg = service::Config::load(config.as_deref())?;
            println!("kept {} table entries and the knobs in {}", service::save(&cfg)?, cfg.state_dir.display());
            Ok(())
        }
        Command::Unload { purge } => {
            sys::require_root()?;
            let fallback = service::remembered_default_cc(std::path::Path::new(service::DEFAULT_STATE_DIR));
            let removed = bpf::unload(purge, &fallback)?;
            let what = if removed.is_empty() { "nothing".to_string() } else { removed.join(", ") };
            println!("unloaded {what}{}", if purge { "; path table and knobs removed" } else { "; path table kept" });
            Ok(())
        }
        Command::Status { json } => show(&status::status()?, json, status::Status::text),
        Command::Table(cmd) => table(cmd),
        Command::Config { assignments, json, markdown } => {
            if markdown {
                print!("{}", abi::knobs_markdown());
                return Ok(());
            }
            sys::require_root()?;
            let mut knobs = bpf::read_knobs()?;
            // Every assignment is checked before the record is written once.
            for a in &assignments {
                knobs.set(a)?;
            }
            if !assignments.is_empty() {
                bpf::write_knobs(&knobs)?;
            }
            show(&status::KnobsReport::of(&knobs), json, |_| status::KnobsReport::text(&knobs))
        }
        Command::Attach { dev, netns } => {
            bpf::attach_rwnd(&dev, netns.as_deref())?;
            println!("receive-window override attached to {dev} ingress");
            Ok(())
        }
        Command::Detach { dev, netns } => {
            let was = bpf::detach_rwnd(&dev, netns.as_deref())?;
            println!("{}", if was { format!("detached from {dev}") } else { format!("nothing attached to {dev}") });
            Ok(())
        }
    }
}

/// The operator's mode, written into the knob record in one update.
fn set_mode(mode: &str) -> Result<()> {
    sys::require_root()?;
    let mut knobs = bpf::read_knobs()?;
    knobs.set(&format!("mode={mode}"))?;
    bpf::write_knobs(&knobs)
}

fn parse_addr(text: &str) -> Result<std::net::IpAddr> {
    text.trim().parse().map_err(|_| anyhow::anyhow!("'{text}' is not an IPv4 or IPv6 address"))
}

/// " in network namespace NAME", or nothing for the host's.
fn in_netns(netns: &Option<String>) -> String {
    netns.as_ref().map(|n| format!(" in network namespace {n}")).unwrap_or_default()
}

fn table(cmd: TableCommand) -> Result<()> {
    sys::require_root()?;
    let now = sys::boot_ns();
    match cmd {
        TableCommand::List { json } => {
            use std::io::Write;
            let entries = bpf::table_entries()?;
            let names = if entries.iter().any(|(p, _)| p.netns != 0) { sys::named_netns() } else { Default::default() };
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            if json {
                for (p, e) in &entries {
                    writeln!(out, "{}", serde_json::to_string(&status::EntryReport::of(p, &names, e, now))?)?;
                }
            } else {
                status::write_table_text(&mut out, &entries, &names, now)?;
            }
            out.flush()?;
        }
        TableCommand::Get { addr, netns, json } => {
            let p = bpf::table_peer(parse_addr(&addr)?, netns.as_deref())?;
            let e = bpf::table_get(p)?.with_context(|| format!("{} is not in the path table{}", p.addr, in_netns(&netns)))?;
            let names = netns.iter().map(|n| (p.netns, n.clone())).collect();
            show(&status::EntryReport::of(&p, &names, &e, now), json, status::EntryReport::text)?;
        }
        TableCommand::Set { addr, netns, bw, rtt } => {
            let p = bpf::table_peer(parse_addr(&addr)?, netns.as_deref())?;
            let bps = units::parse_rate(&bw)?;
            let rtt_us = units::parse_duration_ns(&rtt)? / 1000;
            anyhow::ensure!(rtt_us <= u32::MAX as u64, "RTT {rtt} is out of range");
            let e = abi::PathEntry { bw_bytes_per_s: bps / 8, stored_ns: now, min_rtt_us: rtt_us as u32, flows: 0, source: abi::SOURCE_USER, ..Default::default() };
            bpf::table_set(p, &e)?;
            println!("{}{}: {} , min RTT {rtt}", p.addr, in_netns(&netns), units::fmt_rate(bps as f64));
        }
        TableCommand::Forget { addr, netns } => {
            let p = bpf::table_peer(parse_addr(&addr)?, netns.as_deref())?;
            anyhow::ensure!(bpf::table_forget(p)?, "{} is not in the path table{}", p.addr, in_netns(&netns));
            println!("forgot {}{}", p.addr, in_netns(&netns));
        }
        TableCommand::Flush => println!("removed {} entries", bpf::table_flush()?),
        TableCommand::Save { file } => {
            let r = bpf::table_save(&file)?;
            let unnamed = if r.unnamed_netns > 0 { format!(" ({} entries of network namespaces without a name left out)", r.unnamed_netns) } else { String::new() };
            println!("saved {} entries to {}{unnamed}", r.saved, file.display());
        }
        TableCommand::Restore { file, merge, json } => {
            let r = bpf::table_restore(&file, merge, bpf::BadRecords::Refuse)?;
            show(&r, json, |r| {
                format!(
                    "restored {} entries from {} ({} expired by age, {} newer live entries kept, {} live entries replaced{})",
                    r.restored,
                    file.display(),
                    r.expired,
                    r.newer_live,
                    r.removed,
                    if r.folded > 0 { format!(", {} folded into a newer entry of the same IPv6 prefix", r.folded) } else { String::new() }
                ) + &if r.missing_netns > 0 { format!("; {} of network namespaces not here left out", r.missing_netns) } else { String::new() }
            })?;
        }
    }
    Ok(())
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
                },
                workload: WorkloadText::Sweep { cc: a.cc, sizes: a.sizes, reps: a.reps, warm: a.warm, warm_size: a.warm_size, keep_table: a.keep_table, ipv6: a.ipv6 },
                sample: a.sample,
                seed: a.seed,
                http: a.http,
                app: a.app,
                connections: a.connections,
                idle: a.idle,
                idle_rate: a.idle_rate,
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
        LabCommand::Clean => {
            sys::require_root()?;
            let swept = topology::sweep_leftovers()?;
            println!("removed {} leftover lab namespace(s){}", swept.len(), if swept.is_empty() { String::new() } else { format!(": {}", swept.join(" ")) });
            Ok(())
        }
    }
}
