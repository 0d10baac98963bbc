//! The lab's command line (`headstart lab …`, run as headstart-lab): every subcommand
//! and flag, parsed by clap.

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

#[derive(Parser)]
#[command(name = "headstart lab", version, about = "The lab: emulated bottlenecks between real Linux TCP endpoints")]
pub struct Cli {
    #[command(subcommand)]
    pub command: LabCommand,
}

// Parsed once per run: the size of its largest variant costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand)]
pub enum LabCommand {
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
    /// The fleet agent's cost: synthetic store events at a rate into the controllers'
    /// ring, the real agent publishing to a Redis of the lab's; its CPU, the ring's
    /// drops and the Redis writes per second.
    AgentBench {
        /// Store events per second.
        #[arg(long, value_delimiter = ',', default_value = "10000,50000")]
        events_per_s: Vec<u32>,
        /// Distinct peers the events cycle through.
        #[arg(long, default_value_t = 5000)]
        peers: u32,
        #[arg(long, default_value_t = 20.0)]
        seconds: f64,
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
    /// Run a figure or table of the seed papers and set the paper's numbers beside
    /// the lab's (REPRODUCTION.md).
    Reproduce {
        /// The reproduction, e.g. s-cubic-fig2 (--list shows them all).
        #[arg(required_unless_present = "list")]
        id: Option<String>,
        /// List the reproductions, and what the lab cannot reproduce.
        #[arg(long, conflicts_with = "id")]
        list: bool,
        /// The short variant: fewer sizes, repetitions and flows (≤ 5 minutes).
        #[arg(long)]
        quick: bool,
        /// The mahimahi traces of the cellular figures.
        #[arg(long, default_value = "../shared/traces")]
        traces: PathBuf,
        /// Results folder (default: results/reproduce-<ID>-<UTC time>).
        #[arg(long, conflicts_with = "from")]
        out: Option<PathBuf>,
        /// Compare again from the runs an earlier reproduce left in this folder; run nothing.
        #[arg(long)]
        from: Option<PathBuf>,
        /// No progress bars.
        #[arg(long)]
        quiet: bool,
    },
    /// Delete lab namespaces left behind by runs that were killed.
    Clean,
    /// Show or set the experiments' knobs (never an operator's: `headstart config`).
    #[command(after_help = headstart::bpf::abi::lab_knobs_help())]
    Knobs {
        /// KEY=VALUE assignments; none: show them.
        assignments: Vec<String>,
        /// Put every lab knob back to its shipped value.
        #[arg(long, conflicts_with = "assignments")]
        reset: bool,
        #[arg(long)]
        json: bool,
    },
}

#[derive(Args)]
pub struct OutArgs {
    /// Results folder (default: results/<kind>-<UTC time>).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
    /// Skip the PNG figures.
    #[arg(long)]
    pub no_plot: bool,
}

#[derive(Args)]
pub struct SweepArgs {
    /// Congestion controls; NAME:iwN adds a static initial window (route initcwnd).
    /// headstart's (s_cubic, s_bbr) are loaded if needed.
    #[arg(long, value_delimiter = ',', default_value = "cubic,bbr,cubic:iw100,s_cubic,s_bbr")]
    pub cc: Vec<String>,
    /// Bottleneck rate (ignored with --trace).
    #[arg(long, default_value = "100mbit")]
    pub rate: String,
    /// Round-trip propagation delay.
    #[arg(long, default_value = "50ms")]
    pub rtt: String,
    /// Drop-tail buffer: in BDPs (1bdp, 0.5bdp) or bytes (10mb, 625k).
    #[arg(long, default_value = "1bdp")]
    pub buffer: String,
    /// Repetitions of each (size, cc) point.
    #[arg(long, default_value_t = 3)]
    pub reps: u32,
    /// Flow sizes (k = 1024 bytes).
    #[arg(long, value_delimiter = ',', default_value = "8k,16k,32k,64k,128k,256k,512k,1m,2m,4m,8m")]
    pub sizes: Vec<String>,
    /// Run a previous flow to the same peer right before each measured flow.
    #[arg(long)]
    pub warm: bool,
    /// Size of the warm-up flow (default: the measured flow's size).
    #[arg(long)]
    pub warm_size: Option<String>,
    /// Start from the path table as it is (entries set by hand or left by earlier runs),
    /// and, without --warm, keep it between flows. Without it a sweep forgets its peer
    /// first (and, without --warm, before every flow) and, with --warm, primes the table
    /// with one flow of at least 1 MB (role "primer"), so that every run starts alike.
    #[arg(long)]
    pub keep_table: bool,
    /// Random loss on the downlink (e.g. 0.1%).
    #[arg(long)]
    pub loss: Option<String>,
    /// mahimahi trace for the downlink.
    #[arg(long)]
    pub trace: Option<PathBuf>,
    /// mahimahi trace for the uplink.
    #[arg(long)]
    pub uplink_trace: Option<PathBuf>,
    /// Random loss on the uplink (ACKs), e.g. 1%.
    #[arg(long)]
    pub uplink_loss: Option<String>,
    /// Hold uplink deliveries (ACKs) to the next multiple of this period (e.g. 4ms):
    /// ACK aggregation as over Wi-Fi or LTE.
    #[arg(long)]
    pub ack_aggregation: Option<String>,
    /// The same on the downlink (data).
    #[arg(long)]
    pub aggregation: Option<String>,
    /// Use IPv6 between client and server.
    #[arg(long)]
    pub ipv6: bool,
    /// Sample cwnd and pacing rate at this interval (e.g. 1ms) for cwnd plots.
    #[arg(long)]
    pub sample: Option<String>,
    /// Random loss seed: the same seed loses the same packets (default: a fresh one per
    /// run, written to run.json as loss_seed).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Fetch over HTTP from a real nginx with a real curl instead of the lab's own
    /// client and server (no TCP_INFO then: the lab traces retransmissions in the kernel).
    #[arg(long, conflicts_with = "app")]
    pub http: bool,
    /// The application: the lab's own sender and receiver (lab), nginx and curl (http),
    /// nginx with TLS 1.3 and curl (https), headless Chromium loading pages of that
    /// size over HTTPS (page: HTTP/1.1, page-h2: HTTP/2), or one persistent connection
    /// per flow fetching two responses an idle apart, the second measured (keepalive;
    /// keepalive-https over TLS 1.3).
    #[arg(long, value_enum)]
    pub app: Option<headstart_lab::experiment::App>,
    /// http/https: each flow's bytes fetched over this many connections opened at once
    /// (curl --parallel, as a browser's), each 1/N of the size.
    #[arg(long)]
    pub connections: Option<u32>,
    /// keepalive: the idle between a connection's two responses (e.g. 2s).
    #[arg(long)]
    pub idle: Option<String>,
    /// keepalive: the downlink's rate from the idle on, as a fraction of --rate (0.2:
    /// the path slowed to a fifth while the connection idled).
    #[arg(long)]
    pub idle_rate: Option<f64>,
    /// keepalive: the first response's size (default: the measured one's), e.g. 16k: a
    /// small response, then a large one on the same connection (an HTML page, then its
    /// objects); with an idle below the RTO no restart comes between.
    #[arg(long)]
    pub first_size: Option<String>,
    /// Do not attach the receive-window override to the server for headstart's
    /// controllers.
    #[arg(long)]
    pub no_rwnd: bool,
    /// Clients' initial receive window in MSS (route initrwnd; 179 is like Windows 10).
    #[arg(long)]
    pub client_initrwnd: Option<u32>,
    /// The client stops reading for this long once a flow's first data arrives (an
    /// application that falls behind: its receive buffer fills), e.g. 30ms.
    #[arg(long)]
    pub reader_stall: Option<String>,
    /// With --reader-stall: only every Nth flow of the run stalls (default 1: every
    /// flow), a receiver that falls behind now and then.
    #[arg(long)]
    pub reader_stall_every: Option<u32>,
    /// The lab's server opens its listening sockets as this uid (a server that runs as
    /// an unprivileged user; knob trusted_uid_max decides whether its flows use the
    /// path table).
    #[arg(long)]
    pub server_uid: Option<u32>,
    #[command(flatten)]
    pub out: OutArgs,
}
