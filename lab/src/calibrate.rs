//! `headstart lab calibrate`: the emulator's own accuracy. A bulk flow saturates each
//! link; the rate it delivered over whole seconds (whole periods of a trace) is
//! compared with the configured one, beside the lateness of deliveries against the
//! model's schedule and any drop outside the model.

use super::emulator::model::LinkRate;
use super::experiment::{CompetingFlowText, ExperimentText, LinkText, WorkloadText};
use super::run::Output;
use super::{metrics, report, workloads};
use headstart::sys::{self, Interrupt};
use anyhow::Result;
use std::path::PathBuf;

/// What to calibrate: constant rates, or one trace-driven downlink.
pub struct CalibrateArgs {
    pub rates: Vec<String>,
    pub rtt: String,
    pub buffer: String,
    pub seconds: f64,
    pub cc: String,
    pub trace: Option<PathBuf>,
}

/// Measures the emulator itself: one bulk flow per rate; delivered rate over the
/// saturated part and lateness against the model's schedule. Returns the folder.
pub fn calibrate(args: CalibrateArgs, out: &Output) -> Result<PathBuf> {
    let CalibrateArgs { rates, rtt, buffer, seconds, cc, trace } = args;
    anyhow::ensure!((2.0..=600.0).contains(&seconds), "--seconds must be between 2 and 600");
    // With a trace there is one link to calibrate, named after the trace.
    let rates = match &trace {
        Some(t) => vec![t.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "trace".into())],
        None => rates,
    };
    // Every link and the experiment around it are checked before anything is created.
    let mut plans = Vec::new();
    for rate in &rates {
        let link = LinkText {
            rate: if trace.is_some() { None } else { Some(rate.clone()) },
            rtt: rtt.clone(),
            buffer: buffer.clone(),
            loss: None,
            trace: trace.clone(),
            uplink_trace: None,
            uplink_loss: None,
            ack_aggregation: None,
            aggregation: None,
            ..Default::default()
        };
        let resolved = link.resolve()?;
        let bps = resolved.capacity_bps;
        // Enough bytes to keep the link busy for the whole measurement (a trace link
        // may run faster than its average for a while).
        let size = (bps / 8.0 * seconds * if trace.is_some() { 1.5 } else { 1.0 }) as u64;
        let text = ExperimentText {
            name: Some(format!("calibrate-{rate}")),
            link,
            workload: WorkloadText::Competing { cc: vec![cc.clone()], flows: vec![CompetingFlowText { start: "0s".into(), size: size.to_string(), cc: 0, client: None, reverse: false }], bin: "100ms".into() },
            sample: None,
            packet_series: false,
            seed: None,
            http: false,
            app: None,
            connections: None,
            idle: None,
            idle_rate: None,
            first_size: None,
            rwnd_override: None,
            client_initrwnd: None,
            reader_stall: None,
            reader_stall_every: None,
            server_uid: None,
            knobs: Default::default(),
        };
        let exp = text.validate()?;
        plans.push((rate.clone(), resolved, exp));
    }
    sys::require_root()?;
    let dir = out.prepare("calibrate")?;
    let interrupt = Interrupt::install()?;
    let mut lines = vec!["rate,delivered_mbps,ratio,lateness_p50_ms,lateness_p99_ms,lateness_max_ms,outside_model_drops,buffer_drops,goodput_mbps".to_string()];
    let mut table = comfy_table::Table::new();
    table.load_preset(comfy_table::presets::UTF8_FULL_CONDENSED);
    table.set_header(vec!["rate", "link rate delivered", "of configured", "lateness p50 ms", "p99 ms", "max ms", "drops outside model", "buffer drops", "goodput Mbit/s"]);
    for (rate, resolved, exp) in &plans {
        let bps = resolved.capacity_bps;
        if !out.quiet {
            eprintln!("calibrating at {rate} for {seconds} s ...");
        }
        let res = workloads::run(exp, interrupt.clone(), true)?;
        let sub = dir.join(rate);
        report::write_all(&sub, exp, &res)?;
        // Link rate over the saturated part: skip the first second (slow start) and
        // the last bin (partial); for a trace, whole periods only.
        let bin_s = 0.1;
        let end_s = res.throughput_series.len() as f64 * bin_s - bin_s;
        let (from, to) = match &resolved.down_rate {
            LinkRate::Trace(t) => {
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
        let delivered = metrics::mean(&steady);
        let a = &res.accuracy;
        let outside = a.lost_outside_model();
        let goodput = res.rows[0].throughput_mbps.unwrap_or(0.0);
        let ratio = delivered * 1e6 / bps;
        lines.push(format!("{rate},{delivered:.3},{ratio:.4},{:.3},{:.3},{:.3},{outside},{},{goodput:.3}", a.lateness_p50_ms, a.lateness_p99_ms, a.lateness_max_ms, a.down_dropped_buffer));
        table.add_row(vec![
            rate.to_string(),
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
    Ok(dir)
}
