//! The `veer` binary: parse flags, run one command, map the outcome to an exit code
//! (0 ok, 1 gate tripped, 2 usage or input error).

mod alloc_guard;
mod cli;
mod commands;
mod error;
mod files;
mod output;
mod progress;

use clap::Parser;
use std::process::ExitCode;

// Reading traces is allocation-bound; mimalloc is markedly faster than the system allocator
// there (see docs/performance.md). An allocation the machine refuses ends veer with exit 2 and
// an error (`alloc_guard.rs`), never an abort.
#[global_allocator]
static GLOBAL: alloc_guard::Guarded = alloc_guard::Guarded;

fn main() -> ExitCode {
    let cli = match cli::Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(match e.kind() {
                clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion => 0,
                _ => error::EXIT_ERROR,
            });
        }
    };
    output::set_redaction(!cli.no_redact);
    // `veer record` stops its proxy and agent on SIGINT / SIGTERM itself and leaves a complete
    // file; every other command ends at once, removing any temporary output file.
    // `veer experiment run` stops its agents on those signals and installs this watcher itself
    // once they are done.
    if !matches!(
        cli.command,
        cli::Command::Record(_)
            | cli::Command::Bisect(_)
            | cli::Command::Experiment(cli::ExperimentCommand::Run(_))
    ) {
        output::interrupt::install();
    }
    let result = refuse_overwriting_inputs(&cli.command).and_then(|()| run(&cli.command));
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            output::diag::error(&e);
            ExitCode::from(e.exit_code())
        }
    }
}

/// Exit 2 before anything runs when an output path is the same file as an input.
fn refuse_overwriting_inputs(command: &cli::Command) -> Result<(), error::CliError> {
    let files = command.files();
    for output in &files.outputs {
        output::inputs::refuse_overwriting_inputs(output, &files.inputs)?;
    }
    Ok(())
}

/// Runs one command; its exit code or its error.
fn run(command: &cli::Command) -> Result<u8, error::CliError> {
    match command {
        cli::Command::Inspect(a) => commands::inspect::run(a),
        cli::Command::Convert(a) => commands::convert::run(a),
        cli::Command::Diff(a) => commands::diff::run(a),
        cli::Command::Demo(a) => commands::demo::run(a),
        cli::Command::Check(a) => commands::check::run(a),
        cli::Command::Gate(a) => commands::gate::run(a),
        cli::Command::Policy(cli::PolicyCommand::Validate(a)) => commands::policy::validate(a),
        cli::Command::Scan(a) => commands::scan::run(a),
        cli::Command::Schema(a) => commands::schema::run(a),
        cli::Command::Experiment(c) => commands::experiment::run(c),
        cli::Command::Synth(a) => commands::synth::run(a),
        cli::Command::Plan(a) => commands::plan::run(a),
        cli::Command::Bisect(a) => commands::bisect::run(a),
        cli::Command::Record(a) => commands::record::run(a),
        cli::Command::Baseline(c) => commands::baseline::run(c),
        cli::Command::History(c) => commands::history::run(c),
    }
}
