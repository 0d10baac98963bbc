//! headstart: the command-line tool. A thin layer: parse, validate, call the library.

use anyhow::{Context, Result};
use clap::{Args, Parser, Subcommand};
use headstart::lab::experiment::{CompetingFlowText, ExperimentText, LinkText, WorkloadText};
use headstart::lab::{plot, report, topology, workloads};
use headstart::sys::{self, Interrupt};
use std::path::{Path, PathBuf};

#[derive(Parser)]
#[command(name = "headstart", version, about = "Start every TCP flow at full speed — and measure it")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Register headstart's congestion controls (all, or the ones named) in the
    /// running kernel, pinned under /sys/fs/bpf/headstart.
    Load {
        /// Controllers to load (default: all).
        names: Vec<String>,
        /// Path table capacity in entries, when the table is created.
        #[arg(long, default_value_t = headstart::bpf::DEFAULT_TABLE_ENTRIES)]
        table_size: u32,
    },
    /// Unregister them (resetting any default congestion control that names them).
    /// The path table stays unless --purge.
    Unload {
        #[arg(long)]
        purge: bool,
    },
    /// What is loaded, the kernel's default, per-controller counters, the table.
    Status,
    /// The per-peer path table.
    #[command(subcommand)]
    Table(TableCommand),
    /// Research knobs: `headstart config` shows them, `headstart config KEY=VALUE ...` sets.
    Config { assignments: Vec<String> },
    /// Attach the receive-window override (tc ingress) to a server interface.
    Attach {
        #[arg(long)]
        dev: String,
        /// Network namespace (by name, as `ip netns` lists it).
        #[arg(long)]
        netns: Option<String>,
    },
    /// Detach the receive-window override.
    Detach {
        #[arg(long)]
        dev: String,
        #[arg(long)]
        netns: Option<String>,
    },
    /// The lab: emulated bottlenecks between real Linux TCP endpoints.
    #[command(subcommand)]
    Lab(LabCommand),
}

#[derive(Subcommand)]
enum TableCommand {
    /// Every entry, newest first.
    List {
        #[arg(long)]
        json: bool,
    },
    /// One peer's entry.
    Get { addr: String },
    /// Set a peer's entry by hand (experiments, warm-up).
    Set {
        addr: String,
        /// Bandwidth, e.g. 100mbit.
        #[arg(long)]
        bw: String,
        /// Minimum RTT, e.g. 50ms.
        #[arg(long)]
        rtt: String,
    },
    /// Remove one peer.
    Forget { addr: String },
    /// Remove every entry.
    Flush,
    /// Write the table to a JSON file.
    Save { file: PathBuf },
    /// Load entries from a file written by `save`, after validating all of them.
    Restore { file: PathBuf },
}

#[derive(Subcommand)]
enum LabCommand {
    /// Sequential flows of each size, for each congestion control (paper Fig. 2/7).
    Sweep(SweepArgs),
    /// Run an experiment described in a TOML file (sweep, poisson or competing).
    Run {
        /// The experiment file (see examples/*.toml).
        file: PathBuf,
        #[command(flatten)]
        out: OutArgs,
    },
    /// Redraw the PNG figures of a results folder.
    Plot {
        /// A folder written by `lab sweep` or `lab run`.
        dir: PathBuf,
    },
    /// Measure the emulator itself: a bulk flow through each rate, delivered rate and
    /// lateness against the schedule.
    Calibrate {
        /// Rates to test.
        #[arg(long, value_delimiter = ',', default_value = "10mbit,100mbit,1gbit")]
        rates: Vec<String>,
        #[arg(long, default_value = "20ms")]
        rtt: String,
        #[arg(long, default_value = "1bdp")]
        buffer: String,
        /// Seconds of transfer per rate.
        #[arg(long, default_value_t = 6.0)]
        seconds: f64,
        /// Congestion control of the bulk flow.
        #[arg(long, default_value = "cubic")]
        cc: String,
        /// Calibrate a trace-driven downlink instead of the constant rates: the
        /// delivered rate is averaged over whole periods of the trace.
        #[arg(long)]
        trace: Option<PathBuf>,
        #[command(flatten)]
        out: OutArgs,
    },
    /// The CPU cost of congestion controls: bulk transfers over a veth pair with no
    /// emulator; throughput, CPU time per GB, BPF run time per call.
    Overhead {
        #[arg(long, value_delimiter = ',', default_value = "cubic,s_cubic")]
        cc: Vec<String>,
        /// Bytes per transfer.
        #[arg(long, default_value = "2g")]
        bytes: String,
        #[arg(long, default_value_t = 5)]
        reps: u32,
        #[command(flatten)]
        out: OutArgs,
    },
    /// Delete lab namespaces left behind by runs that were killed.
    Clean,
}

#[derive(Args)]
struct OutArgs {
    /// Results folder (default: results/<kind>-<UTC time>).
    #[arg(long)]
    out: Option<PathBuf>,
    /// No progress bar.
    #[arg(long)]
    quiet: bool,
    /// Skip the PNG figures.
    #[arg(long)]
    no_plot: bool,
}

#[derive(Args)]
struct SweepArgs {
    /// Congestion controls; NAME:iwN adds a static initial window (route initcwnd).
    /// headstart's (s_cubic, s_bbr) are loaded if needed.
    #[arg(long, value_delimiter = ',', default_value = "cubic,bbr,cubic:iw100,s_cubic,s_bbr")]
    cc: Vec<String>,
    /// Bottleneck rate (ignored with --trace).
    #[arg(long, default_value = "100mbit")]
    rate: String,
    /// Round-trip propagation delay.
    #[arg(long, default_value = "50ms")]
    rtt: String,
    /// Drop-tail buffer: in BDPs (1bdp, 0.5bdp) or bytes (10mb, 625k).
    #[arg(long, default_value = "1bdp")]
    buffer: String,
    /// Repetitions of each (size, cc) point.
    #[arg(long, default_value_t = 3)]
    reps: u32,
    /// Flow sizes (k = 1024 bytes).
    #[arg(long, value_delimiter = ',', default_value = "8k,16k,32k,64k,128k,256k,512k,1m,2m,4m,8m")]
    sizes: Vec<String>,
    /// Run a previous flow to the same peer right before each measured flow.
    #[arg(long)]
    warm: bool,
    /// Size of the warm-up flow (default: the measured flow's size).
    #[arg(long)]
    warm_size: Option<String>,
    /// Random loss on the downlink (e.g. 0.1%).
    #[arg(long)]
    loss: Option<String>,
    /// mahimahi trace for the downlink.
    #[arg(long)]
    trace: Option<PathBuf>,
    /// mahimahi trace for the uplink.
    #[arg(long)]
    uplink_trace: Option<PathBuf>,
    /// Use IPv6 between client and server.
    #[arg(long)]
    ipv6: bool,
    /// Sample cwnd and pacing rate at this interval (e.g. 1ms) for cwnd plots.
    #[arg(long)]
    sample: Option<String>,
    #[arg(long)]
    seed: Option<u64>,
    /// Fetch over HTTP from a real nginx with a real curl instead of the lab's own
    /// client and server (no TCP_INFO then: retransmissions come from the emulator).
    #[arg(long)]
    http: bool,
    /// Do not attach the receive-window override to the server for headstart's
    /// controllers.
    #[arg(long)]
    no_rwnd: bool,
    /// Clients' initial receive window in MSS (route initrwnd; 179 is like Windows 10).
    #[arg(long)]
    client_initrwnd: Option<u32>,
    #[command(flatten)]
    out: OutArgs,
}

fn main() {
    // Die quietly on a closed pipe (`headstart table list | head`), as CLI tools do.
    // SAFETY: restoring the default disposition of SIGPIPE at startup.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
    let cli = Cli::parse();
    if let Err(e) = dispatch(cli) {
        eprintln!("headstart: error: {}", format!("{e:#}").replace('\n', " "));
        std::process::exit(1);
    }
}

fn dispatch(cli: Cli) -> Result<()> {
    use headstart::bpf;
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
        Command::Unload { purge } => {
            let removed = bpf::unload(purge)?;
            println!(
                "unloaded {}{}",
                if removed.is_empty() { "nothing".to_string() } else { removed.join(", ") },
                if purge { "; path table and knobs removed" } else { "; path table kept" }
            );
            Ok(())
        }
        Command::Status => status(),
        Command::Table(cmd) => table(cmd),
        Command::Config { assignments } => {
            sys::require_root()?;
            let mut c = bpf::read_config()?;
            if !assignments.is_empty() {
                for a in &assignments {
                    c.set(a)?;
                }
                bpf::write_config(&c)?;
            }
            for k in headstart::bpf::maps::CONFIG_KEYS {
                println!("{k} = {}", c.get(k).unwrap_or(0));
            }
            Ok(())
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

fn parse_addr(text: &str) -> Result<std::net::IpAddr> {
    text.trim().parse().map_err(|_| anyhow::anyhow!("'{text}' is not an IPv4 or IPv6 address"))
}

fn status() -> Result<()> {
    use headstart::bpf;
    sys::require_root()?;
    println!("default congestion control: {}", bpf::default_cc());
    let mut t = comfy_table::Table::new();
    t.load_preset(comfy_table::presets::UTF8_FULL_CONDENSED);
    let mut header = vec!["controller".to_string(), "loaded".to_string()];
    header.extend(headstart::bpf::maps::COUNTER_NAMES.iter().map(|s| s.to_string()));
    t.set_header(header);
    for c in bpf::CONTROLLERS {
        let mut row = vec![c.name.to_string(), if bpf::is_loaded(c.name) { "yes".into() } else { "no".into() }];
        match bpf::counters(c.id) {
            Ok(v) => row.extend(v.iter().map(|n| n.to_string())),
            Err(_) => row.extend(headstart::bpf::maps::COUNTER_NAMES.iter().map(|_| "–".to_string())),
        }
        t.add_row(row);
    }
    println!("{t}");
    match bpf::paths_map() {
        Ok(m) => {
            let n = bpf::table_entries()?.len();
            println!("path table: {n} of {} entries ({}/hs_paths)", m.max_entries, bpf::PIN_DIR);
            let c = bpf::read_config()?;
            let knobs: Vec<String> = headstart::bpf::maps::CONFIG_KEYS.iter().map(|k| format!("{k}={}", c.get(k).unwrap_or(0))).collect();
            println!("knobs: {}", knobs.join(" "));
            println!("receive-window rewrites: {}", bpf::rwnd_rewrites());
        }
        Err(_) => println!("path table: none (nothing loaded yet)"),
    }
    Ok(())
}

fn table(cmd: TableCommand) -> Result<()> {
    use headstart::bpf;
    sys::require_root()?;
    match cmd {
        TableCommand::List { json } => {
            let now = sys::boot_ns();
            let entries = bpf::table_entries()?;
            if json {
                for (a, e) in &entries {
                    println!(
                        "{}",
                        serde_json::json!({"peer": a.to_string(), "bw_bytes_per_s": e.bw_bytes_per_s, "min_rtt_us": e.min_rtt_us, "flows": e.flows, "age_s": now.saturating_sub(e.stored_ns) as f64 / 1e9, "source": e.source_name()})
                    );
                }
                return Ok(());
            }
            let mut t = comfy_table::Table::new();
            t.load_preset(comfy_table::presets::UTF8_FULL_CONDENSED);
            t.set_header(vec!["peer", "bandwidth", "min RTT ms", "BDP KB", "flows", "age s", "source"]);
            for (a, e) in &entries {
                t.add_row(vec![
                    a.to_string(),
                    headstart::units::fmt_rate(e.bw_bytes_per_s as f64 * 8.0),
                    format!("{:.2}", e.min_rtt_us as f64 / 1e3),
                    format!("{:.0}", e.bw_bytes_per_s as f64 * e.min_rtt_us as f64 / 1e6 / 1024.0),
                    e.flows.to_string(),
                    format!("{:.1}", now.saturating_sub(e.stored_ns) as f64 / 1e9),
                    e.source_name().to_string(),
                ]);
            }
            println!("{t}");
            println!("{} entries", entries.len());
            Ok(())
        }
        TableCommand::Get { addr } => {
            let a = parse_addr(&addr)?;
            match bpf::table_get(a)? {
                Some(e) => {
                    println!(
                        "{a}: {} ({} B/s), min RTT {:.3} ms, {} flows, {:.1} s old, from {}",
                        headstart::units::fmt_rate(e.bw_bytes_per_s as f64 * 8.0),
                        e.bw_bytes_per_s,
                        e.min_rtt_us as f64 / 1e3,
                        e.flows,
                        sys::boot_ns().saturating_sub(e.stored_ns) as f64 / 1e9,
                        e.source_name()
                    );
                    Ok(())
                }
                None => anyhow::bail!("{a} is not in the path table"),
            }
        }
        TableCommand::Set { addr, bw, rtt } => {
            let a = parse_addr(&addr)?;
            let bps = headstart::units::parse_rate(&bw)?;
            let rtt_ns = headstart::units::parse_duration_ns(&rtt)?;
            let e = headstart::bpf::maps::PathEntry {
                bw_bytes_per_s: bps / 8,
                stored_ns: sys::boot_ns(),
                min_rtt_us: (rtt_ns / 1000) as u32,
                flows: 0,
                source: headstart::bpf::maps::SOURCE_USER,
            };
            bpf::table_set(a, &e)?;
            println!("{a}: {} , min RTT {rtt}", headstart::units::fmt_rate(bps as f64));
            Ok(())
        }
        TableCommand::Forget { addr } => {
            let a = parse_addr(&addr)?;
            anyhow::ensure!(bpf::table_forget(a)?, "{a} is not in the path table");
            println!("forgot {a}");
            Ok(())
        }
        TableCommand::Flush => {
            println!("removed {} entries", bpf::table_flush()?);
            Ok(())
        }
        TableCommand::Save { file } => {
            println!("saved {} entries to {}", bpf::table_save(&file)?, file.display());
            Ok(())
        }
        TableCommand::Restore { file } => {
            println!("restored {} entries from {}", bpf::table_restore(&file)?, file.display());
            Ok(())
        }
    }
}

fn lab(cmd: LabCommand) -> Result<()> {
    match cmd {
        LabCommand::Sweep(a) => {
            let text = ExperimentText {
                name: Some("sweep".into()),
                link: LinkText { rate: Some(a.rate), rtt: a.rtt, buffer: a.buffer, loss: a.loss, trace: a.trace, uplink_trace: a.uplink_trace },
                workload: WorkloadText::Sweep { cc: a.cc, sizes: a.sizes, reps: a.reps, warm: a.warm, warm_size: a.warm_size, ipv6: a.ipv6 },
                sample: a.sample,
                seed: a.seed,
                http: a.http,
                rwnd_override: Some(!a.no_rwnd),
                client_initrwnd: a.client_initrwnd,
            };
            run_experiment(text, &a.out)
        }
        LabCommand::Run { file, out } => {
            let mut text = ExperimentText::from_toml_file(&file)?;
            if text.name.is_none() {
                text.name = file.file_stem().map(|s| s.to_string_lossy().into_owned());
            }
            run_experiment(text, &out)
        }
        LabCommand::Plot { dir } => {
            for p in plot::plot_dir(&dir)? {
                println!("{}", p.display());
            }
            Ok(())
        }
        LabCommand::Calibrate { rates, rtt, buffer, seconds, cc, trace, out } => calibrate(rates, rtt, buffer, seconds, cc, trace, &out),
        LabCommand::Overhead { cc, bytes, reps, out } => {
            for c in &cc {
                headstart::lab::experiment::CcSpec::parse(c)?.check_available()?;
            }
            sys::require_root()?;
            let missing: Vec<String> = cc.iter().filter(|k| headstart::lab::lab::is_headstart(k) && !headstart::bpf::is_loaded(k)).cloned().collect();
            if !missing.is_empty() {
                headstart::bpf::load(&missing, headstart::bpf::DEFAULT_TABLE_ENTRIES)?;
            }
            overhead(cc, &bytes, reps, &out)
        }
        LabCommand::Clean => {
            sys::require_root()?;
            let swept = topology::sweep_leftovers()?;
            println!("removed {} leftover lab namespace(s){}", swept.len(), if swept.is_empty() { String::new() } else { format!(": {}", swept.join(" ")) });
            Ok(())
        }
    }
}

fn default_out(kind: &str) -> PathBuf {
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

fn run_experiment(text: ExperimentText, out: &OutArgs) -> Result<()> {
    // Everything is validated before any namespace, device or file is created.
    let exp = text.validate()?;
    sys::require_root()?;
    let dir = out.out.clone().unwrap_or_else(|| default_out(exp.workload.kind()));
    check_writable(&dir)?;
    load_headstart_ccs(&exp)?;
    let interrupt = Interrupt::install()?;
    let res = workloads::run(&exp, interrupt, out.quiet)?;
    report::write_all(&dir, &exp, &res)?;
    report::print_and_save(&dir, &exp, &res)?;
    if !out.no_plot {
        plot::plot_dir(&dir).context("plotting")?;
    }
    println!("results: {}", dir.display());
    Ok(())
}

fn overhead(cc: Vec<String>, bytes: &str, reps: u32, out: &OutArgs) -> Result<()> {
    let bytes = headstart::units::parse_size(bytes)?;
    sys::require_root()?;
    let dir = out.out.clone().unwrap_or_else(|| default_out("overhead"));
    check_writable(&dir)?;
    let rows = headstart::lab::overhead::run(&cc, bytes, reps, Interrupt::install()?)?;
    let mut jsonl = String::new();
    for r in &rows {
        jsonl.push_str(&serde_json::to_string(r)?);
        jsonl.push('\n');
    }
    std::fs::write(dir.join("overhead.jsonl"), jsonl)?;
    let mut t = comfy_table::Table::new();
    t.load_preset(comfy_table::presets::UTF8_FULL_CONDENSED);
    t.set_header(vec!["cc", "runs", "throughput Gbit/s (median, min–max)", "CPU s/GB (median, min–max)", "CPU vs first", "BPF ns/call", "BPF ns/ACK"]);
    let med = |v: &mut Vec<f64>| headstart::lab::metrics::median(v);
    let mut base_cpu = None;
    for c in &cc {
        let rs: Vec<_> = rows.iter().filter(|r| &r.cc == c).collect();
        let mut tp: Vec<f64> = rs.iter().map(|r| r.throughput_gbps).collect();
        let mut cpu: Vec<f64> = rs.iter().map(|r| r.cpu_s_per_gb).collect();
        let mut ns: Vec<f64> = rs.iter().filter_map(|r| r.bpf_ns_per_call).collect();
        let mut nsa: Vec<f64> = rs.iter().filter_map(|r| r.bpf_ns_per_ack).collect();
        let (tmin, tmax) = tp.iter().fold((f64::MAX, f64::MIN), |a, &x| (a.0.min(x), a.1.max(x)));
        let (cmin, cmax) = cpu.iter().fold((f64::MAX, f64::MIN), |a, &x| (a.0.min(x), a.1.max(x)));
        let cm = med(&mut cpu);
        let base = *base_cpu.get_or_insert(cm);
        t.add_row(vec![
            c.clone(),
            rs.len().to_string(),
            format!("{:.2} ({tmin:.2}–{tmax:.2})", med(&mut tp)),
            format!("{cm:.3} ({cmin:.3}–{cmax:.3})"),
            format!("{:.2}x", cm / base),
            if ns.is_empty() { "–".into() } else { format!("{:.0}", med(&mut ns)) },
            if nsa.is_empty() { "–".into() } else { format!("{:.0}", med(&mut nsa)) },
        ]);
    }
    println!("{t}");
    std::fs::write(dir.join("summary.txt"), format!("{t}\n"))?;
    println!("results: {}", dir.display());
    Ok(())
}

/// Registers the headstart controllers the experiment names and the kernel lacks.
fn load_headstart_ccs(exp: &headstart::lab::experiment::Experiment) -> Result<()> {
    let missing: Vec<String> = exp
        .workload
        .ccs()
        .iter()
        .map(|c| c.kernel.clone())
        .filter(|k| headstart::lab::lab::is_headstart(k) && !headstart::bpf::is_loaded(k))
        .collect();
    if !missing.is_empty() {
        let loaded = headstart::bpf::load(&missing, headstart::bpf::DEFAULT_TABLE_ENTRIES)?;
        eprintln!("loaded {} for this run (they stay registered: `headstart unload` removes them)", loaded.join(", "));
    }
    Ok(())
}

fn check_writable(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create results folder {}", dir.display()))?;
    let probe = dir.join(".write-test");
    std::fs::write(&probe, b"").with_context(|| format!("cannot write into {}", dir.display()))?;
    let _ = std::fs::remove_file(probe);
    Ok(())
}

fn calibrate(rates: Vec<String>, rtt: String, buffer: String, seconds: f64, cc: String, trace: Option<PathBuf>, out: &OutArgs) -> Result<()> {
    anyhow::ensure!((2.0..=600.0).contains(&seconds), "--seconds must be between 2 and 600");
    // With a trace there is one link to calibrate, named after the trace.
    let rates = match &trace {
        Some(t) => vec![t.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "trace".into())],
        None => rates,
    };
    sys::require_root()?;
    let dir = out.out.clone().unwrap_or_else(|| default_out("calibrate"));
    check_writable(&dir)?;
    let interrupt = Interrupt::install()?;
    let mut lines = vec!["rate,delivered_mbps,ratio,lateness_p50_ms,lateness_p99_ms,lateness_max_ms,outside_model_drops,buffer_drops,goodput_mbps".to_string()];
    let mut table = comfy_table::Table::new();
    table.load_preset(comfy_table::presets::UTF8_FULL_CONDENSED);
    table.set_header(vec!["rate", "link rate delivered", "of configured", "lateness p50 ms", "p99 ms", "max ms", "drops outside model", "buffer drops", "goodput Mbit/s"]);
    for rate in &rates {
        let link = LinkText {
            rate: if trace.is_some() { None } else { Some(rate.clone()) },
            rtt: rtt.clone(),
            buffer: buffer.clone(),
            loss: None,
            trace: trace.clone(),
            uplink_trace: None,
        };
        let resolved = link.resolve()?;
        let bps = resolved.capacity_bps;
        // Enough bytes to keep the link busy for the whole measurement (a trace link
        // may run faster than its average for a while).
        let size = (bps / 8.0 * seconds * if trace.is_some() { 1.5 } else { 1.0 }) as u64;
        let text = ExperimentText {
            name: Some(format!("calibrate-{rate}")),
            link,
            workload: WorkloadText::Competing { cc: vec![cc.clone()], flows: vec![CompetingFlowText { start: "0s".into(), size: size.to_string(), cc: 0 }], bin: "100ms".into() },
            sample: None,
            seed: None,
            http: false,
            rwnd_override: None,
            client_initrwnd: None,
        };
        let exp = text.validate()?;
        if !out.quiet {
            eprintln!("calibrating at {rate} for {seconds} s ...");
        }
        let res = workloads::run(&exp, interrupt.clone(), true)?;
        let sub = dir.join(rate);
        report::write_all(&sub, &exp, &res)?;
        // Link rate over the saturated part: skip the first second (slow start) and
        // the last bin (partial); for a trace, whole periods only.
        let bin_s = 0.1;
        let end_s = res.throughput_series.len() as f64 * bin_s - bin_s;
        let (from, to) = match &resolved.down_rate {
            headstart::lab::emulator::model::LinkRate::Trace(t) => {
                // Any window of whole periods holds the trace's average capacity.
                let p = t.period_ms as f64 / 1000.0;
                let periods = ((end_s - 1.0) / p).floor();
                anyhow::ensure!(periods >= 1.0, "the transfer did not cover a whole trace period ({p} s): raise --seconds");
                (1.0, 1.0 + (periods * p / bin_s).round() * bin_s)
            }
            _ => (1.0, end_s),
        };
        let steady: Vec<f64> = res
            .throughput_series
            .iter()
            .filter(|(t, _, _)| *t >= from - 1e-9 && *t + bin_s <= to + 1e-9)
            .map(|(_, m, _)| m[0])
            .collect();
        let delivered = headstart::lab::metrics::mean(&steady);
        let a = &res.accuracy;
        let outside = a.external.tun_tx_dropped + a.external.tun_rx_dropped + a.external.softnet_dropped + a.write_errors;
        let goodput = res.rows[0].throughput_mbps.unwrap_or(0.0);
        let ratio = delivered * 1e6 / bps;
        lines.push(format!("{rate},{delivered:.3},{ratio:.4},{:.3},{:.3},{:.3},{outside},{},{goodput:.3}", a.lateness_p50_ms, a.lateness_p99_ms, a.lateness_max_ms, a.down_dropped_buffer));
        table.add_row(vec![
            rate.clone(),
            format!("{delivered:.2} Mbit/s"),
            format!("{:.2} %", ratio * 100.0),
            format!("{:.3}", a.lateness_p50_ms),
            format!("{:.3}", a.lateness_p99_ms),
            format!("{:.2}", a.lateness_max_ms),
            outside.to_string(),
            a.down_dropped_buffer.to_string(),
            format!("{goodput:.2}"),
        ]);
    }
    std::fs::write(dir.join("calibration.csv"), lines.join("\n") + "\n")?;
    println!("{table}");
    println!("results: {}", dir.display());
    Ok(())
}
