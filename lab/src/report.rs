//! Results on disk (JSON lines, CSV, run metadata) and on the terminal (tables).

use crate::experiment::Experiment;
use crate::metrics::{mean, median, FlowRow};
use crate::workloads::RunResult;
use headstart::units::fmt_size;
use anyhow::{Context, Result};
use comfy_table::{presets::UTF8_FULL_CONDENSED, Cell, CellAlignment, Table};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write;
use std::path::Path;

pub const FLOWS_JSONL: &str = "flows.jsonl";
pub const FLOWS_CSV: &str = "flows.csv";
pub const RUN_JSON: &str = "run.json";
pub const CWND_CSV: &str = "cwnd.csv";
pub const THROUGHPUT_CSV: &str = "throughput.csv";
pub const PACKETS_CSV: &str = "packets.csv";
pub const RETRANSMISSIONS_CSV: &str = "retransmissions.csv";
pub const SUMMARY_TXT: &str = "summary.txt";

/// Rows as JSON lines, one object per line.
pub fn jsonl<T: serde::Serialize>(rows: &[T]) -> Result<String> {
    let mut out = String::new();
    for r in rows {
        out.push_str(&serde_json::to_string(r)?);
        out.push('\n');
    }
    Ok(out)
}

pub fn write_all(dir: &Path, exp: &Experiment, res: &RunResult) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    write_file(dir, FLOWS_JSONL, &jsonl(&res.rows)?)?;
    write_file(dir, FLOWS_CSV, &rows_csv(&res.rows)?)?;
    let meta = serde_json::json!({
        "experiment": exp.text,
        "link": exp.link,
        // The random loss seed in force: `seed` in the file (or --seed) repeats this run's losses.
        "loss_seed": exp.seed,
        "emulator_accuracy": res.accuracy,
        "server_tcpext": res.server_tcpext,
        "client_tcpext": res.client_tcpext,
        "elapsed_s": res.elapsed.as_secs_f64(),
        "kernel": std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default().trim(),
        "cpus": headstart::sys::online_cpus(),
        "finished_unix_s": std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0),
        "headstart_version": env!("CARGO_PKG_VERSION"),
        "git_commit": headstart::GIT_COMMIT,
        // The knobs in force (null when headstart was not loaded).
        "knobs": headstart::bpf::read_knobs().ok().map(|k| headstart::bpf::status::KnobsReport::of(&k)),
        "lab_knobs": headstart::bpf::read_knob_record::<headstart::bpf::abi::Lab>().ok().map(|k| headstart::bpf::status::KnobsReport::of(&k)),
    });
    write_file(dir, RUN_JSON, &serde_json::to_string_pretty(&meta)?)?;
    if !res.cwnd_series.is_empty() {
        let mut csv = String::from("row,cc,size,t_ms,cwnd,ssthresh,pacing_mbps\n");
        let mut idx: Vec<_> = res.cwnd_series.keys().copied().collect();
        idx.sort();
        for i in idx {
            let r = &res.rows[i];
            for s in &res.cwnd_series[&i] {
                writeln!(csv, "{i},{},{},{:.3},{},{},{:.3}", r.cc, r.size, s.t_ms, s.cwnd, s.ssthresh, s.pacing_bps as f64 / 1e6)?;
            }
        }
        write_file(dir, CWND_CSV, &csv)?;
    }
    if !res.packets.is_empty() {
        let mut csv = String::from("row,cc,t_s,queue_ms\n");
        for (i, pts) in &res.packets {
            for (t, q) in pts {
                writeln!(csv, "{i},{},{t:.6},{q:.3}", res.rows[*i].cc)?;
            }
        }
        write_file(dir, PACKETS_CSV, &csv)?;
        let mut csv = String::from("row,cc,t_s\n");
        for (i, ts) in &res.retransmissions {
            for t in ts {
                writeln!(csv, "{i},{},{t:.6}", res.rows[*i].cc)?;
            }
        }
        write_file(dir, RETRANSMISSIONS_CSV, &csv)?;
    }
    if !res.throughput_series.is_empty() {
        let mut csv = String::from("t_s,flow,cc,mbps,jain\n");
        for (t, mbps, jain) in &res.throughput_series {
            for (i, m) in mbps.iter().enumerate() {
                writeln!(csv, "{t:.3},{i},{},{m:.3},{jain:.4}", res.rows[i].cc)?;
            }
        }
        write_file(dir, THROUGHPUT_CSV, &csv)?;
    }
    Ok(())
}

fn write_file(dir: &Path, name: &str, text: &str) -> Result<()> {
    let path = dir.join(name);
    let mut f = std::fs::File::create(&path).with_context(|| format!("cannot write {}", path.display()))?;
    f.write_all(text.as_bytes())?;
    Ok(())
}

fn rows_csv(rows: &[FlowRow]) -> Result<String> {
    let mut out = String::new();
    for (i, r) in rows.iter().enumerate() {
        let v = serde_json::to_value(r)?;
        let obj = v.as_object().context("row is an object")?;
        if i == 0 {
            out.push_str(&obj.keys().cloned().collect::<Vec<_>>().join(","));
            out.push('\n');
        }
        let cells: Vec<String> = obj
            .values()
            .map(|v| match v {
                serde_json::Value::Null => String::new(),
                serde_json::Value::String(s) => format!("\"{}\"", s.replace('"', "\"\"")),
                other => other.to_string(),
            })
            .collect();
        out.push_str(&cells.join(","));
        out.push('\n');
    }
    Ok(out)
}

pub fn read_rows(dir: &Path) -> Result<Vec<FlowRow>> {
    let path = dir.join(FLOWS_JSONL);
    let text = std::fs::read_to_string(&path).with_context(|| format!("cannot read {} (is this a lab results folder?)", path.display()))?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| serde_json::from_str(l).with_context(|| format!("{}: line {} is not a flow row", path.display(), i + 1)))
        .collect()
}

/// Congestion controls in the order they first appear.
pub fn cc_order(rows: &[FlowRow]) -> Vec<String> {
    let mut seen = Vec::new();
    // A warm sweep's primer comes first but is not a controller's turn.
    for r in rows.iter().filter(|r| r.role != "primer") {
        if !seen.contains(&r.cc) {
            seen.push(r.cc.clone());
        }
    }
    seen
}

fn measured(rows: &[FlowRow]) -> impl Iterator<Item = &FlowRow> {
    rows.iter().filter(|r| r.role == "measured")
}

/// Ω per size (median over repetitions, with min–max) per congestion control, and the
/// mean over sizes: the papers' headline number.
pub fn omega_table(rows: &[FlowRow]) -> Table {
    let ccs = cc_order(rows);
    let mut by: BTreeMap<u64, BTreeMap<String, Vec<f64>>> = BTreeMap::new();
    for r in measured(rows) {
        if let Some(o) = r.omega {
            by.entry(r.size).or_default().entry(r.cc.clone()).or_default().push(o);
        }
    }
    let mut t = Table::new();
    t.load_preset(UTF8_FULL_CONDENSED);
    let mut header = vec![Cell::new("size")];
    header.extend(ccs.iter().map(|c| Cell::new(format!("Ω {c}"))));
    t.set_header(header);
    let mut per_cc_medians: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for (size, m) in &by {
        let mut row = vec![Cell::new(fmt_size(*size)).set_alignment(CellAlignment::Right)];
        for c in &ccs {
            match m.get(c) {
                Some(v) => {
                    let mut v = v.clone();
                    let med = median(&mut v);
                    per_cc_medians.entry(c.clone()).or_default().push(med);
                    let spread = if v.len() > 1 { format!(" ({:.2}–{:.2})", v[0], v[v.len() - 1]) } else { String::new() };
                    row.push(Cell::new(format!("{med:.3}{spread}")));
                }
                None => row.push(Cell::new("–")),
            }
        }
        t.add_row(row);
    }
    let mut mean_row = vec![Cell::new("mean Ω")];
    for c in &ccs {
        mean_row.push(Cell::new(per_cc_medians.get(c).map_or("–".into(), |v| format!("{:.3}", mean(v)))));
    }
    t.add_row(mean_row);
    t
}

/// One line per congestion control: flows, failures, Ω, FCT, throughput, losses, delay.
pub fn cc_table(rows: &[FlowRow]) -> Table {
    let mut t = Table::new();
    t.load_preset(UTF8_FULL_CONDENSED);
    t.set_header(vec![
        "cc", "flows", "failed", "mean Ω", "median FCT ms", "mean FCT ms", "mean tput Mbit/s", "retrans (sum)", "mean qdelay ms",
    ]);
    for c in cc_order(rows) {
        let rs: Vec<&FlowRow> = measured(rows).filter(|r| r.cc == c).collect();
        let ok: Vec<&&FlowRow> = rs.iter().filter(|r| r.fct_s.is_some()).collect();
        let mut fct: Vec<f64> = ok.iter().filter_map(|r| r.fct_s).map(|f| f * 1e3).collect();
        let omegas: Vec<f64> = ok.iter().filter_map(|r| r.omega).collect();
        let tput: Vec<f64> = ok.iter().filter_map(|r| r.throughput_mbps).collect();
        let qd: Vec<f64> = ok.iter().filter_map(|r| r.queue_delay_mean_ms).collect();
        // No TCP_INFO in the HTTP mode: say so rather than print 0.
        let retrans = if ok.iter().any(|r| r.retrans.is_some()) {
            ok.iter().filter_map(|r| r.retrans).map(u64::from).sum::<u64>().to_string()
        } else {
            "–".to_string()
        };
        let mean_fct = mean(&fct);
        t.add_row(vec![
            c.clone(),
            rs.len().to_string(),
            (rs.len() - ok.len()).to_string(),
            format!("{:.3}", mean(&omegas)),
            format!("{:.1}", median(&mut fct)),
            format!("{mean_fct:.1}"),
            format!("{:.2}", mean(&tput)),
            retrans,
            format!("{:.2}", mean(&qd)),
        ]);
    }
    t
}

pub fn summary_text(exp_line: &str, rows: &[FlowRow], accuracy_line: &str, sweep: bool) -> String {
    let mut s = format!("{exp_line}\n");
    if sweep {
        writeln!(s, "{}", omega_table(rows)).ok();
    }
    writeln!(s, "{}", cc_table(rows)).ok();
    let errors: Vec<&FlowRow> = rows.iter().filter(|r| r.error.is_some()).collect();
    if let Some(e) = errors.first() {
        writeln!(s, "{} flows failed; first error: {}", errors.len(), e.error.as_deref().unwrap_or("")).ok();
    }
    writeln!(s, "{accuracy_line}").ok();
    s
}

pub fn print_and_save(dir: &Path, exp: &Experiment, res: &RunResult) -> Result<()> {
    let stall = match (exp.reader_stall_ns, exp.reader_stall_every) {
        (0, _) => String::new(),
        (ns, 1) => format!(", the client stalls {} ms as data arrives", ns as f64 / 1e6),
        (ns, n) => format!(", the client stalls {} ms as data arrives in every {n}th flow", ns as f64 / 1e6),
    };
    let owner = exp.server_uid.map(|u| format!(", the server's sockets belong to uid {u}")).unwrap_or_default();
    let line = format!(
        "{} ({}): {}{stall}{owner} — {} flows in {:.0} s",
        exp.name,
        exp.workload.kind(),
        exp.link.describe(),
        res.rows.len(),
        res.elapsed.as_secs_f64()
    );
    let text = summary_text(&line, &res.rows, &res.accuracy.one_line(), matches!(exp.workload, crate::experiment::Workload::Sweep { .. }));
    print!("{text}");
    write_file(dir, SUMMARY_TXT, &text)?;
    Ok(())
}
