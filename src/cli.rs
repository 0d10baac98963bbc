//! What both programs (the server tool and the lab) say on the terminal: one
//! `headstart: error:` line and exit 1 for every bad input, reports as text or JSON.

use serde::Serialize;

/// An error as one `headstart: error:` line (its context chain joined), exit 1.
pub fn fail(e: anyhow::Error) -> ! {
    eprintln!("headstart: error: {}", format!("{e:#}").replace('\n', " "));
    std::process::exit(1);
}

/// clap's errors in the form every other bad input takes: one `headstart: error:`
/// line, exit 1 (help and --version still print and exit 0).
pub fn usage_error(e: clap::Error) -> ! {
    use clap::error::ErrorKind;
    if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand) {
        let _ = e.print();
        std::process::exit(if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand { 1 } else { 0 });
    }
    // The message is the first paragraph (some run over two lines); usage follows.
    let text = e.render().to_string();
    let msg: Vec<&str> = text.trim_start().lines().take_while(|l| !l.trim().is_empty()).map(str::trim).collect();
    eprintln!("headstart: error: {} (see --help)", msg.join(" ").trim_start_matches("error: "));
    std::process::exit(1);
}

/// Prints `report` as JSON, or as the text `text` makes of it.
pub fn show<T: Serialize>(report: &T, json: bool, text: impl FnOnce(&T) -> String) -> anyhow::Result<()> {
    if json {
        println!("{}", serde_json::to_string_pretty(report)?);
    } else {
        println!("{}", text(report).trim_end());
    }
    Ok(())
}
