//! PNG figures like the papers': Ω vs flow size (S-Cubic Fig. 2/7), FCT and throughput
//! CDFs (S-BBR Fig. 4), cwnd over time (SUSS Fig. 9), throughput and Jain's index over
//! time (SUSS Fig. 15). Everything is drawn from the files a run wrote, so
//! `headstart lab plot DIR` can redraw any results folder.

use crate::metrics::{median, FlowRow};
use crate::report::{self, cc_order};
use headstart::units::fmt_size;
use anyhow::{bail, Context, Result};
use plotters::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const FONT_PATHS: &[&str] = &[
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
];
const SIZE: (u32, u32) = (960, 600);

fn register_font() -> Result<()> {
    static DONE: std::sync::OnceLock<Result<(), String>> = std::sync::OnceLock::new();
    DONE.get_or_init(|| {
        let bytes = FONT_PATHS
            .iter()
            .find_map(|p| std::fs::read(p).ok())
            .ok_or_else(|| "no DejaVuSans.ttf found for plot labels (apt-get install fonts-dejavu-core)".to_string())?;
        let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
        plotters::style::register_font("sans-serif", FontStyle::Normal, bytes).map_err(|_| "cannot load DejaVuSans.ttf".to_string())
    })
    .clone()
    .map_err(|e| anyhow::anyhow!(e))
}

fn color(i: usize) -> RGBColor {
    const C: [RGBColor; 8] = [
        RGBColor(31, 119, 180),
        RGBColor(214, 39, 40),
        RGBColor(44, 160, 44),
        RGBColor(255, 127, 14),
        RGBColor(148, 103, 189),
        RGBColor(140, 86, 75),
        RGBColor(227, 119, 194),
        RGBColor(127, 127, 127),
    ];
    C[i % C.len()]
}

type DynErr = Box<dyn std::error::Error + Send + Sync>;

fn wrap<T>(r: std::result::Result<T, DynErr>, what: &str) -> Result<T> {
    r.map_err(|e| anyhow::anyhow!("drawing {what}: {e}"))
}

/// Draws every figure the results in `dir` support; returns the files written.
pub fn plot_dir(dir: &Path) -> Result<Vec<PathBuf>> {
    register_font()?;
    let rows = report::read_rows(dir)?;
    if rows.is_empty() {
        bail!("{} holds no flows to plot", dir.display());
    }
    let measured: Vec<FlowRow> = rows.into_iter().filter(|r| r.role == "measured" && r.fct_s.is_some()).collect();
    let mut out = Vec::new();
    let sizes: std::collections::BTreeSet<u64> = measured.iter().map(|r| r.size).collect();
    if measured.iter().any(|r| r.workload == "sweep") && sizes.len() > 1 {
        let p = dir.join("omega_vs_size.png");
        wrap(omega_vs_size(&p, &measured), "Ω vs size")?;
        out.push(p);
    }
    let p = dir.join("fct_cdf.png");
    wrap(cdf(&p, &measured, |r| r.fct_s.map(|f| f * 1e3), "flow completion time (ms)", "FCT CDF"), "FCT CDF")?;
    out.push(p);
    let p = dir.join("throughput_cdf.png");
    wrap(cdf(&p, &measured, |r| r.throughput_mbps, "throughput (Mbit/s, bytes / FCT)", "Throughput CDF"), "throughput CDF")?;
    out.push(p);
    let cwnd = dir.join(report::CWND_CSV);
    if cwnd.exists() {
        let p = dir.join("cwnd.png");
        wrap(cwnd_over_time(&p, &cwnd), "cwnd")?;
        out.push(p);
    }
    let packets = dir.join(report::PACKETS_CSV);
    if packets.exists() {
        let p = dir.join("queue_per_packet.png");
        wrap(queue_per_packet(&p, &packets), "per-packet queueing")?;
        out.push(p);
        let rtt_s = measured.first().map_or(0.1, |r| r.link_rtt_ms / 1e3);
        let p = dir.join("retransmissions_per_rtt.png");
        wrap(retransmissions_per_rtt(&p, &dir.join(report::RETRANSMISSIONS_CSV), rtt_s), "retransmissions per RTT")?;
        out.push(p);
    }
    let tput = dir.join(report::THROUGHPUT_CSV);
    if tput.exists() {
        let p = dir.join("throughput_over_time.png");
        wrap(throughput_over_time(&p, &tput), "throughput over time")?;
        out.push(p);
    }
    Ok(out)
}

fn omega_vs_size(path: &Path, rows: &[FlowRow]) -> std::result::Result<(), DynErr> {
    let root = BitMapBackend::new(path, SIZE).into_drawing_area();
    root.fill(&WHITE)?;
    // x is log2(size), so that ticks fall on the powers of two the papers use.
    let min = (rows.iter().map(|r| r.size).min().unwrap_or(1) as f64).log2().floor();
    let max = (rows.iter().map(|r| r.size).max().unwrap_or(2) as f64).log2().ceil();
    let r0 = &rows[0];
    let caption = format!("FCT efficiency vs flow size — {:.0} Mbit/s, RTT {:.0} ms, buffer {} B", r0.link_capacity_mbps, r0.link_rtt_ms, r0.link_buffer_bytes);
    let mut chart = ChartBuilder::on(&root)
        .caption(caption, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(55)
        .build_cartesian_2d(min - 0.3..max + 0.3, 0f64..1.05f64)?;
    chart
        .configure_mesh()
        .x_desc("flow size")
        .y_desc("FCT efficiency Ω (median, min–max)")
        .x_labels((max - min) as usize + 1)
        .x_label_formatter(&|x| fmt_size(2f64.powf(x.round()) as u64))
        .draw()?;
    for (i, cc) in cc_order(rows).iter().enumerate() {
        let col = color(i);
        let mut by: BTreeMap<u64, Vec<f64>> = BTreeMap::new();
        for r in rows.iter().filter(|r| &r.cc == cc) {
            if let Some(o) = r.omega {
                by.entry(r.size).or_default().push(o);
            }
        }
        let pts: Vec<(f64, f64, f64, f64)> = by
            .into_iter()
            .map(|(s, mut v)| {
                let m = median(&mut v);
                ((s as f64).log2(), m, v[0], v[v.len() - 1])
            })
            .collect();
        chart
            .draw_series(LineSeries::new(pts.iter().map(|p| (p.0, p.1)), col.stroke_width(2)))?
            .label(cc.as_str())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], col.stroke_width(2)));
        chart.draw_series(pts.iter().map(|p| Circle::new((p.0, p.1), 4, col.filled())))?;
        chart.draw_series(pts.iter().map(|p| PathElement::new(vec![(p.0, p.2), (p.0, p.3)], col.stroke_width(1))))?;
    }
    chart.configure_series_labels().position(SeriesLabelPosition::LowerRight).background_style(WHITE.mix(0.9)).border_style(BLACK).draw()?;
    root.present()?;
    Ok(())
}

fn cdf(path: &Path, rows: &[FlowRow], value: impl Fn(&FlowRow) -> Option<f64>, xdesc: &str, title: &str) -> std::result::Result<(), DynErr> {
    let series: Vec<(String, Vec<f64>)> = cc_order(rows).into_iter().map(|cc| {
        let v = rows.iter().filter(|r| r.cc == cc).filter_map(&value).filter(|v| *v > 0.0).collect();
        (cc, v)
    }).collect();
    cdf_lines(path, title, xdesc, &series, true)
}

/// Empirical CDFs of named series (a log x axis drops values ≤ 0): S-BBR Fig. 4's
/// per-flow throughput, S-Cubic Fig. 11's overlapping flows.
pub fn cdf_plot(path: &Path, title: &str, xdesc: &str, series: &[(String, Vec<f64>)], log_x: bool) -> Result<()> {
    register_font()?;
    wrap(cdf_lines(path, title, xdesc, series, log_x), title)
}

fn cdf_lines(path: &Path, title: &str, xdesc: &str, series: &[(String, Vec<f64>)], log_x: bool) -> std::result::Result<(), DynErr> {
    let root = BitMapBackend::new(path, SIZE).into_drawing_area();
    root.fill(&WHITE)?;
    // A log axis is drawn as log10 of the values on a linear one.
    let to_x = |v: f64| if log_x { (v > 0.0).then(|| v.log10()) } else { Some(v) };
    let xs: Vec<Vec<f64>> = series.iter().map(|s| s.1.iter().filter(|v| v.is_finite()).filter_map(|v| to_x(*v)).collect()).collect();
    let (lo, hi) = xs.iter().flatten().fold((f64::MAX, f64::MIN), |(a, b), &v| (a.min(v), b.max(v)));
    let (lo, hi) = match (xs.iter().all(Vec::is_empty), log_x) {
        (true, _) => (0.0, 1.0),
        (false, true) => (lo - 0.1, hi + 0.1),
        (false, false) => (lo.min(0.0), hi + 1.0),
    };
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(55)
        .build_cartesian_2d(lo..hi, 0f64..1.0f64)?;
    let label = |x: &f64| if log_x { format!("{:.3}", 10f64.powf(*x)).trim_end_matches('0').trim_end_matches('.').to_string() } else { format!("{x:.0}") };
    chart.configure_mesh().x_desc(xdesc).y_desc("CDF").x_label_formatter(&label).draw()?;
    for (i, (name, mut v)) in series.iter().map(|s| &s.0).zip(xs).enumerate() {
        let col = color(i);
        v.sort_by(|a, b| a.total_cmp(b));
        let n = v.len() as f64;
        let pts: Vec<(f64, f64)> = v.iter().enumerate().map(|(k, &x)| (x, (k + 1) as f64 / n)).collect();
        chart
            .draw_series(LineSeries::new(pts, col.stroke_width(2)))?
            .label(name.as_str())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], col.stroke_width(2)));
    }
    chart.configure_series_labels().position(SeriesLabelPosition::LowerRight).background_style(WHITE.mix(0.9)).border_style(BLACK).draw()?;
    root.present()?;
    Ok(())
}

pub(crate) fn read_csv(path: &Path) -> Result<Vec<Vec<String>>> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    Ok(text.lines().skip(1).map(|l| l.split(',').map(str::to_string).collect()).collect())
}

pub(crate) fn num(s: &str) -> f64 {
    s.parse().unwrap_or(f64::NAN)
}

/// cwnd over time of the first sampled flow of each congestion control at the
/// largest sampled size.
fn cwnd_over_time(path: &Path, csv: &Path) -> std::result::Result<(), DynErr> {
    let recs = read_csv(csv)?;
    let max_size = recs.iter().map(|r| num(&r[2]) as u64).max().unwrap_or(0);
    type Flow = (String, String, Vec<(f64, f64)>); // (row, cc, points)
    let mut flows: Vec<Flow> = Vec::new();
    for r in recs.iter().filter(|r| num(&r[2]) as u64 == max_size) {
        if !flows.iter().any(|f| f.0 == r[0]) {
            if flows.iter().any(|f| f.1 == r[1]) {
                continue;
            }
            flows.push((r[0].clone(), r[1].clone(), Vec::new()));
        }
        if let Some(f) = flows.iter_mut().find(|f| f.0 == r[0]) {
            f.2.push((num(&r[3]), num(&r[4])));
        }
    }
    let tmax = flows.iter().flat_map(|f| f.2.iter().map(|p| p.0)).fold(1.0, f64::max);
    let cmax = flows.iter().flat_map(|f| f.2.iter().map(|p| p.1)).fold(10.0, f64::max);
    let root = BitMapBackend::new(path, SIZE).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(format!("cwnd over time, {} flow", fmt_size(max_size)), ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(60)
        .build_cartesian_2d(0f64..tmax, 0f64..cmax * 1.1)?;
    chart.configure_mesh().x_desc("time since accept (ms)").y_desc("cwnd (packets)").draw()?;
    for (i, (_, cc, pts)) in flows.iter().enumerate() {
        let col = color(i);
        chart
            .draw_series(LineSeries::new(pts.clone(), col.stroke_width(2)))?
            .label(cc.as_str())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], col.stroke_width(2)));
    }
    chart.configure_series_labels().position(SeriesLabelPosition::UpperLeft).background_style(WHITE.mix(0.9)).border_style(BLACK).draw()?;
    root.present()?;
    Ok(())
}

fn throughput_over_time(path: &Path, csv: &Path) -> std::result::Result<(), DynErr> {
    let recs = read_csv(csv)?;
    let mut flows: BTreeMap<usize, (String, Vec<(f64, f64)>)> = BTreeMap::new();
    let mut jain: BTreeMap<i64, f64> = BTreeMap::new();
    for r in &recs {
        let t = num(&r[0]);
        let e = flows.entry(num(&r[1]) as usize).or_insert_with(|| (r[2].clone(), Vec::new()));
        e.1.push((t, num(&r[3])));
        let j = num(&r[4]);
        if j.is_finite() {
            jain.insert((t * 1000.0) as i64, j);
        }
    }
    let tmax = recs.iter().map(|r| num(&r[0])).fold(1.0, f64::max);
    let ymax = recs.iter().map(|r| num(&r[3])).fold(1.0, f64::max);
    let root = BitMapBackend::new(path, SIZE).into_drawing_area();
    root.fill(&WHITE)?;
    let (top, bottom) = root.split_vertically(400);
    let mut chart = ChartBuilder::on(&top)
        .caption("Throughput per flow at the bottleneck", ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(35)
        .y_label_area_size(60)
        .build_cartesian_2d(0f64..tmax, 0f64..ymax * 1.1)?;
    chart.configure_mesh().y_desc("Mbit/s").draw()?;
    for (i, (id, (cc, pts))) in flows.iter().enumerate() {
        let col = color(i);
        chart
            .draw_series(LineSeries::new(pts.clone(), col.stroke_width(2)))?
            .label(format!("flow {id} ({cc})"))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], col.stroke_width(2)));
    }
    chart.configure_series_labels().position(SeriesLabelPosition::UpperRight).background_style(WHITE.mix(0.9)).border_style(BLACK).draw()?;
    let mut jc = ChartBuilder::on(&bottom)
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0f64..tmax, 0f64..1.05f64)?;
    jc.configure_mesh().x_desc("time (s)").y_desc("Jain's index").draw()?;
    jc.draw_series(LineSeries::new(jain.iter().map(|(t, j)| (*t as f64 / 1000.0, *j)), BLACK.stroke_width(2)))?;
    root.present()?;
    Ok(())
}

/// Each flow's packets' time in the bottleneck queue, in the order they left it
/// (S-Cubic Fig. 9).
fn queue_per_packet(path: &Path, csv: &Path) -> std::result::Result<(), DynErr> {
    let mut flows: BTreeMap<usize, (String, Vec<(f64, f64)>)> = BTreeMap::new();
    for r in read_csv(csv)? {
        let e = flows.entry(num(&r[0]) as usize).or_insert_with(|| (r[1].clone(), Vec::new()));
        let n = e.1.len() as f64;
        e.1.push((n, num(&r[3])));
    }
    let xmax = flows.values().map(|f| f.1.len()).max().unwrap_or(1) as f64;
    let ymax = flows.values().flat_map(|f| f.1.iter().map(|p| p.1)).fold(1.0, f64::max);
    let root = BitMapBackend::new(path, SIZE).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption("Per-packet queueing delay at the bottleneck", ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(60)
        .build_cartesian_2d(0f64..xmax, 0f64..ymax * 1.1)?;
    chart.configure_mesh().x_desc("packet (in order of departure)").y_desc("queueing delay (ms)").draw()?;
    for (i, (row, (cc, pts))) in flows.iter().enumerate() {
        let col = color(i);
        chart
            .draw_series(LineSeries::new(pts.clone(), col.stroke_width(1)))?
            .label(format!("flow {row} ({cc})"))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], col.stroke_width(2)));
    }
    chart.configure_series_labels().position(SeriesLabelPosition::UpperRight).background_style(WHITE.mix(0.9)).border_style(BLACK).draw()?;
    root.present()?;
    Ok(())
}

/// Retransmitted segments reaching the bottleneck per RTT, per flow (S-Cubic Fig. 14).
fn retransmissions_per_rtt(path: &Path, csv: &Path, rtt_s: f64) -> std::result::Result<(), DynErr> {
    let mut flows: BTreeMap<usize, (String, BTreeMap<u64, u64>)> = BTreeMap::new();
    for r in read_csv(csv)? {
        let e = flows.entry(num(&r[0]) as usize).or_insert_with(|| (r[1].clone(), BTreeMap::new()));
        *e.1.entry((num(&r[2]) / rtt_s) as u64).or_default() += 1;
    }
    let xmax = flows.values().flat_map(|f| f.1.keys()).max().copied().unwrap_or(1) as f64 + 1.0;
    let ymax = flows.values().flat_map(|f| f.1.values()).max().copied().unwrap_or(1) as f64;
    let root = BitMapBackend::new(path, SIZE).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(format!("Retransmissions per RTT ({:.0} ms)", rtt_s * 1e3), ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(60)
        .build_cartesian_2d(0f64..xmax, 0f64..ymax * 1.1 + 1.0)?;
    chart.configure_mesh().x_desc("RTT round since the run began").y_desc("retransmitted segments").draw()?;
    for (i, (row, (cc, bins))) in flows.iter().enumerate() {
        let col = color(i);
        let pts: Vec<(f64, f64)> = bins.iter().map(|(b, n)| (*b as f64, *n as f64)).collect();
        chart
            .draw_series(pts.iter().map(|p| PathElement::new(vec![(p.0, 0.0), (p.0, p.1)], col.stroke_width(3))))?
            .label(format!("flow {row} ({cc})"))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], col.stroke_width(3)));
    }
    chart.configure_series_labels().position(SeriesLabelPosition::UpperRight).background_style(WHITE.mix(0.9)).border_style(BLACK).draw()?;
    root.present()?;
    Ok(())
}

/// One value of a reproduction, as `compare` draws it.
pub struct ComparePoint {
    pub series: String,
    pub x: String,
    pub lab: Option<f64>,
    pub spread: Option<f64>,
    /// The paper's value, or a bound (`bound`: -1 at most, +1 at least, 0 a value).
    pub paper: Option<f64>,
    pub bound: i8,
}

/// The paper's values beside the lab's: x the figure's categories in order, a colour
/// per series; the lab as filled points joined by lines with their spread, the paper
/// as hollow squares (a value) or triangles (a bound: ▽ at most, △ at least).
pub fn compare(path: &Path, title: &str, ylabel: &str, points: &[ComparePoint]) -> Result<()> {
    register_font()?;
    wrap(compare_chart(path, title, ylabel, points), "the comparison")
}

fn compare_chart(path: &Path, title: &str, ylabel: &str, points: &[ComparePoint]) -> std::result::Result<(), DynErr> {
    let mut xs: Vec<&str> = Vec::new();
    let mut series: Vec<&str> = Vec::new();
    for p in points {
        if !xs.contains(&p.x.as_str()) {
            xs.push(&p.x);
        }
        if !series.contains(&p.series.as_str()) {
            series.push(&p.series);
        }
    }
    let vals = points.iter().flat_map(|p| [p.lab.map(|v| v + p.spread.unwrap_or(0.0)), p.lab.map(|v| v - p.spread.unwrap_or(0.0)), p.paper]).flatten();
    let (lo, hi) = vals.fold((0f64, 0f64), |(a, b), v| if v.is_finite() { (a.min(v), b.max(v)) } else { (a, b) });
    let pad = ((hi - lo) * 0.08).max(1e-3);
    let root = BitMapBackend::new(path, SIZE).into_drawing_area();
    root.fill(&WHITE)?;
    let n = xs.len().max(1);
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(55)
        .y_label_area_size(65)
        .build_cartesian_2d(-0.5f64..n as f64 - 0.5, lo - pad..hi + pad)?;
    let labels: Vec<String> = xs.iter().map(|s| s.to_string()).collect();
    chart
        .configure_mesh()
        .x_labels(n)
        .x_label_formatter(&|x| {
            let i = x.round();
            if (x - i).abs() < 1e-6 && i >= 0.0 { labels.get(i as usize).cloned().unwrap_or_default() } else { String::new() }
        })
        .y_desc(ylabel)
        .draw()?;
    for (si, s) in series.iter().enumerate() {
        let col = color(si);
        // Offset each series a little so that their marks do not cover each other.
        let dx = (si as f64 - (series.len() as f64 - 1.0) / 2.0) * 0.06;
        let at = |p: &ComparePoint| xs.iter().position(|x| *x == p.x).unwrap_or(0) as f64 + dx;
        let mine: Vec<&ComparePoint> = points.iter().filter(|p| p.series == *s).collect();
        let lab: Vec<(f64, f64)> = mine.iter().filter_map(|p| p.lab.map(|v| (at(p), v))).collect();
        chart
            .draw_series(LineSeries::new(lab.clone(), col.stroke_width(2)))?
            .label(format!("{s} (lab)"))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], col.stroke_width(2)));
        chart.draw_series(lab.iter().map(|p| Circle::new(*p, 5, col.filled())))?;
        chart.draw_series(mine.iter().filter_map(|p| Some(PathElement::new(vec![(at(p), p.lab? - p.spread?), (at(p), p.lab? + p.spread?)], col.stroke_width(1)))))?;
        let paper: Vec<(f64, f64, i8)> = mine.iter().filter_map(|p| p.paper.map(|v| (at(p), v, p.bound))).collect();
        chart.draw_series(paper.iter().filter(|p| p.2 == 0).map(|p| Rectangle::new([(p.0 - 0.04, p.1 - pad * 0.15), (p.0 + 0.04, p.1 + pad * 0.15)], col.stroke_width(2))))?;
        chart.draw_series(paper.iter().filter(|p| p.2 != 0).map(|p| {
            let (tip, base) = if p.2 < 0 { (p.1 - pad * 0.3, p.1) } else { (p.1 + pad * 0.3, p.1) };
            PathElement::new(vec![(p.0 - 0.05, base), (p.0 + 0.05, base), (p.0, tip), (p.0 - 0.05, base)], col.stroke_width(2))
        }))?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .draw()?;
    root.present()?;
    Ok(())
}
