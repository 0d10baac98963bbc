//! `headstart check`: can this machine run headstart? One line per requirement, read
//! from the running kernel without changing anything; exit 1 if one is missing.

use serde::Serialize;

#[derive(Debug, Serialize)]
pub struct Requirement {
    pub name: &'static str,
    /// "ok", "missing" or "unknown" (could not be told: not counted as missing).
    pub state: &'static str,
    pub detail: String,
}

/// The oldest kernel with what headstart uses: struct_ops links that can be pinned
/// (6.4), on top of BPF congestion controls, kfuncs of cubic/bbr and sk_storage.
const MIN_KERNEL: (u32, u32) = (6, 4);

fn req(name: &'static str, ok: bool, detail: String) -> Requirement {
    Requirement { name, state: if ok { "ok" } else { "missing" }, detail }
}

fn unknown(name: &'static str, detail: String) -> Requirement {
    Requirement { name, state: "unknown", detail }
}

/// The kernel's build configuration (/proc/config.gz or /boot/config-<release>).
fn kernel_config(release: &str) -> Option<String> {
    if let Ok(out) = std::process::Command::new("zcat").arg("/proc/config.gz").output() {
        if out.status.success() && !out.stdout.is_empty() {
            return Some(String::from_utf8_lossy(&out.stdout).into_owned());
        }
    }
    std::fs::read_to_string(format!("/boot/config-{release}")).ok()
}

fn config_value<'a>(config: &'a str, key: &str) -> Option<&'a str> {
    config.lines().find_map(|l| l.strip_prefix(key).and_then(|r| r.strip_prefix('=')))
}

/// "6.18.44-fc-v595" -> (6, 18).
fn parse_release(release: &str) -> Option<(u32, u32)> {
    let mut it = release.split(|c: char| !c.is_ascii_digit());
    Some((it.next()?.parse().ok()?, it.next()?.parse().ok()?))
}

/// Whether a name is in a BTF blob's string section (its types and functions).
fn btf_has(btf: &[u8], name: &str) -> bool {
    let needle = format!("\0{name}\0");
    btf.windows(needle.len()).any(|w| w == needle.as_bytes())
}

pub fn check() -> Vec<Requirement> {
    let mut out = Vec::new();
    // SAFETY: geteuid has no preconditions.
    let euid = unsafe { libc::geteuid() };
    out.push(req("root", euid == 0, if euid == 0 { "running as root".into() } else { format!("euid {euid}: headstart needs root (BPF, tc, sysctls)") }));

    let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default().trim().to_string();
    match parse_release(&release) {
        Some(v) => out.push(req("kernel", v >= MIN_KERNEL, format!("Linux {release} (needs {}.{} or later: pinned struct_ops links)", MIN_KERNEL.0, MIN_KERNEL.1))),
        None => out.push(unknown("kernel", format!("cannot read the release '{release}'"))),
    }

    let btf = std::fs::read("/sys/kernel/btf/vmlinux").unwrap_or_default();
    out.push(req("btf", !btf.is_empty(), if btf.is_empty() { "no /sys/kernel/btf/vmlinux (CONFIG_DEBUG_INFO_BTF)".into() } else { format!("/sys/kernel/btf/vmlinux, {} KB", btf.len() / 1024) }));
    let struct_ops = btf_has(&btf, "bpf_struct_ops_tcp_congestion_ops") || btf_has(&btf, "bpf_tcp_ca_init");
    out.push(req("struct_ops", struct_ops, if struct_ops { "congestion controls as BPF struct_ops".into() } else { "the kernel has no BPF congestion-control struct_ops".into() }));

    let config = kernel_config(&release);
    // The kfuncs s_cubic/suss and s_bbr call: the built-in cubic and bbr.
    for (name, module, funcs) in [("cubic kfuncs", "CONFIG_TCP_CONG_CUBIC", ["cubictcp_init", "cubictcp_cong_avoid"]), ("bbr kfuncs", "CONFIG_TCP_CONG_BBR", ["bbr_init", "bbr_main"])] {
        let in_btf = funcs.iter().all(|f| btf_has(&btf, f));
        let built = config.as_deref().and_then(|c| config_value(c, module));
        let ok = in_btf && built.map(|v| v == "y").unwrap_or(true);
        let detail = match built {
            Some("y") => format!("{module}=y, {} in BTF", funcs.join(", ")),
            Some(v) => format!("{module}={v}: must be built in (=y) for its kfuncs"),
            None if config.is_some() => format!("{module} not set"),
            None => format!("{} in BTF: {in_btf} (no kernel config to read)", funcs.join(", ")),
        };
        out.push(req(name, ok && (built.is_some() || config.is_none()), detail));
    }

    let bpffs = crate::bpf::bpffs_mounted();
    let syscall = config.as_deref().and_then(|c| config_value(c, "CONFIG_BPF_SYSCALL"));
    out.push(req(
        "bpffs",
        bpffs || syscall == Some("y"),
        if bpffs { "mounted at /sys/fs/bpf".into() } else { "not mounted at /sys/fs/bpf (headstart mounts it)".into() },
    ));

    match &config {
        Some(c) => {
            for (name, keys) in [("tc cls_bpf", &["CONFIG_NET_CLS_BPF", "CONFIG_NET_SCH_INGRESS"][..]), ("bpf jit", &["CONFIG_BPF_JIT"][..])] {
                let vals: Vec<String> = keys.iter().map(|k| format!("{k}={}", config_value(c, k).unwrap_or("not set"))).collect();
                let ok = keys.iter().all(|k| matches!(config_value(c, k), Some("y") | Some("m")));
                out.push(req(name, ok, vals.join(", ")));
            }
        }
        None => out.push(unknown("tc cls_bpf", "no /proc/config.gz or /boot/config-*: cannot tell".into())),
    }
    out
}

pub fn text(reqs: &[Requirement]) -> String {
    let mut s = String::new();
    for r in reqs {
        let mark = match r.state {
            "ok" => "ok     ",
            "missing" => "MISSING",
            _ => "?      ",
        };
        s.push_str(&format!("{mark} {:<13} {}\n", r.name, r.detail));
    }
    let missing = reqs.iter().filter(|r| r.state == "missing").count();
    s.push_str(&if missing == 0 { "headstart can run here".to_string() } else { format!("{missing} requirement(s) missing") });
    s
}

pub fn all_met(reqs: &[Requirement]) -> bool {
    reqs.iter().all(|r| r.state != "missing")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn releases_and_config_lines_are_read() {
        assert_eq!(parse_release("6.18.44-fc-v595"), Some((6, 18)));
        assert_eq!(parse_release("5.10.0-28-amd64"), Some((5, 10)));
        assert!(parse_release("6.18.44") >= Some(MIN_KERNEL) && parse_release("6.1.0") < Some(MIN_KERNEL));
        assert_eq!(parse_release("bogus"), None);
        let c = "# comment\nCONFIG_NET_CLS_BPF=m\nCONFIG_BPF_JIT=y\n# CONFIG_X is not set\n";
        assert_eq!(config_value(c, "CONFIG_NET_CLS_BPF"), Some("m"));
        assert_eq!(config_value(c, "CONFIG_BPF"), None, "whole names only");
        assert_eq!(config_value(c, "CONFIG_X"), None);
        assert!(btf_has(b"\0abc\0bbr_main\0x\0", "bbr_main") && !btf_has(b"\0abc\0bbr_main2\0", "bbr_main"));
    }

    #[test]
    fn text_marks_what_is_missing() {
        let r = vec![req("root", true, "x".into()), req("kernel", false, "Linux 5.10".into()), unknown("tc cls_bpf", "?".into())];
        let t = text(&r);
        assert!(t.contains("MISSING kernel") && t.contains("1 requirement(s) missing"), "{t}");
        assert!(!all_met(&r));
        assert!(all_met(&r[..1]) && all_met(&r[2..]), "unknown is not missing");
    }
}
