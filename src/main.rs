//! headstart: the command-line tool. Parse (args.rs), call the library, print.

mod args;

use anyhow::{Context, Result};
use args::{Cli, Command, FleetCommand, TableCommand};
use clap::Parser;
use headstart::bpf::{self, abi, status};
use headstart::cli::{self, show};
use headstart::service;
use headstart::sys;
use headstart::units;

fn main() {
    // Die quietly on a closed pipe (`headstart table list | head`), as CLI tools do.
    // SAFETY: restoring the default disposition of SIGPIPE at startup.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => cli::usage_error(e),
    };
    if let Err(e) = dispatch(cli) {
        cli::fail(e);
    }
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
        Command::Lab { args } => lab(args),
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
        Command::Fleet(FleetCommand::Status { status_file, json }) => {
            let st = headstart::fleet::FleetStatus::read(&status_file)?;
            show(&st, json, headstart::fleet::FleetStatus::text)
        }
        Command::Fleet(FleetCommand::Run { config, redis, host_id, key_prefix, netns, status_file }) => {
            sys::require_root()?;
            let cfg = service::Config::load(config.as_deref())?;
            let mut text = cfg.fleet.map(|f| headstart::fleet::FleetText { redis: Some(f.redis), key_prefix: Some(f.key_prefix), max_writes_per_s: Some(f.max_writes_per_s), host_id: Some(f.host_id) }).unwrap_or_default();
            text.redis = redis.or(text.redis);
            text.host_id = host_id.or(text.host_id);
            text.key_prefix = key_prefix.or(text.key_prefix);
            let fleet = text.validate().context("the fleet agent needs [fleet] in the configuration or --redis")?;
            for n in &netns {
                sys::check_netns_name(n)?;
            }
            headstart::fleet::run(fleet, headstart::fleet::AgentOptions { netns, status_file })
        }
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
        TableCommand::Prefixes { json } => {
            use std::io::Write;
            let aggregates = bpf::prefix_aggregates()?;
            let names = if aggregates.iter().any(|(p, _)| p.netns != 0) { sys::named_netns() } else { Default::default() };
            let max_age_s = bpf::live_max_age_s();
            let reports: Vec<_> = aggregates.iter().map(|(p, a)| status::PrefixReport::of(p, &names, a, now, max_age_s)).collect();
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            if json {
                for r in &reports {
                    writeln!(out, "{}", serde_json::to_string(r)?)?;
                }
            } else {
                status::write_prefixes_text(&mut out, &reports)?;
            }
            out.flush()?;
        }
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
                    + &match r.prefixes_taught {
                        Some(n) => format!("; prefix fallback relearned from {n}"),
                        None => "; prefix fallback not relearned (its program did not run: are older controllers loaded? `headstart up`)".into(),
                    }
            })?;
        }
    }
    Ok(())
}

/// `headstart lab …`: the lab is a program of its own (headstart-lab, beside this one
/// or on PATH), which the server's package does not ship.
fn lab(args: Vec<String>) -> Result<()> {
    use std::os::unix::process::CommandExt;
    let beside = std::env::current_exe().ok().map(|p| p.with_file_name("headstart-lab")).filter(|p| p.exists());
    let program = beside.unwrap_or_else(|| "headstart-lab".into());
    let err = std::process::Command::new(&program).args(&args).exec();
    Err(anyhow::anyhow!("the lab is a program of its own, {} ({err}): build it from the source tree (`cargo build --release`), the .deb ships the server only", program.display()))
}
