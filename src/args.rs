//! The command line: every subcommand and flag, parsed by clap.

use clap::{Parser, Subcommand};
use std::path::PathBuf;

#[derive(Parser)]
#[command(name = "headstart", version, about = "Start every TCP flow at full speed — and measure it")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand)]
pub enum Command {
    /// Bring headstart up as configured (/etc/headstart/headstart.toml, else built-in
    /// defaults) with the table and knobs kept by the last `down`/`save`.
    Up {
        #[arg(long)]
        config: Option<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// Keep the table and knobs, put back the default congestion control found before
    /// `up`, detach the window override from the configured interfaces, unregister.
    Down {
        #[arg(long)]
        config: Option<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// The kill switch: no more jumps or SUSS acceleration, the window override detached
    /// from every interface; flows become the kernel's Cubic/BBR (entries still stored).
    Off,
    /// Undo `off` (and `shadow`): the accelerations again, the window override on the
    /// configured interfaces.
    On {
        #[arg(long)]
        config: Option<PathBuf>,
    },
    /// Shadow mode: flows start as the kernel's; what each start would have done, and how
    /// far the cached rate was from what the flow measured, are counted (status, metrics).
    Shadow,
    /// Counters, table and mode in the Prometheus text format (node_exporter textfile).
    Metrics {
        /// Instead: every counter, its metric and what it counts, as Markdown (COUNTERS.md).
        #[arg(long)]
        markdown: bool,
    },
    /// The live flows of headstart's controllers: start, phase, start window, cached and
    /// measured rate.
    Flows {
        /// Network namespace (by name, as `ip netns` lists it).
        #[arg(long)]
        netns: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Can this machine run headstart? One line per requirement; exit 1 if one is missing.
    Check {
        #[arg(long)]
        json: bool,
    },
    /// Keep the table and knobs in the state directory now (the service's timer runs it).
    Save {
        #[arg(long)]
        config: Option<PathBuf>,
    },
    /// Register headstart's congestion controls (all, or the ones named) in the
    /// running kernel, pinned under /sys/fs/bpf/headstart.
    Load {
        /// Controllers to load (default: all).
        names: Vec<String>,
        /// Path table capacity in entries, when the table is created.
        #[arg(long, default_value_t = headstart::bpf::DEFAULT_TABLE_ENTRIES)]
        table_size: u32,
    },
    /// Unregister them (a default congestion control naming them goes back to the one
    /// found before `up`, else cubic). The path table stays unless --purge.
    Unload {
        #[arg(long)]
        purge: bool,
    },
    /// What is loaded, the kernel's default, per-controller counters, the table.
    Status {
        #[arg(long)]
        json: bool,
    },
    /// The per-peer path table.
    #[command(subcommand)]
    Table(TableCommand),
    /// Knobs: `headstart config` shows them, `headstart config KEY=VALUE ...` sets them
    /// (all checked before any is written).
    #[command(after_help = headstart::bpf::abi::knobs_help())]
    Config {
        assignments: Vec<String>,
        #[arg(long)]
        json: bool,
        /// Print the knob table as Markdown (the README's).
        #[arg(long, conflicts_with_all = ["assignments", "json"])]
        markdown: bool,
    },
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
    /// The fleet table: share the path table with the other servers of a farm through
    /// Redis ([fleet] in headstart.toml).
    #[command(subcommand)]
    Fleet(FleetCommand),
    /// The lab (a program of its own, headstart-lab, not in the server's package):
    /// emulated bottlenecks between real Linux TCP endpoints. `headstart lab --help`.
    #[command(disable_help_flag = true)]
    Lab {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
}

#[derive(Subcommand)]
pub enum FleetCommand {
    /// The fleet agent (headstart-fleet.service runs it): publishes this server's
    /// stores, applies the others'. Runs until stopped.
    Run {
        #[arg(long)]
        config: Option<PathBuf>,
        /// Instead of [fleet] redis: the Redis URL.
        #[arg(long)]
        redis: Option<String>,
        /// Instead of [fleet] host_id.
        #[arg(long)]
        host_id: Option<String>,
        /// Instead of [fleet] key_prefix.
        #[arg(long)]
        key_prefix: Option<String>,
        /// Share the table of this network namespace's flows (by its `ip netns` name)
        /// instead of the host's; repeated: each namespace as a server of its own.
        #[arg(long)]
        netns: Vec<String>,
        #[arg(long, default_value = headstart::fleet::DEFAULT_STATUS_FILE)]
        status_file: PathBuf,
    },
    /// What the agent has published and applied, and whether Redis is reachable.
    Status {
        #[arg(long, default_value = headstart::fleet::DEFAULT_STATUS_FILE)]
        status_file: PathBuf,
        #[arg(long)]
        json: bool,
    },
}

#[derive(Subcommand)]
pub enum TableCommand {
    /// Every entry, newest first (--json: one JSON object per line).
    List {
        #[arg(long)]
        json: bool,
    },
    /// One peer's entry.
    Get {
        addr: String,
        /// The entry a network namespace's flows use (by its `ip netns` name; default: the host's).
        #[arg(long)]
        netns: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Set a peer's entry by hand (experiments, warm-up).
    Set {
        addr: String,
        /// For a network namespace's flows (by its `ip netns` name; default: the host's).
        #[arg(long)]
        netns: Option<String>,
        /// Bandwidth, e.g. 100mbit.
        #[arg(long)]
        bw: String,
        /// Minimum RTT, e.g. 50ms.
        #[arg(long)]
        rtt: String,
    },
    /// Remove one peer.
    Forget {
        addr: String,
        /// A network namespace's entry (by its `ip netns` name; default: the host's).
        #[arg(long)]
        netns: Option<String>,
    },
    /// Remove every entry (and the prefix aggregates they made).
    Flush,
    /// Prefix fallback's aggregates: per /24 or /48, what its peers' entries agree on
    /// and whether its first contacts start from it.
    Prefixes {
        #[arg(long)]
        json: bool,
    },
    /// Write the table to a JSON file (owner-only, written whole or not at all).
    Save { file: PathBuf },
    /// Put back a table written by `save`: all or nothing, entries aged by the wall
    /// clock since the save (older than max_age_s: dropped). The file replaces the
    /// table unless --merge.
    Restore {
        file: PathBuf,
        /// Keep live entries not in the file, and live entries newer than the saved ones.
        #[arg(long)]
        merge: bool,
        #[arg(long)]
        json: bool,
    },
}
