//! The reproductions: per figure or table of the four technical seeds, the lab runs and
//! the paper's numbers. A paper's number is quoted only where its text or a table
//! states it (section and page in the `source`); a figure without numbers gets the
//! bounds its text gives ("lower than 0.5"), or none. Setups follow the paper's
//! section; `departs` says where the lab cannot (no 400 Mbit/s on 2 vCPUs, no
//! Windows receiver, no Internet paths).

use super::{mean_spread, Claim, Ctx, Point, Reproduction, Run, Runs};
use crate::metrics::FlowRow;
use crate::report;

const ALL_SIZES: &[&str] = &["8k", "16k", "32k", "64k", "128k", "256k", "512k", "1m", "2m", "4m", "8m"];

fn size_bytes(s: &str) -> u64 {
    headstart::units::parse_size(s).unwrap_or(0)
}

fn quoted(xs: &[&str]) -> String {
    xs.iter().map(|x| format!("\"{x}\"")).collect::<Vec<_>>().join(", ")
}

/// An experiment: top-level settings, the link, the workload, and optional `[knobs]`.
fn experiment(top: &str, link: &str, workload: &str, knobs: &str) -> String {
    let knobs = if knobs.is_empty() { String::new() } else { format!("[knobs]\n{knobs}\n") };
    format!("{top}\n[link]\n{link}\n[workload]\n{workload}\n{knobs}")
}

fn link(rate: &str, rtt: &str, buffer: &str) -> String {
    format!("rate = \"{rate}\"\nrtt = \"{rtt}\"\nbuffer = \"{buffer}\"")
}

fn sweep(cc: &[&str], sizes: &[&str], reps: u32, warm: bool) -> String {
    format!("kind = \"sweep\"\ncc = [{}]\nsizes = [{}]\nreps = {reps}\nwarm = {warm}", quoted(cc), quoted(sizes))
}

fn poisson(cc: &[&str], mean: &str, util: f64, flows: u32, more: &str) -> String {
    format!("kind = \"poisson\"\ncc = [{}]\nmean_size = \"{mean}\"\nutilization = {util}\nflows = {flows}\n{more}", quoted(cc), )
}

/// Long flows: (start, size, index into `cc`), throughput in bins of `bin`.
fn competing(cc: &[&str], flows: &[(&str, &str, usize)], bin: &str) -> String {
    let list = flows.iter().map(|(s, z, c)| format!("{{ start = \"{s}\", size = \"{z}\", cc = {c} }}")).collect::<Vec<_>>().join(", ");
    format!("kind = \"competing\"\ncc = [{}]\nflows = [{list}]\nbin = \"{bin}\"", quoted(cc))
}

/// Long flows, each from the client named: (start, size, index into `cc`, client).
fn competing_from(cc: &[&str], flows: &[(&str, &str, usize, usize)], bin: &str) -> String {
    let list = flows.iter().map(|(s, z, c, k)| format!("{{ start = \"{s}\", size = \"{z}\", cc = {c}, client = {k} }}")).collect::<Vec<_>>().join(", ");
    format!("kind = \"competing\"\ncc = [{}]\nflows = [{list}]\nbin = \"{bin}\"", quoted(cc))
}

fn run(label: impl Into<String>, toml: String) -> Run {
    Run { label: label.into(), toml }
}

fn of<'a>(rows: &[&'a FlowRow], cc: &str, size: Option<&str>) -> Vec<&'a FlowRow> {
    rows.iter().copied().filter(|r| r.cc == cc && size.is_none_or(|s| r.size == size_bytes(s))).collect()
}

fn stat(rows: &[&FlowRow], f: impl Fn(&FlowRow) -> Option<f64>) -> (Option<f64>, Option<f64>) {
    mean_spread(&rows.iter().filter_map(|r| f(r)).collect::<Vec<_>>())
}

/// A sweep's mean over its sizes, with the uncertainty from its repetitions: one mean
/// per repetition (every size once), then their mean and spread.
fn by_rep(rows: &[&FlowRow], f: impl Fn(&FlowRow) -> Option<f64>) -> (Option<f64>, Option<f64>) {
    let mut reps: std::collections::BTreeMap<u32, Vec<f64>> = Default::default();
    for r in rows {
        if let Some(v) = f(r) {
            reps.entry(r.rep).or_default().push(v);
        }
    }
    mean_spread(&reps.values().map(|v| v.iter().sum::<f64>() / v.len() as f64).collect::<Vec<_>>())
}

fn mean(rows: &[&FlowRow], f: impl Fn(&FlowRow) -> Option<f64>) -> Option<f64> {
    stat(rows, f).0
}

fn omega(r: &FlowRow) -> Option<f64> {
    r.omega
}
fn fct(r: &FlowRow) -> Option<f64> {
    r.fct_s
}
fn queue(r: &FlowRow) -> Option<f64> {
    r.queue_delay_mean_ms
}

/// FCT reduction of `new` against `base`, in percent of base's mean FCT.
fn improvement(base: &[&FlowRow], new: &[&FlowRow]) -> Option<f64> {
    Some((1.0 - mean(new, fct)? / mean(base, fct)?) * 100.0)
}

/// Retransmitted segments per segment sent, in percent.
fn retrans_pct(rows: &[&FlowRow]) -> Option<f64> {
    let sent: f64 = rows.iter().map(|r| r.size as f64 / r.mss.max(536) as f64).sum();
    let re: f64 = rows.iter().map(|r| r.retrans.unwrap_or(0) as f64).sum();
    (sent > 0.0).then(|| re / sent * 100.0)
}

fn value(v: f64, tol: f64) -> Claim {
    Claim::Value { v, tol, step: 0.0 }
}
/// A value a table printed to `step` (1: whole milliseconds).
fn printed(v: f64, tol: f64, step: f64) -> Claim {
    Claim::Value { v, tol, step }
}
fn lab(v: Option<f64>) -> (Option<f64>, Option<f64>) {
    (v, None)
}
fn diff(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    Some(a? - b?)
}
/// The difference of two means with its uncertainty: their spreads in quadrature.
fn diff_spread(a: (Option<f64>, Option<f64>), b: (Option<f64>, Option<f64>)) -> (Option<f64>, Option<f64>) {
    let spread = match (a.1, b.1) {
        (None, None) => None,
        (x, y) => Some(x.unwrap_or(0.0).hypot(y.unwrap_or(0.0))),
    };
    (diff(a.0, b.0), spread)
}

/// A competing run's per-flow throughput: flow index -> (t, Mbit/s) in order.
fn throughput(runs: &Runs, label: &str) -> Vec<Vec<(f64, f64)>> {
    let mut flows: Vec<Vec<(f64, f64)>> = Vec::new();
    for r in runs.csv(label, report::THROUGHPUT_CSV) {
        let (t, f, m) = (crate::plot::num(&r[0]), crate::plot::num(&r[1]) as usize, crate::plot::num(&r[3]));
        if flows.len() <= f {
            flows.resize(f + 1, Vec::new());
        }
        flows[f].push((t, m));
    }
    flows
}

/// Seconds from `start` to the first 1 s window of `series`'s bins (its first `len`)
/// for which `ok(first_bin, bins_per_second)` holds; None if none does.
fn first_second_where(series: &[(f64, f64)], len: usize, start: f64, ok: impl Fn(usize, usize) -> bool) -> Option<f64> {
    let bin = series.get(1).map_or(0.1, |p| p.0 - series[0].0).max(1e-3);
    let w = (1.0 / bin).round().max(1.0) as usize;
    (0..len.saturating_sub(w)).find(|&i| series[i].0 >= start && ok(i, w)).map(|i| series[i].0 - start)
}

/// Seconds from `second`'s start until its throughput, averaged over 1 s, first
/// reaches 80 % of `first`'s (HyStart Fig. 15's convergence); None if it never does.
fn convergence_s(flows: &[Vec<(f64, f64)>], first: usize, second: usize, start: f64) -> Option<f64> {
    let (a, b) = (flows.get(first)?, flows.get(second)?);
    let sum = |s: &[(f64, f64)]| s.iter().map(|p| p.1).sum::<f64>();
    first_second_where(a, a.len().min(b.len()), start, |i, w| {
        let (sa, sb) = (sum(&a[i..i + w]), sum(&b[i..i + w]));
        sa > 0.0 && sb >= 0.8 * sa
    })
}

/// The share of the link all flows used over [0, until) s, in percent.
fn utilization_pct(flows: &[Vec<(f64, f64)>], until: f64, capacity_mbps: f64) -> Option<f64> {
    let mut sum = 0.0;
    let mut bins = 0usize;
    let first = flows.first()?;
    for (i, (t, _)) in first.iter().enumerate() {
        if *t >= until {
            break;
        }
        sum += flows.iter().map(|f| f.get(i).map_or(0.0, |p| p.1)).sum::<f64>();
        bins += 1;
    }
    (bins > 0).then(|| sum / bins as f64 / capacity_mbps * 100.0)
}

// ---------------------------------------------------------------- S-Cubic (IEEE Access 2023)

fn sc_fig2_runs(c: &Ctx) -> Vec<Run> {
    let sizes = c.pick(&["8k", "128k", "512k", "1m", "8m"][..], ALL_SIZES);
    ["10ms", "50ms", "100ms"]
        .iter()
        .map(|rtt| run(format!("rtt{rtt}"), experiment("", &link("100mbit", rtt, "1bdp"), &sweep(&["cubic"], sizes, c.pick(1, 5), false), "")))
        .collect()
}

fn sc_fig2(r: &Runs) -> Vec<Point> {
    let mut out = Vec::new();
    for rtt in ["10ms", "50ms", "100ms"] {
        let rows = r.rows(&format!("rtt{rtt}"));
        for s in ALL_SIZES {
            let these = of(&rows, "cubic", Some(s));
            if these.is_empty() {
                continue;
            }
            let claim = match (*s, rtt) {
                ("8k", _) => Claim::AtLeast { v: 0.8 },
                ("128k" | "256k" | "512k" | "1m", "50ms" | "100ms") => Claim::AtMost { v: 0.5 },
                _ => Claim::None,
            };
            out.push(Point::new(format!("cubic {rtt}"), *s, claim, stat(&these, omega)));
        }
    }
    out
}

fn sc_fig3_runs(c: &Ctx) -> Vec<Run> {
    let sizes = c.pick(&["8k", "256k", "1m", "8m"][..], ALL_SIZES);
    vec![run(
        "win10",
        experiment("client_initrwnd = 179", &link("100mbit", "100ms", "1bdp"), &sweep(&["cubic", "jump_start", "cache", "cache_plus"], sizes, c.pick(1, 5), true), ""),
    )]
}

fn sc_fig3(r: &Runs) -> Vec<Point> {
    let rows = r.rows("win10");
    let mut out = Vec::new();
    let o = |cc: &str, s: &str| stat(&of(&rows, cc, Some(s)), omega).0;
    for cc in ["cubic", "jump_start", "cache", "cache_plus"] {
        for s in ALL_SIZES {
            let these = of(&rows, cc, Some(s));
            if !these.is_empty() {
                out.push(Point::new(cc, *s, Claim::None, stat(&these, omega)));
            }
        }
    }
    out.push(Point::new("Ω jump_start − Ω cubic", "8k", Claim::AtMost { v: 0.0 }, lab(diff(o("jump_start", "8k"), o("cubic", "8k")))));
    out.push(Point::new("Ω jump_start − Ω cubic", "1m", Claim::AtLeast { v: 0.0 }, lab(diff(o("jump_start", "1m"), o("cubic", "1m")))));
    out.push(Point::new("Ω cache − Ω jump_start", "1m", Claim::AtLeast { v: 0.0 }, lab(diff(o("cache", "1m"), o("jump_start", "1m")))));
    out.push(Point::new("Ω cache_plus 8M − Ω cache_plus 1M", "8m", Claim::AtMost { v: 0.0 }, lab(diff(o("cache_plus", "8m"), o("cache_plus", "1m")))));
    out
}

fn sc_fig4_runs(c: &Ctx) -> Vec<Run> {
    vec![run("8m", experiment("sample = \"5ms\"", &link("100mbit", "100ms", "1bdp"), &sweep(&["cache_plus", "s_cubic"], &["8m"], c.pick(1, 5), true), ""))]
}

fn sc_fig4(r: &Runs) -> Vec<Point> {
    let rows = r.rows("8m");
    let mut out = Vec::new();
    for cc in ["cache_plus", "s_cubic"] {
        let these = of(&rows, cc, None);
        let claim = if cc == "cache_plus" { Claim::AtLeast { v: 1.0 } } else { Claim::None };
        out.push(Point::new(cc, "bottleneck drops, 8 MB flow", claim, stat(&these, |r| r.drops_buffer.map(|d| d as f64))));
        out.push(Point::new(cc, "Ω, 8 MB flow", Claim::None, stat(&these, omega)));
    }
    out
}

fn sc_fig6_runs(c: &Ctx) -> Vec<Run> {
    let sizes = c.pick(&["16k", "128k", "1m", "8m"][..], &["4k", "16k", "64k", "256k", "1m", "4m", "8m"][..]);
    c.pick(&["50ms"][..], &["10ms", "50ms", "100ms"][..])
        .iter()
        .map(|rtt| run(format!("rtt{rtt}"), experiment("", &link("100mbit", rtt, "1bdp"), &sweep(&["bbr", "s_cubic"], sizes, c.pick(1, 3), false), "")))
        .collect()
}

fn sc_fig6(r: &Runs) -> Vec<Point> {
    let mut out = Vec::new();
    for rtt in ["10ms", "50ms", "100ms"] {
        let rows = r.rows(&format!("rtt{rtt}"));
        for s in ["4k", "16k", "64k", "128k", "256k", "1m", "4m", "8m"] {
            let bbr = of(&rows, "bbr", Some(s));
            if bbr.is_empty() {
                continue;
            }
            // "both algorithms significantly underestimate the link bandwidth (100 Mbps)
            // for smaller flow sizes": read as below half of it up to 128 KB.
            let claim = if size_bytes(s) <= 128 << 10 { Claim::AtMost { v: 50.0 } } else { Claim::None };
            out.push(Point::new(format!("BBR {rtt}"), s, claim, stat(&bbr, |r| r.cc_bw_mbps)));
            out.push(Point::new(format!("GCBE (s_cubic) {rtt}"), s, Claim::None, stat(&of(&rows, "s_cubic", Some(s)), |r| r.table_bw_mbps)));
        }
    }
    out
}

fn sc_fig8_runs(c: &Ctx) -> Vec<Run> {
    let sizes = c.pick(&["8k", "128k", "1m", "8m"][..], ALL_SIZES);
    ["10ms", "50ms", "100ms"]
        .iter()
        .map(|rtt| run(format!("rtt{rtt}"), experiment("", &link("100mbit", rtt, "1bdp"), &sweep(&["cubic", "s_cubic"], sizes, c.pick(1, 3), true), "")))
        .collect()
}

fn sc_fig8(r: &Runs) -> Vec<Point> {
    let mut out = Vec::new();
    // "S-Cubic's average FCT efficiencies are 96.3%, 98.8%, and 99.3% for RTTs of
    // 10 ms, 50 ms, and 100 ms" (§V-A, one BDP).
    for (rtt, paper) in [("10ms", 0.963), ("50ms", 0.988), ("100ms", 0.993)] {
        let rows = r.rows(&format!("rtt{rtt}"));
        for cc in ["cubic", "s_cubic"] {
            let claim = if cc == "s_cubic" { value(paper, 0.03) } else { Claim::None };
            out.push(Point::new(format!("{cc} mean Ω"), rtt, claim, by_rep(&of(&rows, cc, None), omega)));
        }
    }
    out
}

fn sc_table3_runs(c: &Ctx) -> Vec<Run> {
    let sizes = c.pick(&["64k", "512k", "2m"][..], ALL_SIZES);
    let mut runs = Vec::new();
    for buf in ["0.5bdp", "1bdp"] {
        for rtt in ["10ms", "50ms", "100ms"] {
            runs.push(run(format!("{buf}-{rtt}"), experiment("", &link("100mbit", rtt, buf), &sweep(&["cubic", "s_cubic"], sizes, c.pick(1, 3), true), "")));
        }
    }
    runs
}

fn sc_table3(r: &Runs) -> Vec<Point> {
    // Table 3, per-flow mean queueing delay (ms).
    let paper = [
        ("0.5bdp", "cubic", [1.5, 4.7, 6.2]),
        ("0.5bdp", "s_cubic", [1.2, 1.8, 3.7]),
        ("1bdp", "cubic", [2.7, 5.7, 6.6]),
        ("1bdp", "s_cubic", [2.0, 5.5, 6.6]),
    ];
    let mut out = Vec::new();
    for (buf, cc, vals) in paper {
        for (rtt, v) in ["10ms", "50ms", "100ms"].iter().zip(vals) {
            let rows = r.rows(&format!("{buf}-{rtt}"));
            out.push(Point::new(format!("{cc} {buf}"), *rtt, printed(v, 0.3, 0.1), by_rep(&of(&rows, cc, None), queue)));
        }
    }
    out
}

fn sc_fig9_runs(c: &Ctx) -> Vec<Run> {
    vec![run("8m", experiment("packet_series = true", &link("100mbit", "100ms", "1250k"), &sweep(&["cubic", "s_cubic"], &["8m"], c.pick(1, 3), true), ""))]
}

fn sc_fig9(r: &Runs) -> Vec<Point> {
    let all = r.find("8m").map(|x| x.2.clone()).unwrap_or_default();
    let packets = r.csv("8m", report::PACKETS_CSV);
    let mut out = Vec::new();
    // "in the first RTT of ~800 packets ... 0.4 ms vs. 6.9 ms for S-Cubic and Cubic".
    for (cc, paper) in [("cubic", 6.9), ("s_cubic", 0.4)] {
        let (mut first, mut whole) = (Vec::new(), Vec::new());
        for (i, row) in all.iter().enumerate().filter(|(_, f)| f.role == "measured" && f.cc == cc) {
            let q: Vec<f64> = packets.iter().filter(|p| p[0] == i.to_string()).map(|p| crate::plot::num(&p[3])).collect();
            first.push(q.iter().take(800).sum::<f64>() / q.len().clamp(1, 800) as f64);
            whole.extend(row.queue_delay_mean_ms);
        }
        out.push(Point::new(cc, "first 800 packets", value(paper, 0.5), mean_spread(&first)));
        out.push(Point::new(cc, "whole flow", Claim::None, mean_spread(&whole)));
    }
    out
}

const SC_UTILS: [(&str, f64); 3] = [("12", 0.12), ("27", 0.27), ("63", 0.63)];

fn sc_fig10_runs(c: &Ctx) -> Vec<Run> {
    let utils = c.pick(&SC_UTILS[1..], &SC_UTILS[..]);
    let means = c.pick(&["128k", "1024k"][..], &POISSON_MEANS[..]);
    let mut runs = Vec::new();
    for (u, util) in utils {
        for m in means {
            let wl = poisson(&["cubic", "s_cubic"], m, *util, c.pick(60, 400), "warm = true\nclients = 4");
            runs.push(run(format!("u{u}-{m}"), experiment("", &link("100mbit", "50ms", "1bdp"), &wl, "")));
        }
    }
    runs
}

fn sc_fig10(r: &Runs) -> Vec<Point> {
    let mut out = Vec::new();
    for (u, _) in SC_UTILS {
        for m in POISSON_MEANS {
            let rows = r.rows(&format!("u{u}-{m}"));
            if rows.is_empty() {
                continue;
            }
            // "Even in this case [63 %], S-Cubic still achieved over 30% reduction in FCT".
            let claim = if u == "63" { Claim::AtLeast { v: 30.0 } } else { Claim::None };
            out.push(Point::new(format!("{u} % utilization"), format!("mean {m}"), claim, lab(improvement(&of(&rows, "cubic", None), &of(&rows, "s_cubic", None)))));
        }
    }
    out
}

/// The mean flow sizes of the Poisson figures (S-Cubic Figs. 10–12, S-BBR Tables II–V, Fig. 4).
const POISSON_MEANS: [&str; 4] = ["64k", "128k", "512k", "1024k"];

/// For each measured flow of `cc` in a run, how many other flows of that controller
/// (warm-ups included) were in flight at some time during it. The controllers run one
/// after the other on the link, so flows of the other never overlap.
fn overlap_counts(r: &Runs, label: &str, cc: &str) -> Vec<f64> {
    let span = |f: &FlowRow| (f.start_s, f.start_s + f.fct_s.unwrap_or(0.0));
    let all: Vec<&FlowRow> = r.all_rows(label).into_iter().filter(|f| f.cc == cc).collect();
    all.iter()
        .enumerate()
        .filter(|(_, f)| f.role == "measured")
        .map(|(i, f)| {
            let (s, e) = span(f);
            all.iter().enumerate().filter(|(j, g)| *j != i && span(g).0 < e && span(g).1 > s).count() as f64
        })
        .collect()
}

fn sc_fig11_counts(r: &Runs, u: &str, cc: &str) -> Vec<f64> {
    POISSON_MEANS.iter().flat_map(|m| overlap_counts(r, &format!("u{u}-{m}"), cc)).collect()
}

fn sc_fig11(r: &Runs) -> Vec<Point> {
    let mut out = Vec::new();
    for (u, _) in SC_UTILS {
        let mut means = Vec::new();
        for cc in ["cubic", "s_cubic"] {
            let counts = sc_fig11_counts(r, u, cc);
            if counts.is_empty() {
                continue;
            }
            let share = counts.iter().filter(|c| **c > 0.0).count() as f64 / counts.len() as f64 * 100.0;
            let st = mean_spread(&counts);
            means.push(st);
            out.push(Point::new(format!("{cc}: flows overlapping a flow"), format!("{u} %"), Claim::None, st));
            out.push(Point::new(format!("{cc}: flows with an overlap (%)"), format!("{u} %"), Claim::None, lab(Some(share))));
        }
        // "the number of overlapping flows is much larger in Cubic than in S-Cubic".
        if let [c, s] = means[..] {
            out.push(Point::new("s_cubic − cubic (flows)", format!("{u} %"), Claim::AtMost { v: 0.0 }, diff_spread(s, c)));
        }
    }
    out
}

/// Fig. 11's form: the distribution of overlapping flows, per controller and load.
fn sc_fig11_figure(r: &Runs, path: &std::path::Path) -> anyhow::Result<()> {
    let mut series = Vec::new();
    for (u, _) in SC_UTILS {
        for cc in ["cubic", "s_cubic"] {
            let counts = sc_fig11_counts(r, u, cc);
            if !counts.is_empty() {
                series.push((format!("{cc}, {u} %"), counts));
            }
        }
    }
    crate::plot::cdf_plot(path, "S-Cubic Fig. 11 — overlapping flows in the bottleneck (lab)", "other flows in flight during a flow", &series, false)
}

fn sc_fig12_runs(c: &Ctx) -> Vec<Run> {
    let utils = c.pick(&SC_UTILS[1..], &SC_UTILS[..]);
    let means = c.pick(&["512k"][..], &POISSON_MEANS[..]);
    let mut runs = Vec::new();
    for (u, util) in utils {
        for m in means {
            for (tag, cc) in [("base", ["cubic", "cubic"]), ("mix", ["cubic", "s_cubic"])] {
                let wl = poisson(&cc, m, *util, c.pick(80, 400), "warm = true\nclients = 2\nmixed = true");
                runs.push(run(format!("{tag}-u{u}-{m}"), experiment("", &link("100mbit", "50ms", "1bdp"), &wl, "")));
            }
        }
    }
    runs
}

fn sc_fig12(r: &Runs) -> Vec<Point> {
    // "Cubic flows' FCTs averaged over all four mean flow sizes are increased by 12.6%,
    // 21.6%, and 23.1% for 12%, 27%, and 63% link utilizations".
    let mut out = Vec::new();
    for ((u, _), paper) in SC_UTILS.iter().zip([12.6, 21.6, 23.1]) {
        let mut incr = Vec::new();
        for m in POISSON_MEANS {
            let (base, mix) = (r.rows(&format!("base-u{u}-{m}")), r.rows(&format!("mix-u{u}-{m}")));
            if let (Some(b), Some(x)) = (mean(&base, fct), mean(&of(&mix, "cubic", None), fct)) {
                incr.push((x / b - 1.0) * 100.0);
            }
        }
        if !incr.is_empty() {
            out.push(Point::new("cubic's FCT beside s_cubic", format!("{u} %"), value(paper, 0.5), mean_spread(&incr)));
        }
    }
    out
}

/// S-Cubic §V-D: "For the S-Cubic flow, it used the estimated bandwidth from a previous
/// 8 KB flow". headstart stores nothing from 8 KB (it would underestimate: s-cubic-fig6),
/// so a 1 MB flow from client 1 primes the entry, then the long flows from clients 0 and
/// 1 (the second meets the entry; the first starts with none).
fn two_long_flows(cc: &str, a: &str, b: &str) -> String {
    competing_from(&[cc], &[("0s", "1m", 0, 1), ("2s", a, 0, 0), ("7s", b, 0, 1)], "500ms")
}

fn sc_fig13_runs(c: &Ctx) -> Vec<Run> {
    let (a, b) = c.pick(("400m", "300m"), ("1200m", "1000m"));
    ["cubic", "s_cubic"].iter().map(|cc| run(*cc, experiment("", &link("100mbit", "50ms", "1bdp"), &two_long_flows(cc, a, b), ""))).collect()
}

fn sc_fig13(r: &Runs) -> Vec<Point> {
    let mut out = Vec::new();
    for cc in ["cubic", "s_cubic"] {
        let start = r.rows(cc).get(2).map_or(7.0, |f| f.start_s);
        let t = convergence_s(&throughput(r, cc), 1, 2, start);
        // "it takes nearly one minute for the second [Cubic] flow to ramp up".
        let claim = if cc == "cubic" { value(60.0, 0.5) } else { Claim::None };
        out.push(Point::new(cc, "second flow: s to 80 % of the first's rate", claim, lab(t)));
    }
    out
}

fn sc_fig14_runs(c: &Ctx) -> Vec<Run> {
    let (a, b) = c.pick(("150m", "100m"), ("600m", "500m"));
    ["cubic", "s_cubic"].iter().map(|cc| run(*cc, experiment("packet_series = true", &link("100mbit", "50ms", "1bdp"), &two_long_flows(cc, a, b), ""))).collect()
}

fn sc_fig14(r: &Runs) -> Vec<Point> {
    let mut out = Vec::new();
    // "the second S-Cubic flow triggered 138 retransmissions versus Cubic's 4 retransmissions in the first RTT".
    for (cc, paper) in [("cubic", 4.0), ("s_cubic", 138.0)] {
        let rows = r.rows(cc);
        let Some(second) = rows.get(2) else { continue };
        let retx: Vec<f64> = r.csv(cc, report::RETRANSMISSIONS_CSV).iter().filter(|p| p[0] == "2").map(|p| crate::plot::num(&p[2])).collect();
        let rtt = second.link_rtt_ms / 1e3;
        let first_rounds = |k: f64| retx.iter().filter(|t| **t >= second.start_s && **t < second.start_s + k * rtt).count() as f64;
        // The lab counts where retransmissions reach the bottleneck: the repair of a loss
        // in the flow's first round of data comes after its handshake, that round, and
        // the round that reports the loss, each a base RTT plus the full 1-BDP queue
        // the first flow keeps (2 base RTTs): 8 base RTTs from the flow's connect.
        out.push(Point::new(cc, "second flow: retransmissions, its first rounds (8 base RTTs)", value(paper, 0.5), lab(Some(first_rounds(8.0)))));
        out.push(Point::new(cc, "second flow: all retransmissions", Claim::None, lab(second.retrans.map(f64::from))));
    }
    out
}

/// The mobile links of S-Cubic §V-F: 3G and 4G from mahimahi traces (the paper's
/// own captures are not public), 5G a constant 180 Mbit/s (its measured mean).
fn mobile_link(c: &Ctx, net: &str, loss: &str) -> String {
    let loss = if loss == "0" { String::new() } else { format!("\nloss = \"{loss}\"") };
    match net {
        "3g" => format!("rtt = \"50ms\"\nbuffer = \"1280k\"\ntrace = \"{}\"\nuplink_trace = \"{}\"{loss}", c.trace("TMobile-UMTS-driving.down"), c.trace("TMobile-UMTS-driving.up")),
        "4g" => format!("rtt = \"50ms\"\nbuffer = \"5m\"\ntrace = \"{}\"\nuplink_trace = \"{}\"{loss}", c.trace("TMobile-LTE-short.down"), c.trace("TMobile-LTE-short.up")),
        _ => format!("{}{loss}", link("180mbit", "20ms", "10m")),
    }
}

fn sc_mobile_runs(c: &Ctx) -> Vec<Run> {
    let mut runs = Vec::new();
    for net in c.pick(&["4g", "5g"][..], &["3g", "4g", "5g"][..]) {
        for loss in ["0", "0.1%"] {
            // Side by side on two copies of the link (the same trace timeline): a trace's
            // capacity changes too much from one minute to the next for runs in turn.
            let wl = poisson(&["cubic", "s_cubic"], "256k", 0.3, c.pick(30, 150), "warm = true\nclients = 2\nparallel = true\nseed = 16");
            runs.push(run(format!("{net}-{}", if loss == "0" { "0" } else { "0.1" }), experiment("", &mobile_link(c, net, loss), &wl, "")));
        }
    }
    runs
}

fn sc_fig16(r: &Runs) -> Vec<Point> {
    let mut out = Vec::new();
    let imp = |label: &str| {
        let rows = r.rows(label);
        improvement(&of(&rows, "cubic", None), &of(&rows, "s_cubic", None))
    };
    for loss in ["0", "0.1"] {
        for net in ["3g", "4g", "5g"] {
            if !r.rows(&format!("{net}-{loss}")).is_empty() {
                out.push(Point::new(format!("loss {loss} %"), net, Claim::None, lab(imp(&format!("{net}-{loss}")))));
            }
        }
        // "S-Cubic's performance gains increase when going from 3G to 4G, and increase further in 5G."
        out.push(Point::new(format!("5G − 4G, loss {loss} %"), "gain difference", Claim::AtLeast { v: 0.0 }, lab(diff(imp(&format!("5g-{loss}")), imp(&format!("4g-{loss}"))))));
    }
    // "S-Cubic's performance gains are higher when 0.1% random loss is introduced."
    for net in ["3g", "4g", "5g"] {
        if !r.rows(&format!("{net}-0")).is_empty() {
            out.push(Point::new(format!("{net}: 0.1 % − 0 %"), "gain difference", Claim::AtLeast { v: 0.0 }, lab(diff(imp(&format!("{net}-0.1")), imp(&format!("{net}-0"))))));
        }
    }
    out
}

fn sc_table5(r: &Runs) -> Vec<Point> {
    // Table 5, average queueing delay (ms).
    let paper = [("3g", [194.0, 47.0, 175.0, 51.0]), ("4g", [30.0, 6.0, 42.0, 23.0]), ("5g", [3.0, 1.0, 5.0, 2.0])];
    let mut out = Vec::new();
    for (net, v) in paper {
        for (i, (cc, loss)) in [("cubic", "0"), ("cubic", "0.1"), ("s_cubic", "0"), ("s_cubic", "0.1")].iter().enumerate() {
            let rows = r.rows(&format!("{net}-{loss}"));
            if !rows.is_empty() {
                out.push(Point::new(format!("{cc} loss {loss} %"), net, printed(v[i], 0.5, 1.0), stat(&of(&rows, cc, None), queue)));
            }
        }
    }
    out
}

fn sc_fig17_runs(c: &Ctx) -> Vec<Run> {
    let scales = c.pick(&[20u32, 100, 200][..], &[20, 40, 60, 80, 100, 120, 140, 160, 180, 200][..]);
    let flows = c.pick(40, 300);
    let mut runs = vec![run("cubic", experiment("", &link("100mbit", "50ms", "1bdp"), &poisson(&["cubic"], "1024k", 0.27, flows, "warm = true\nclients = 4\nseed = 17"), ""))];
    for s in scales {
        let wl = poisson(&["s_cubic"], "1024k", 0.27, flows, "warm = true\nclients = 4\nseed = 17");
        runs.push(run(format!("err{}", *s as i64 - 100), experiment("", &link("100mbit", "50ms", "1bdp"), &wl, &format!("bw_scale_pct = {s}"))));
    }
    runs
}

fn sc_fig17(r: &Runs) -> Vec<Point> {
    let mut out = Vec::new();
    let cubic = r.rows("cubic");
    out.push(Point::new("mean FCT (s)", "cubic", Claim::None, lab(mean(&cubic, fct))));
    for e in [-80, -60, -40, -20, 0, 20, 40, 60, 80, 100] {
        let rows = r.rows(&format!("err{e}"));
        if rows.is_empty() {
            continue;
        }
        let x = format!("{e:+} %");
        // "retransmission kicks-in, rising to 2.3% at +100%"; "FCT ... 0.21 versus 0.19
        // at 100% versus 0% overestimation errors" (the text says ms; the figure's s).
        let fct_claim = match e {
            0 => value(0.19, 0.3),
            100 => value(0.21, 0.3),
            _ => Claim::None,
        };
        out.push(Point::new("mean FCT (s)", x.clone(), fct_claim, lab(mean(&rows, fct))));
        out.push(Point::new("retransmissions (%)", x.clone(), if e == 100 { value(2.3, 0.5) } else { Claim::None }, lab(retrans_pct(&rows))));
        out.push(Point::new("queueing delay (ms)", x, Claim::None, lab(mean(&rows, queue))));
    }
    out
}

// ---------------------------------------------------------------- HyStart (Computer Networks 2011)

fn hy_table3_runs(c: &Ctx) -> Vec<Run> {
    let ccs = c.pick(&["cubic:iw3", "cubic_ss:iw3"][..], &["cubic:iw3", "cubic_ss:iw3", "cubic", "cubic_ss"][..]);
    ["10mbit", "50mbit", "100mbit"]
        .iter()
        .map(|bw| run(*bw, experiment("", &link(bw, "120ms", "1bdp"), &sweep(ccs, &["10k", "100k", "1m", "10m"], c.pick(2, 10), false), "")))
        .collect()
}

fn hy_table3(r: &Runs) -> Vec<Point> {
    // Table 3: mean file completion time (s), 25 runs, RTT 120 ms.
    let paper: [(&str, &str, [f64; 4]); 6] = [
        ("HyStart", "10mbit", [0.4, 0.8, 1.85, 9.92]),
        ("HyStart", "50mbit", [0.4, 0.8, 1.5, 3.51]),
        ("HyStart", "100mbit", [0.4, 0.8, 1.5, 2.6]),
        ("SS", "10mbit", [0.4, 0.8, 2.04, 9.62]),
        ("SS", "50mbit", [0.4, 0.8, 1.5, 3.81]),
        ("SS", "100mbit", [0.4, 0.8, 1.5, 3.01]),
    ];
    let mut out = Vec::new();
    for (alg, bw, vals) in paper {
        let rows = r.rows(bw);
        for (s, v) in ["10k", "100k", "1m", "10m"].iter().zip(vals) {
            for iw in [":iw3", ""] {
                let cc = format!("{}{iw}", if alg == "SS" { "cubic_ss" } else { "cubic" });
                let these = of(&rows, &cc, Some(s));
                if !these.is_empty() {
                    let claim = if iw.is_empty() { Claim::None } else { value(v, 0.15) };
                    out.push(Point::new(format!("{alg} {bw} (IW{})", if iw.is_empty() { 10 } else { 3 }), *s, claim, stat(&these, fct)));
                }
            }
        }
    }
    out
}

fn hy_fig14_runs(c: &Ctx) -> Vec<Run> {
    let wl = sweep(&["cubic", "cubic_ss"], &["10k", "100k", "1m", "10m"], c.pick(2, 5), false);
    vec![
        run("droptail", experiment("", &link("10mbit", "120ms", "150k"), &wl, "")),
        run("red", experiment("", &format!("{}\naqm = \"red:20:80\"", link("10mbit", "120ms", "150k")), &wl, "")),
    ]
}

fn hy_fig14(r: &Runs) -> Vec<Point> {
    let mut out = Vec::new();
    let gap = |q: &str, s: &str| {
        let rows = r.rows(q);
        diff(mean(&of(&rows, "cubic_ss", Some(s)), fct), mean(&of(&rows, "cubic", Some(s)), fct))
    };
    for q in ["droptail", "red"] {
        let rows = r.rows(q);
        for (cc, name) in [("cubic", "HyStart"), ("cubic_ss", "SS")] {
            for s in ["10k", "100k", "1m", "10m"] {
                out.push(Point::new(format!("{name} {q}"), s, Claim::None, stat(&of(&rows, cc, Some(s)), fct)));
            }
        }
    }
    // "For large file sizes (10 and 100 Mbytes), HyStart significantly reduces file
    // completion times by more than one second when compared to SS with Drop-tail."
    out.push(Point::new("SS − HyStart FCT (s), drop-tail", "10m", Claim::AtLeast { v: 1.0 }, lab(gap("droptail", "10m"))));
    // "RED makes SS close to the completion of HyStart".
    out.push(Point::new("gap drop-tail − gap RED (s)", "10m", Claim::AtLeast { v: 0.0 }, lab(diff(gap("droptail", "10m"), gap("red", "10m")))));
    out
}

fn hy_fig9_runs(c: &Ctx) -> Vec<Run> {
    let (a, b) = c.pick(("150m", "100m"), ("400m", "300m"));
    [("hystart", "cubic"), ("ss", "cubic_ss")]
        .iter()
        .map(|(l, cc)| run(*l, experiment("sample = \"10ms\"", &link("100mbit", "106ms", "1bdp"), &competing(&[cc], &[("0s", a, 0), ("10s", b, 0)], "500ms"), "")))
        .collect()
}

fn hy_fig9(r: &Runs) -> Vec<Point> {
    let mut out = Vec::new();
    for (l, name) in [("hystart", "HyStart"), ("ss", "SS")] {
        let rows = r.rows(l);
        let Some(first) = rows.first() else { continue };
        // "the first flow finishes slow start at approximately packet 870 at which point,
        // cwnd reaches the BDP of the path" (BDP ≈ 883 packets).
        let exit_claim = if l == "hystart" { value(870.0, 0.25) } else { Claim::None };
        out.push(Point::new(name, "first flow: cwnd at slow-start exit", exit_claim, lab(first.ss_exit_cwnd.map(f64::from))));
        // SS: "a high burst of packets at around ten seconds and ... a high rate of loss".
        let retx_claim = if l == "ss" { Claim::AtLeast { v: 100.0 } } else { Claim::None };
        out.push(Point::new(name, "first flow: retransmissions", retx_claim, lab(first.retrans.map(f64::from))));
    }
    out
}

fn hy_fig15_runs(c: &Ctx) -> Vec<Run> {
    // Full: ~4 min per run at 100 Mbit/s, room for a convergence of two minutes.
    let (a, b) = c.pick(("600m", "450m"), ("1500m", "1200m"));
    let mut runs = Vec::new();
    for rtt in c.pick(&["120ms"][..], &["60ms", "120ms", "240ms"][..]) {
        for (l, cc) in [("hystart", "cubic"), ("ss", "cubic_ss")] {
            runs.push(run(format!("{l}-{rtt}"), experiment("", &link("100mbit", rtt, "1bdp"), &competing(&[cc], &[("0s", a, 0), ("30s", b, 0)], "500ms"), "")));
        }
    }
    runs
}

fn hy_fig15(r: &Runs) -> Vec<Point> {
    let mut out = Vec::new();
    for rtt in ["60ms", "120ms", "240ms"] {
        let mut t = Vec::new();
        for (l, name) in [("hystart", "HyStart"), ("ss", "SS")] {
            let label = format!("{l}-{rtt}");
            let start = r.rows(&label).get(1).map_or(30.0, |f| f.start_s);
            let v = convergence_s(&throughput(r, &label), 0, 1, start);
            if !r.rows(&label).is_empty() {
                out.push(Point::new(name, rtt, Claim::None, lab(v)));
            }
            t.push(v);
        }
        // "SS shows a slightly better convergence time than HyStart for 60 ms RTT while
        // HyStart shows a better convergence time for 120 ms RTT."
        let claim = match rtt {
            "60ms" => Claim::AtMost { v: 0.0 },
            "120ms" => Claim::AtLeast { v: 0.0 },
            _ => Claim::None,
        };
        if t.iter().any(Option::is_some) {
            out.push(Point::new("SS − HyStart (s)", rtt, claim, lab(diff(t[1], t[0]))));
        }
    }
    out
}

/// Flow `which`'s share (%) of what all flows delivered over [from, from + len) s.
fn share_pct(flows: &[Vec<(f64, f64)>], which: usize, from: f64, len: f64) -> Option<f64> {
    let sum = |f: &Vec<(f64, f64)>| f.iter().filter(|(t, _)| *t >= from && *t < from + len).map(|p| p.1).sum::<f64>();
    let total: f64 = flows.iter().map(sum).sum();
    let mine = sum(flows.get(which)?);
    (total > 0.0).then(|| mine / total * 100.0)
}

const HY_FIG16_REPS: u32 = 4;

/// HyStart §5.9: an SS flow, then a second flow 10 s later running SS or HyStart.
fn hy_fig16_runs(c: &Ctx) -> Vec<Run> {
    let mut runs = Vec::new();
    for rtt in ["60ms", "120ms"] {
        for rep in 1..=c.pick(1, HY_FIG16_REPS) {
            for (l, second) in [("ss", "cubic_ss"), ("hystart", "cubic")] {
                let wl = competing(&["cubic_ss", second], &[("0s", "400m", 0), ("10s", "150m", 1)], "500ms");
                runs.push(run(format!("{l}-{rtt}-{rep}"), experiment("", &link("100mbit", rtt, "1bdp"), &wl, "")));
            }
        }
    }
    runs
}

fn hy_fig16(r: &Runs) -> Vec<Point> {
    let mut out = Vec::new();
    for rtt in ["60ms", "120ms"] {
        let mut shares = Vec::new();
        for (l, name) in [("ss", "SS"), ("hystart", "HyStart")] {
            // The second flow's share of the link over its first 20 s.
            let v: Vec<f64> = (1..=HY_FIG16_REPS)
                .filter_map(|rep| {
                    let label = format!("{l}-{rtt}-{rep}");
                    let start = r.rows(&label).get(1)?.start_s;
                    share_pct(&throughput(r, &label), 1, start, 20.0)
                })
                .collect();
            if v.is_empty() {
                continue;
            }
            let st = mean_spread(&v);
            shares.push(st);
            out.push(Point::new(format!("second flow ({name}): share of the link, its first 20 s (%)"), rtt, Claim::None, st));
        }
        // "The throughput share of the second TCP flow running HyStart grabs less
        // bandwidth from the first TCP flow running SS."
        if let [ss, hy] = shares[..] {
            out.push(Point::new("HyStart − SS share (points)", rtt, Claim::AtMost { v: 0.0 }, diff_spread(hy, ss)));
        }
    }
    out
}

fn hy_fig17_runs(c: &Ctx) -> Vec<Run> {
    let (a, b) = c.pick(("250m", "150m"), ("700m", "500m"));
    let mut runs = Vec::new();
    for (tag, fwd_over_rev) in c.pick(&[("1:3", 1.0 / 3.0), ("3:1", 3.0)][..], &[("1:3", 1.0 / 3.0), ("1:2", 0.5), ("1:1", 1.0), ("2:1", 2.0), ("3:1", 3.0)][..]) {
        // Forward (data) and reverse (ACK) one-way delays in this ratio, summing to 120 ms.
        let up_ms = 120.0 / (1.0 + fwd_over_rev);
        let l = format!("{}\nuplink_delay = \"{up_ms:.1}ms\"", link("100mbit", "120ms", "1bdp"));
        for (n, cc) in [("hystart", "cubic"), ("ss", "cubic_ss")] {
            runs.push(run(format!("{n}-{}", tag.replace(':', "to")), experiment("", &l, &competing(&[cc], &[("0s", a, 0), ("10s", b, 0)], "500ms"), "")));
        }
    }
    runs
}

fn hy_fig17(r: &Runs) -> Vec<Point> {
    let mut out = Vec::new();
    for tag in ["1to3", "1to2", "1to1", "2to1", "3to1"] {
        let mut u = Vec::new();
        for (n, name) in [("hystart", "HyStart"), ("ss", "SS")] {
            let label = format!("{n}-{tag}");
            if r.rows(&label).is_empty() {
                continue;
            }
            let v = utilization_pct(&throughput(r, &label), 20.0, 100.0);
            out.push(Point::new(format!("{name} utilization, first 20 s (%)"), tag.replace("to", ":"), Claim::None, lab(v)));
            u.push(v);
        }
        // "HyStart achieves a good start-up throughput even in the networks with high
        // asymmetry in bandwidth and delay": read as no worse than SS.
        if u.len() == 2 {
            out.push(Point::new("HyStart − SS (points)", tag.replace("to", ":"), Claim::AtLeast { v: 0.0 }, lab(diff(u[0], u[1]))));
        }
    }
    out
}

fn hy_fig23_runs(c: &Ctx) -> Vec<Run> {
    let l = format!("{}\nuplink_rate = \"384kbit\"\njitter = \"20ms\"", link("10mbit", "40ms", "1bdp"));
    vec![run("cable", experiment("", &l, &sweep(&["cubic", "cubic_ss"], &["10k", "100k", "1m", "10m"], c.pick(2, 10), false), ""))]
}

fn hy_fig23(r: &Runs) -> Vec<Point> {
    let rows = r.rows("cable");
    let mut out = Vec::new();
    for s in ["10k", "100k", "1m", "10m"] {
        let (h, ss) = (mean(&of(&rows, "cubic", Some(s)), fct), mean(&of(&rows, "cubic_ss", Some(s)), fct));
        // "For short-to-medium file sizes (10 Kbytes to 1 Mbyte), HyStart and SS show no
        // difference. For the file size of 10 Mbytes, HyStart shows slightly longer completion times".
        let claim = if s == "10m" { Claim::AtLeast { v: 1.0 } } else { value(1.0, 0.1) };
        out.push(Point::new("FCT HyStart / SS", s, claim, lab(h.zip(ss).map(|(a, b)| a / b))));
    }
    out
}

// ---------------------------------------------------------------- SUSS (SIGCOMM 2024)

fn suss_fig10_runs(c: &Ctx) -> Vec<Run> {
    let size = c.pick("20m", "60m");
    ["cubic", "suss"]
        .iter()
        .map(|cc| run(*cc, experiment("", &link("66mbit", "230ms", "1bdp"), &competing(&[cc], &[("0s", size, 0)], "100ms"), "")))
        .collect()
}

fn delivered_mb(r: &Runs, label: &str, within_s: f64) -> Option<f64> {
    let start = r.rows(label).first()?.start_s;
    let flows = throughput(r, label);
    let f = flows.first()?;
    let bin = f.get(1).map_or(0.1, |p| p.0 - f[0].0);
    Some(f.iter().filter(|(t, _)| *t >= start && *t < start + within_s).map(|(_, m)| m * bin / 8.0).sum())
}

fn suss_fig10(r: &Runs) -> Vec<Point> {
    // "two seconds after the connection is established, CUBIC without SUSS delivers 2 MB,
    // whereas CUBIC with SUSS delivers three times more".
    let (c, s) = (delivered_mb(r, "cubic", 2.0), delivered_mb(r, "suss", 2.0));
    vec![
        Point::new("delivered in 2 s (MB)", "cubic", value(2.0, 0.3), lab(c)),
        Point::new("delivered in 2 s (MB)", "suss", value(6.0, 0.3), lab(s)),
        Point::new("suss / cubic", "ratio", value(3.0, 0.3), lab(s.zip(c).map(|(a, b)| a / b))),
    ]
}

fn suss_fig12_runs(c: &Ctx) -> Vec<Run> {
    let sizes = c.pick(&["256k", "1m", "2m", "8m"][..], &["128k", "256k", "512k", "1m", "2m", "4m", "8m", "16m"][..]);
    let mut runs = vec![run("wired", experiment("", &link("100mbit", "250ms", "1bdp"), &sweep(&["cubic", "suss"], sizes, c.pick(2, 10), false), ""))];
    if !c.quick {
        let l = format!("rtt = \"160ms\"\nbuffer = \"5m\"\ntrace = \"{}\"\nuplink_trace = \"{}\"", c.trace("TMobile-LTE-short.down"), c.trace("TMobile-LTE-short.up"));
        runs.push(run("4g", experiment("", &l, &sweep(&["cubic", "suss"], sizes, 10, false), "")));
    }
    runs
}

fn suss_fig12(r: &Runs) -> Vec<Point> {
    let mut out = Vec::new();
    for path in ["wired", "4g"] {
        let rows = r.rows(path);
        for s in ["128k", "256k", "512k", "1m", "2m", "4m", "8m", "16m"] {
            let (b, n) = (of(&rows, "cubic", Some(s)), of(&rows, "suss", Some(s)));
            if b.is_empty() {
                continue;
            }
            // "when the flow size is not larger than 2 MB, more than 20% improvement in FCT".
            let claim = if size_bytes(s) <= 2 << 20 { Claim::AtLeast { v: 20.0 } } else { Claim::None };
            out.push(Point::new(format!("FCT improvement, {path} (%)"), s, claim, lab(improvement(&b, &n))));
        }
    }
    out
}

fn suss_table1_runs(c: &Ctx) -> Vec<Run> {
    let smalls = c.pick(6, 12);
    let large = c.pick("100m", "170m");
    let mut runs = Vec::new();
    for l in c.pick(&[50u32, 200][..], &[25, 50, 100, 200][..]) {
        // The large flow from client 0 at its own RTT; the small flows from clients of
        // 25/50/100/200 ms in turn, one every 2 s; one BDP of the large flow's path.
        let mut rtts = vec![format!("\"{l}ms\"")];
        let mut flows = vec![("0s".to_string(), large.to_string(), 0usize)];
        for i in 0..smalls {
            rtts.push(format!("\"{}ms\"", [25, 50, 100, 200][i % 4]));
            flows.push((format!("{}s", 2 * (i + 1)), "2m".into(), 1));
        }
        let lk = format!("{}\nclient_rtts = [{}]", link("50mbit", "25ms", &format!("{}k", 50_000 / 8 * l / 1000)), rtts.join(", "));
        let fl: Vec<(&str, &str, usize)> = flows.iter().map(|(a, b, c)| (a.as_str(), b.as_str(), *c)).collect();
        for small in ["cubic", "suss"] {
            runs.push(run(format!("{small}-{l}ms"), experiment("", &lk, &competing(&["cubic", small], &fl, "500ms"), "")));
        }
    }
    runs
}

/// The competing run's flows after the first (the small ones).
fn small<'a>(rows: &[&'a FlowRow]) -> Vec<&'a FlowRow> {
    rows.iter().skip(1).copied().collect()
}

fn suss_table1(r: &Runs) -> Vec<Point> {
    // Table 1(a), the large flow CUBIC: FCT (s) of the large flow and of the small
    // flows, SUSS off then on, and the small flows' improvement.
    let paper = [(25, [30.4, 1.33, 31.2, 0.94, 29.0]), (50, [37.9, 1.18, 35.6, 0.98, 17.0]), (100, [29.0, 1.42, 28.5, 1.22, 14.0]), (200, [27.2, 2.69, 26.9, 2.03, 25.0])];
    let mut out = Vec::new();
    for (l, v) in paper {
        let (off, on) = (r.rows(&format!("cubic-{l}ms")), r.rows(&format!("suss-{l}ms")));
        if off.is_empty() {
            continue;
        }
        let x = format!("large flow {l} ms");
        out.push(Point::new("large flow FCT (s), SUSS off", x.clone(), value(v[0], 0.3), lab(off.first().and_then(|f| f.fct_s))));
        out.push(Point::new("large flow FCT (s), SUSS on", x.clone(), value(v[2], 0.3), lab(on.first().and_then(|f| f.fct_s))));
        out.push(Point::new("small flows FCT (s), SUSS off", x.clone(), value(v[1], 0.3), stat(&small(&off), fct)));
        out.push(Point::new("small flows FCT (s), SUSS on", x.clone(), value(v[3], 0.3), stat(&small(&on), fct)));
        out.push(Point::new("small flows' improvement (%)", x, value(v[4], 0.5), lab(improvement(&small(&off), &small(&on)))));
    }
    out
}

/// SUSS §1 (Fig. 2) and §6.4: four long flows from their own clients 2 s apart, a fifth
/// joining at `JOIN_AT`: (the four's controller, the fifth's). The paper starts the
/// fifth after 60 s; 10 s after the fourth keeps a run near a minute. The four carry
/// enough to outlast the measured window whatever their shares (at 16 s the first has
/// sent up to ~60 MB at 50 Mbit/s).
fn five_flows(four: &str, fifth: &str) -> String {
    let at = format!("{JOIN_AT}s");
    competing(&[four, fifth], &[("0s", "100m", 0), ("2s", "100m", 0), ("4s", "100m", 0), ("6s", "100m", 0), (at.as_str(), "24m", 1)], "500ms")
}
const JOIN_AT: u32 = 16;
/// How long after the fifth flow joins its fairness is measured, in seconds.
const JOIN_WINDOW: f64 = 15.0;

/// After the fifth flow joins, over the `JOIN_WINDOW`: the mean of the lab's per-bin
/// Jain's index of the flows running (the paper's F), the fifth's rate over the mean
/// rate of the others running (1: a fair split; the four rarely split fairly among
/// themselves 10 s after the last of them starts: the first keeps most of the link),
/// and the seconds until the fifth's rate, averaged over 1 s, first reaches 80 % of a
/// fair share of `capacity_mbps`.
struct Joined {
    jain: Option<f64>,
    fifth_vs_others: Option<f64>,
    to_share_s: Option<f64>,
}

fn joined(r: &Runs, label: &str, capacity_mbps: f64) -> Joined {
    let none = Joined { jain: None, fifth_vs_others: None, to_share_s: None };
    let rows = r.rows(label);
    let flows = throughput(r, label);
    let (Some(fifth), Some(series)) = (rows.get(4), flows.get(4)) else { return none };
    let join = fifth.start_s;
    let in_window = |t: f64| t >= join && t < join + JOIN_WINDOW;
    let jain: Vec<f64> = r
        .csv(label, report::THROUGHPUT_CSV)
        .iter()
        .filter(|p| p[1] == "0" && in_window(crate::plot::num(&p[0])))
        .map(|p| crate::plot::num(&p[4]))
        .filter(|j| j.is_finite())
        .collect();
    let rel: Vec<f64> = (0..series.len())
        .filter(|&i| in_window(series[i].0))
        .filter_map(|i| {
            let others: Vec<f64> = flows[..4].iter().filter_map(|f| f.get(i).map(|p| p.1)).filter(|m| *m > 0.0).collect();
            (!others.is_empty()).then(|| series[i].1 / (others.iter().sum::<f64>() / others.len() as f64))
        })
        .collect();
    let fair = capacity_mbps / flows.len() as f64;
    let to_share_s = first_second_where(series, series.len(), join, |i, w| series[i..i + w].iter().map(|p| p.1).sum::<f64>() / w as f64 >= 0.8 * fair);
    Joined { jain: mean_spread(&jain).0, fifth_vs_others: mean_spread(&rel).0, to_share_s }
}

const SUSS_FIG2_REPS: u32 = 3;

fn suss_fig2_runs(c: &Ctx) -> Vec<Run> {
    let mut runs = Vec::new();
    for rep in 1..=c.pick(1, SUSS_FIG2_REPS) {
        // (a) Cubic, (b) BBR, and headstart's answer: a SUSS fifth among Cubic flows.
        for (l, four, fifth) in [("cubic", "cubic", "cubic"), ("bbr", "bbr", "bbr"), ("suss", "cubic", "suss")] {
            runs.push(run(format!("{l}-{rep}"), experiment("", &link("50mbit", "100ms", "1bdp"), &five_flows(four, fifth), "")));
        }
    }
    runs
}

fn suss_fig2(r: &Runs) -> Vec<Point> {
    let mut out = Vec::new();
    let mut share = Vec::new();
    for (l, name) in [("cubic", "CUBIC"), ("bbr", "BBR"), ("suss", "CUBIC, a SUSS fifth")] {
        let got: Vec<Joined> = (1..=SUSS_FIG2_REPS).map(|rep| format!("{l}-{rep}")).filter(|x| !r.rows(x).is_empty()).map(|x| joined(r, &x, 50.0)).collect();
        let st = |f: fn(&Joined) -> Option<f64>| mean_spread(&got.iter().filter_map(f).collect::<Vec<_>>());
        share.push(st(|g| g.fifth_vs_others));
        if got.is_empty() {
            continue;
        }
        let window = format!("{JOIN_WINDOW:.0} s after the fifth joins");
        out.push(Point::new(name, format!("fifth flow's rate / the others' mean, {window}"), Claim::None, st(|g| g.fifth_vs_others)));
        out.push(Point::new(name, format!("Jain's index, {window}"), Claim::None, st(|g| g.jain)));
        out.push(Point::new(name, "fifth flow: s to 80 % of a fair share", Claim::None, st(|g| g.to_share_s)));
    }
    // Fig. 2: CUBIC's new flow leaves "prolonged unfairness", BBR's reaches its cwnd*
    // after a delay; §3: SUSS "even improves fairness when a new flow is initiated in a
    // congested environment, similar to the example shown in Fig. 2". The four flows
    // here had 10 s, not 60, to share among themselves: the fifth's rate against
    // theirs is the comparison, Jain's index of all running is shown beside it.
    out.push(Point::new("BBR − CUBIC (fifth's share)", "after the fifth joins", Claim::AtLeast { v: 0.0 }, diff_spread(share[1], share[0])));
    out.push(Point::new("SUSS − CUBIC (fifth's share)", "after the fifth joins", Claim::AtLeast { v: 0.0 }, diff_spread(share[2], share[0])));
    out
}

const SUSS_FIG15_RTTS: [&str; 4] = ["25ms", "50ms", "100ms", "200ms"];
const SUSS_FIG15_BUFFERS: [&str; 3] = ["1bdp", "1.5bdp", "2bdp"];

fn suss_fig15_runs(c: &Ctx) -> Vec<Run> {
    let mut runs = Vec::new();
    // Quick: the cell where the paper's effect is largest (a long RTT, a deep buffer).
    for rtt in c.pick(&["100ms"][..], &SUSS_FIG15_RTTS[..]) {
        for buf in c.pick(&["2bdp"][..], &SUSS_FIG15_BUFFERS[..]) {
            for (l, fifth) in [("off", "cubic"), ("on", "suss")] {
                runs.push(run(format!("{l}-{rtt}-{buf}"), experiment("", &link("50mbit", rtt, buf), &five_flows("cubic", fifth), "")));
            }
        }
    }
    runs
}

fn suss_fig15(r: &Runs) -> Vec<Point> {
    let mut out = Vec::new();
    for buf in SUSS_FIG15_BUFFERS {
        for rtt in SUSS_FIG15_RTTS {
            let (off, on) = (format!("off-{rtt}-{buf}"), format!("on-{rtt}-{buf}"));
            if r.rows(&off).is_empty() {
                continue;
            }
            let x = format!("{rtt}, {buf}");
            let (a, b) = (joined(r, &off, 50.0), joined(r, &on, 50.0));
            out.push(Point::new("Jain's index after the fifth joins, SUSS off", x.clone(), Claim::None, lab(a.jain)));
            out.push(Point::new("Jain's index after the fifth joins, SUSS on", x.clone(), Claim::None, lab(b.jain)));
            out.push(Point::new("fifth flow's rate / the others' mean, SUSS off", x.clone(), Claim::None, lab(a.fifth_vs_others)));
            out.push(Point::new("fifth flow's rate / the others' mean, SUSS on", x.clone(), Claim::None, lab(b.fifth_vs_others)));
            // "the initiation of the fifth flow results in an immediate decrease in the
            // value of F, exhibiting a prolonged delay in approaching 1 when SUSS is off".
            out.push(Point::new("SUSS on − off (Jain's index)", x, Claim::AtLeast { v: 0.0 }, lab(diff(b.jain, a.jain))));
        }
    }
    out
}

// ---------------------------------------------------------------- Stateful-BBR (2023)

const SBBR_CC: [&str; 4] = ["bbr", "s_bbr", "cubic", "s_cubic"];

fn sbbr_runs(c: &Ctx, loss: &str) -> Vec<Run> {
    let l = format!("{}\nloss = \"{loss}\"", link("180mbit", "20ms", "10m"));
    c.pick(&["64k", "1024k"][..], &POISSON_MEANS[..])
        .iter()
        .map(|m| run(format!("mean{m}"), experiment("", &l, &poisson(&SBBR_CC, m, 0.1, c.pick(40, 300), "warm = true\nclients = 4\nseed = 23"), "")))
        .collect()
}

fn sbbr_table(r: &Runs, paper: &[(&str, [f64; 4])], f: fn(&FlowRow) -> Option<f64>, tol: f64, step: f64) -> Vec<Point> {
    let mut out = Vec::new();
    for (cc, vals) in paper {
        for (m, v) in POISSON_MEANS.iter().zip(vals) {
            let rows = r.rows(&format!("mean{m}"));
            if !rows.is_empty() {
                out.push(Point::new(*cc, format!("mean {m}"), printed(*v, tol, step), stat(&of(&rows, cc, None), f)));
            }
        }
    }
    out
}

fn tput(r: &FlowRow) -> Option<f64> {
    r.throughput_mbps
}

fn sbbr_table2(r: &Runs) -> Vec<Point> {
    sbbr_table(r, &[("bbr", [4.5, 7.5, 20.5, 32.8]), ("s_bbr", [9.0, 15.3, 39.7, 59.3]), ("cubic", [4.5, 7.0, 14.3, 18.2]), ("s_cubic", [7.8, 13.0, 32.8, 48.8])], tput, 0.3, 0.1)
}
fn sbbr_table3(r: &Runs) -> Vec<Point> {
    sbbr_table(r, &[("bbr", [4.5, 7.2, 18.9, 30.1]), ("s_bbr", [8.1, 13.7, 35.3, 52.9]), ("cubic", [4.1, 6.1, 10.3, 11.3]), ("s_cubic", [5.5, 9.0, 22.3, 30.6])], tput, 0.3, 0.1)
}
fn sbbr_table4(r: &Runs) -> Vec<Point> {
    sbbr_table(r, &[("bbr", [1.0, 1.0, 6.0, 10.0]), ("s_bbr", [1.0, 1.0, 5.0, 10.0]), ("cubic", [1.0, 1.0, 1.0, 1.0]), ("s_cubic", [1.0, 1.0, 1.0, 1.0])], queue, 0.5, 1.0)
}
fn sbbr_table5(r: &Runs) -> Vec<Point> {
    sbbr_table(r, &[("bbr", [1.0, 1.0, 5.0, 9.0]), ("s_bbr", [1.0, 1.0, 5.0, 8.0]), ("cubic", [0.0, 0.0, 0.0, 0.0]), ("s_cubic", [1.0, 1.0, 0.0, 0.0])], queue, 0.5, 1.0)
}

const SBBR_LOSSES: [(&str, &str); 2] = [("loss0.1", "0.1%"), ("loss1", "1%")];

/// Fig. 4 pools the flows of Tables II and III's four mean sizes: the same runs.
fn sbbr_fig4_runs(c: &Ctx) -> Vec<Run> {
    SBBR_LOSSES.iter().flat_map(|(tag, loss)| sbbr_runs(c, loss).into_iter().map(move |r| run(format!("{tag}-{}", r.label), r.toml))).collect()
}

fn sbbr_fig4_tput(r: &Runs, tag: &str, cc: &str) -> Vec<f64> {
    POISSON_MEANS.iter().flat_map(|m| r.rows(&format!("{tag}-mean{m}")).into_iter().filter(|f| f.cc == cc).filter_map(tput).collect::<Vec<_>>()).collect()
}

fn sbbr_fig4(r: &Runs) -> Vec<Point> {
    let mut out = Vec::new();
    for (tag, loss) in SBBR_LOSSES {
        let mut med = std::collections::HashMap::new();
        for cc in SBBR_CC {
            let mut v = sbbr_fig4_tput(r, tag, cc);
            if v.is_empty() {
                continue;
            }
            let m = crate::metrics::median(&mut v);
            med.insert(cc, m);
            out.push(Point::new(format!("{} loss: median per-flow throughput (Mbit/s)", loss.replace('%', " %")), cc, Claim::None, lab(Some(m))));
        }
        // "Their stateful counterparts ... achieved noticeably higher throughput in both
        // random loss settings. Compared to S-Cubic ..., S-BBR generally achieved higher
        // throughput".
        let ratio = |a: &str, b: &str| Some(med.get(a)? / med.get(b)?);
        let loss = loss.replace('%', " %");
        out.push(Point::new(format!("{loss} loss: median ratio"), "s_bbr / bbr", Claim::AtLeast { v: 1.0 }, lab(ratio("s_bbr", "bbr"))));
        out.push(Point::new(format!("{loss} loss: median ratio"), "s_bbr / s_cubic", Claim::AtLeast { v: 1.0 }, lab(ratio("s_bbr", "s_cubic"))));
    }
    out
}

/// Fig. 4's form: the CDF of every flow's mean throughput, per controller and loss.
fn sbbr_fig4_figure(r: &Runs, path: &std::path::Path) -> anyhow::Result<()> {
    let series: Vec<(String, Vec<f64>)> = SBBR_LOSSES.iter().flat_map(|(tag, loss)| SBBR_CC.iter().map(move |cc| (format!("{cc}, {loss}"), sbbr_fig4_tput(r, tag, cc)))).filter(|s| !s.1.is_empty()).collect();
    crate::plot::cdf_plot(path, "Stateful-BBR Fig. 4 — per-flow mean throughput, 5G stand-in (lab)", "throughput (Mbit/s, bytes / FCT)", &series, true)
}

const SC_DEPARTS: &str = "Linux 6.18 sender and receiver (the paper: 5.3); s_cubic is headstart's (GCBE, Careful Resume, the window override), not the authors' module.";
const MOBILE_DEPARTS: &str = "3G and 4G are mahimahi's T-Mobile UMTS and LTE recordings (2 and 17 Mbit/s; the paper's own captures, ~5 and ~20 Mbit/s, are not public); 5G a constant 180 Mbit/s (its measured mean), 20 ms, 10 MB; Poisson flows (mean 256 KB, 30 % load) with the two controllers side by side on copies of the link.";
const HY_DEPARTS: &str = "the kernel's Cubic with HyStart (6.18, its delay and ACK-train tests) against cubic_ss, the same with HyStart off for the flow; the paper's senders were TCP-SACK on Linux 2.6.23.";
const SBBR_DEPARTS: &str = "BBRv1 only (the kernel's; no BBRv2); a constant 180 Mbit/s stands in for the paper's 5G trace; Poisson arrivals at 10 % load stand in for its flow generator.";

pub static ALL: &[Reproduction] = &[
    Reproduction { id: "s-cubic-fig2", source: "S-Cubic Fig. 2", title: "Cubic's FCT efficiency vs flow size, RTT 10/50/100 ms", quantity: "Ω", runs: sc_fig2_runs, compare: sc_fig2, departs: SC_DEPARTS, figure: None },
    Reproduction { id: "s-cubic-fig3", source: "S-Cubic Fig. 3", title: "Jump-Start, TCP-Cache and Cache+ against Cubic, Windows 10 receiver window", quantity: "Ω", runs: sc_fig3_runs, compare: sc_fig3, departs: "a Linux receiver with initrwnd 179 stands in for Windows 10 (Table 1); Jump-Start, Cache and Cache+ are lab/bpf/lab_starts.bpf.c.", figure: None },
    Reproduction { id: "s-cubic-fig4", source: "S-Cubic Fig. 4", title: "Cache+'s unpaced jump overflows the bottleneck", quantity: "count / Ω", runs: sc_fig4_runs, compare: sc_fig4, departs: "Cache+ as lab/bpf/lab_starts.bpf.c; s_cubic beside it for contrast.", figure: None },
    Reproduction { id: "s-cubic-fig6", source: "S-Cubic Fig. 6", title: "bandwidth estimates vs flow size (BBR, GCBE)", quantity: "Mbit/s", runs: sc_fig6_runs, compare: sc_fig6, departs: "the kernel has no Westwood; BBR's estimate is TCP_CC_INFO at the flow's end, GCBE's the entry s_cubic stored.", figure: None },
    Reproduction { id: "s-cubic-fig8", source: "S-Cubic Fig. 8 (§V-A)", title: "S-Cubic's mean FCT efficiency, 1 BDP", quantity: "Ω", runs: sc_fig8_runs, compare: sc_fig8, departs: SC_DEPARTS, figure: None },
    Reproduction { id: "s-cubic-table3", source: "S-Cubic Table 3", title: "per-flow mean queueing delay, Cubic and S-Cubic", quantity: "ms", runs: sc_table3_runs, compare: sc_table3, departs: SC_DEPARTS, figure: None },
    Reproduction { id: "s-cubic-fig9", source: "S-Cubic Fig. 9", title: "per-packet queueing delay of an 8.2 MB flow", quantity: "ms", runs: sc_fig9_runs, compare: sc_fig9, departs: SC_DEPARTS, figure: None },
    Reproduction { id: "s-cubic-fig10", source: "S-Cubic Fig. 10", title: "FCT improvement over Cubic at 12/27/63 % utilization", quantity: "%", runs: sc_fig10_runs, compare: sc_fig10, departs: "4 clients with a warm-up flow each; fewer flows than the paper's 1,000 per point.", figure: None },
    Reproduction { id: "s-cubic-fig11", source: "S-Cubic Fig. 11", title: "overlapping flows in the bottleneck, Cubic and S-Cubic (s-cubic-fig10's runs)", quantity: "flows", runs: sc_fig10_runs, compare: sc_fig11, departs: "s-cubic-fig10's runs: the controllers one after the other on the link, 4 clients with a warm-up flow each; a flow's overlaps are the other flows of its controller in flight at some time during it.", figure: Some(sc_fig11_figure) },
    Reproduction { id: "s-cubic-fig12", source: "S-Cubic Fig. 12 (§V-D)", title: "Cubic's FCT beside S-Cubic on a shared bottleneck", quantity: "% FCT increase", runs: sc_fig12_runs, compare: sc_fig12, departs: "one Poisson process split between the controllers' clients (mixed) against the same with Cubic on both.", figure: None },
    Reproduction { id: "s-cubic-fig13", source: "S-Cubic Fig. 13", title: "a second long flow 5 s after the first: convergence", quantity: "s", runs: sc_fig13_runs, compare: sc_fig13, departs: "a 1 MB flow from the second flow's client primes its entry (the paper used 8 KB; headstart stores nothing from so small a flow); the flows start at 2 s and 7 s, each run from an empty table.", figure: None },
    Reproduction { id: "s-cubic-fig14", source: "S-Cubic Fig. 14", title: "retransmissions per RTT of two competing flows", quantity: "segments", runs: sc_fig14_runs, compare: sc_fig14, departs: "as s-cubic-fig13; retransmissions counted where they reach the bottleneck.", figure: None },
    Reproduction { id: "s-cubic-fig16", source: "S-Cubic Fig. 16", title: "FCT improvement in 3G/4G/5G, 0 and 0.1 % loss", quantity: "%", runs: sc_mobile_runs, compare: sc_fig16, departs: MOBILE_DEPARTS, figure: None },
    Reproduction { id: "s-cubic-table5", source: "S-Cubic Table 5", title: "queueing delay in 3G/4G/5G, Cubic and S-Cubic", quantity: "ms", runs: sc_mobile_runs, compare: sc_table5, departs: MOBILE_DEPARTS, figure: None },
    Reproduction { id: "s-cubic-fig17", source: "S-Cubic Fig. 17", title: "impact of a bandwidth estimate off by −80 … +100 %", quantity: "s / % / ms", runs: sc_fig17_runs, compare: sc_fig17, departs: "the error is the lab knob bw_scale_pct on the stored estimate; 27 % utilization (the paper does not say).", figure: None },
    Reproduction { id: "hystart-table3", source: "HyStart Table 3 (§5.7)", title: "file completion time, HyStart vs standard slow start, 10–100 Mbit/s", quantity: "s", runs: hy_table3_runs, compare: hy_table3, departs: HY_DEPARTS, figure: None },
    Reproduction { id: "hystart-fig9", source: "HyStart Fig. 9 (§5.2)", title: "two flows, 100 Mbit/s, 106 ms: where slow start ends", quantity: "packets", runs: hy_fig9_runs, compare: hy_fig9, departs: HY_DEPARTS, figure: None },
    Reproduction { id: "hystart-fig14", source: "HyStart Fig. 14 (§5.6)", title: "RED against drop-tail, 10 Mbit/s, 120 ms", quantity: "s", runs: hy_fig14_runs, compare: hy_fig14, departs: HY_DEPARTS, figure: None },
    Reproduction { id: "hystart-fig15", source: "HyStart Fig. 15 (§5.8)", title: "convergence of a second flow, HyStart vs SS", quantity: "s", runs: hy_fig15_runs, compare: hy_fig15, departs: "the second flow 30 s after the first (the paper: 10 s and 40 s), runs of ~1–4 min, not 600 s.", figure: None },
    Reproduction { id: "hystart-fig16", source: "HyStart Fig. 16 (§5.9)", title: "an SS flow's share beside a second flow running SS or HyStart", quantity: "%", runs: hy_fig16_runs, compare: hy_fig16, departs: "the second flow 10 s after the first, its share over its first 20 s; 4 runs per cell (the paper: more than 25), 1 in --quick.", figure: None },
    Reproduction { id: "hystart-fig17", source: "HyStart Fig. 17(a) (§5.10)", title: "delay asymmetry 1:3 … 3:1, two flows", quantity: "%", runs: hy_fig17_runs, compare: hy_fig17, departs: "100 Mbit/s (the paper: 400, more than 2 vCPUs emulate), no background traffic, flows at 0 and 10 s measured over 20 s.", figure: None },
    Reproduction { id: "hystart-fig23", source: "HyStart Fig. 23 (§6.3)", title: "a cable link: 10 Mbit/s down, 384 kbit/s up, jittery RTT", quantity: "ratio", runs: hy_fig23_runs, compare: hy_fig23, departs: "an emulated cable link (40 ms, up to 20 ms jitter) stands in for the paper's real cable network.", figure: None },
    Reproduction { id: "suss-fig2", source: "SUSS Fig. 2 (§1)", title: "a fifth flow joining four: CUBIC, BBR, and a SUSS fifth among CUBIC flows", quantity: "s / Jain's index", runs: suss_fig2_runs, compare: suss_fig2, departs: "50 Mbit/s, 100 ms, 1 BDP (the paper does not give Fig. 2's path); the fifth joins 10 s after the fourth (the paper: 60 s); 3 runs each, 1 in --quick.", figure: None },
    Reproduction { id: "suss-fig10", source: "SUSS Fig. 10 (§6.2)", title: "data delivered in the first 2 s with and without SUSS", quantity: "MB", runs: suss_fig10_runs, compare: suss_fig10, departs: "an emulated 66 Mbit/s, 230 ms path (cwnd* ≈ 1,300 packets, as the paper's) stands in for its 4G phone in New Zealand and a server in the US.", figure: None },
    Reproduction { id: "suss-fig12", source: "SUSS Fig. 12 (§6.2)", title: "FCT improvement of SUSS vs flow size", quantity: "%", runs: suss_fig12_runs, compare: suss_fig12, departs: "emulated paths (100 Mbit/s at 250 ms; full runs add a 4G trace at 160 ms) stand in for Tokyo–Sweden and Tokyo–New Zealand over the Internet.", figure: None },
    Reproduction { id: "suss-table1", source: "SUSS Table 1(a) (§6.5)", title: "small flows beside a large Cubic flow, SUSS off and on", quantity: "s / %", runs: suss_table1_runs, compare: suss_table1, departs: "a 50 Mbit/s bottleneck (the paper does not give it; its Fig. 15 testbed is 50 Mbit/s); small flows' RTTs 25/50/100/200 ms in turn.", figure: None },
    Reproduction { id: "suss-fig15", source: "SUSS Fig. 15 (§6.4)", title: "Jain's index after a fifth flow joins four CUBIC flows, SUSS off and on", quantity: "Jain's index", runs: suss_fig15_runs, compare: suss_fig15, departs: "the fifth joins 10 s after the fourth (the paper: 60 s, when the four share fairly; here the first still holds most of the link) and F is its mean over the next 15 s; one run per cell; --quick runs 100 ms at 2 BDP.", figure: None },
    Reproduction { id: "s-bbr-table2", source: "Stateful-BBR Table II", title: "throughput in an emulated 5G network, 0.1 % loss", quantity: "Mbit/s", runs: |c| sbbr_runs(c, "0.1%"), compare: sbbr_table2, departs: SBBR_DEPARTS, figure: None },
    Reproduction { id: "s-bbr-table3", source: "Stateful-BBR Table III", title: "throughput in an emulated 5G network, 1 % loss", quantity: "Mbit/s", runs: |c| sbbr_runs(c, "1%"), compare: sbbr_table3, departs: SBBR_DEPARTS, figure: None },
    Reproduction { id: "s-bbr-table4", source: "Stateful-BBR Table IV", title: "queueing delay in an emulated 5G network, 0.1 % loss", quantity: "ms", runs: |c| sbbr_runs(c, "0.1%"), compare: sbbr_table4, departs: SBBR_DEPARTS, figure: None },
    Reproduction { id: "s-bbr-table5", source: "Stateful-BBR Table V", title: "queueing delay in an emulated 5G network, 1 % loss", quantity: "ms", runs: |c| sbbr_runs(c, "1%"), compare: sbbr_table5, departs: SBBR_DEPARTS, figure: None },
    Reproduction { id: "s-bbr-fig4", source: "Stateful-BBR Fig. 4", title: "CDF of per-flow throughput, 5G stand-in, 0.1 % and 1 % loss (Tables II and III's runs)", quantity: "Mbit/s / ratio", runs: sbbr_fig4_runs, compare: sbbr_fig4, departs: SBBR_DEPARTS, figure: Some(sbbr_fig4_figure) },
];

/// Figures and tables with numbers that the lab cannot produce, and why.
pub static NOT_IN_LAB: &[(&str, &str)] = &[
    ("S-Cubic Fig. 15, Table 4", "24 Google–Tencent Internet paths; stands in: s-cubic-fig10 (emulated, same sizes)"),
    ("S-Cubic Fig. 18", "three days of Internet downloads (S-Cubic*); stands in: s-cubic-fig17 (a fixed, wrong estimate)"),
    ("S-Cubic Fig. 19, Table 6", "Bonree's commercial benchmark; no stand-in"),
    ("HyStart Figs. 3–6, 19", "CPU cost of SACK processing on 2008 kernels and hosts; `headstart lab overhead` measures today's controllers instead"),
    ("HyStart Figs. 10, 13", "FreeBSD and Windows XP receivers and delayed-ACK schemes; the lab's receivers are Linux"),
    ("HyStart Figs. 11–12, 18", "400 Mbit/s with background traffic: beyond what 2 vCPUs emulate; stand-ins: hystart-fig9, hystart-fig17"),
    ("HyStart Figs. 21–22, 24", "Internet2/NLR/GEANT and campus Wi-Fi paths; stand-in: hystart-fig23 (emulated jitter)"),
    ("SUSS Figs. 1, 9, 11, 13, 14, 17, 18", "Internet paths between cloud regions and phones; stand-ins: suss-fig10, suss-fig12"),
    ("Stateful-BBR Figs. 1–2", "one week of a production server's connections"),
    ("Stateful-BBR Fig. 5, Table VI", "the authors' six mobile trace datasets (not public); s-cubic-fig16 runs the public mahimahi traces"),
    ("Stateful-BBR Fig. 6, Table VII", "a commercial benchmark and production CDN servers"),
];
