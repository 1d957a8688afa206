//! The `gpufp` command. Its subcommands (`eval`, `batch`, `parse`: ../shared/DESIGN.md) arrive
//! with the PTX instruction model; until then it describes itself.

use clap::{CommandFactory, Parser};

/// A bit-exact model of GPU floating-point instructions.
#[derive(Parser)]
#[command(name = "gpufp", version, about, long_about = None)]
struct Cli {}

fn main() {
    Cli::parse();
    // No subcommand exists yet: show what the command is.
    Cli::command().print_help().expect("write help to stdout");
    println!();
}
