//! The README's layout section matches the tree: every path it names exists, and every
//! source file under src/, bpf/, lab/src/ and lab/bpf/ is named or sits in a folder it names.

use std::path::Path;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn layout_paths() -> Vec<String> {
    let readme = std::fs::read_to_string(Path::new(ROOT).join("README.md")).unwrap();
    let section = readme.split("## Layout").nth(1).expect("a Layout section");
    let block = section.split("```").nth(1).expect("a code block in it");
    block.lines().filter(|l| !l.starts_with(char::is_whitespace)).filter_map(|l| l.split_whitespace().next()).filter(|w| w.contains('/') || w.contains('.')).map(str::to_string).collect()
}

fn sources(dir: &Path, out: &mut Vec<String>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            sources(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs" || x == "c" || x == "h") {
            out.push(p.strip_prefix(ROOT).unwrap().to_string_lossy().into_owned());
        }
    }
}

#[test]
fn the_layout_section_names_what_exists() {
    let named = layout_paths();
    assert!(named.len() > 20, "{named:?}");
    for p in &named {
        assert!(Path::new(ROOT).join(p).exists(), "README names {p}, which does not exist");
    }
    let mut files = Vec::new();
    sources(&Path::new(ROOT).join("src"), &mut files);
    sources(&Path::new(ROOT).join("bpf"), &mut files);
    sources(&Path::new(ROOT).join("lab/src"), &mut files);
    sources(&Path::new(ROOT).join("lab/bpf"), &mut files);
    for f in files {
        let covered = named.iter().any(|n| *n == f || (n.ends_with('/') && f.starts_with(n.as_str())));
        assert!(covered, "{f} is not in the README's layout section");
    }
}

/// Every command of the tool is in the man page and in the README.
#[test]
fn every_command_is_documented() {
    let help = std::process::Command::new(env!("CARGO_BIN_EXE_headstart")).arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    let commands: Vec<&str> = help
        .split("Commands:")
        .nth(1)
        .unwrap()
        .split("Options:")
        .next()
        .unwrap()
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    assert!(commands.len() >= 15, "{commands:?}");
    let man = std::fs::read_to_string(Path::new(ROOT).join("packaging/headstart.8")).unwrap();
    let readme = std::fs::read_to_string(Path::new(ROOT).join("README.md")).unwrap();
    for c in commands {
        assert!(man.lines().any(|l| l.starts_with(&format!(".B {c}")) || l.starts_with(&format!(".BR {c} "))), "the man page lacks `{c}`");
        assert!(readme.contains(&format!("headstart {c}")), "the README lacks `headstart {c}`");
    }
}
