//! The `veer` binary: parse flags, run one command, map the outcome to an exit code
//! (0 ok, 1 gate tripped, 2 usage or input error).

mod alloc_guard;
mod cli;
mod commands;
mod config;
mod error;
mod files;
mod output;
mod progress;

use clap::{CommandFactory, FromArgMatches};
use std::ffi::OsString;
use std::process::ExitCode;

// Reading traces is allocation-bound; mimalloc is markedly faster than the system allocator
// there (see docs/performance.md). An allocation the machine refuses ends veer with exit 2 and
// an error (`alloc_guard.rs`), never an abort.
#[global_allocator]
static GLOBAL: alloc_guard::Guarded = alloc_guard::Guarded;

fn main() -> ExitCode {
    let argv: Vec<OsString> = std::env::args_os().collect();
    let (cli, config) = match parse(&argv) {
        Ok(parsed) => parsed,
        Err(code) => return code,
    };
    output::set_redaction(!cli.no_redact);
    veer_report::text::set_table_width(output::table_width(
        !cli.command.files().outputs.is_empty(),
    ));
    // `veer record` stops its proxy and agent on SIGINT / SIGTERM itself and leaves a complete
    // file; every other command ends at once, removing any temporary output file.
    // `veer experiment run` stops its agents on those signals and installs this watcher itself
    // once they are done.
    if !matches!(
        cli.command,
        cli::Command::Record(_)
            | cli::Command::Replay(_)
            | cli::Command::Bisect(_)
            | cli::Command::Eval(_)
            | cli::Command::Experiment(cli::ExperimentCommand::Run(_))
    ) {
        output::interrupt::install();
    }
    let result =
        refuse_overwriting_inputs(&cli.command).and_then(|()| run(&cli.command, config.as_ref()));
    match result {
        Ok(exit) => ExitCode::from(exit.code()),
        Err(e) => {
            output::diag::error(&e);
            ExitCode::from(e.exit_code())
        }
    }
}

/// The exit of a command line clap refused (0 for --help and --version, which it printed).
fn clap_exit(e: &clap::Error) -> ExitCode {
    let _ = e.print();
    ExitCode::from(match e.kind() {
        clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion => 0,
        _ => error::EXIT_ERROR,
    })
}

/// Parses the command line, once, and merges the settings of veer.toml into it (docs/config.md):
/// each setting whose flag was not given is set through that flag's own parser
/// ([`config::apply`]). Returns the command and the settings file read (for `veer config
/// show`), or the exit code of a refused command line or a bad settings file.
fn parse(argv: &[OsString]) -> Result<(cli::Cli, Option<config::Config>), ExitCode> {
    let matches = cli::Cli::command()
        .try_get_matches_from(argv)
        .map_err(|e| clap_exit(&e))?;
    let mut cli = cli::Cli::from_arg_matches(&matches).map_err(|e| clap_exit(&e))?;
    if matches!(cli.command, cli::Command::Init(_)) {
        return Ok((cli, None));
    }
    let fail = |e: error::CliError| {
        output::diag::error(&e);
        ExitCode::from(e.exit_code())
    };
    let config = match config::locate(cli.config.as_deref(), cli.no_config).map_err(fail)? {
        Some((path, origin)) => Some(config::load(&path, origin).map_err(fail)?),
        None => None,
    };
    if matches!(cli.command, cli::Command::Config(_)) {
        return Ok((cli, config));
    }
    let Some(settings) = &config else {
        return Ok((cli, None));
    };
    config::apply::apply(&mut cli, &matches, settings, argv).map_err(|e| {
        let code = clap_exit(&e);
        output::diag::say(
            "hint",
            format!(
                "settings from {} were added to the command line; `veer config show` lists them, `--no-config` ignores them",
                settings.path.display()
            ),
        );
        code
    })?;
    Ok((cli, config))
}

/// Exit 2 before anything runs when an output path is the same file as an input.
fn refuse_overwriting_inputs(command: &cli::Command) -> Result<(), error::CliError> {
    let files = command.files();
    for output in &files.outputs {
        output::inputs::refuse_overwriting_inputs(output, &files.inputs)?;
    }
    Ok(())
}

/// Runs one command (with the settings file read, for `veer config show`); its exit code or
/// its error.
fn run(
    command: &cli::Command,
    config: Option<&config::Config>,
) -> Result<error::Exit, error::CliError> {
    match command {
        cli::Command::Inspect(a) => commands::inspect::run(a),
        cli::Command::Convert(a) => commands::convert::run(a),
        cli::Command::Diff(a) => commands::diff::run(a),
        cli::Command::Demo(a) => commands::demo::run(a),
        cli::Command::Check(a) => commands::check::run(a),
        cli::Command::Gate(a) => commands::gate::run(a),
        cli::Command::Policy(cli::PolicyCommand::Validate(a)) => commands::policy::validate(a),
        cli::Command::Policy(cli::PolicyCommand::Suggest(a)) => commands::policy::suggest(a),
        cli::Command::Scan(a) => commands::scan::run(a),
        cli::Command::Schema(a) => commands::schema::run(a),
        cli::Command::Mcp(a) => commands::mcp::run(a),
        cli::Command::Experiment(c) => commands::experiment::run(c),
        cli::Command::Synth(a) => commands::synth::run(a),
        cli::Command::Plan(a) => commands::plan::run(a),
        cli::Command::Mine(a) => commands::mine::run(a),
        cli::Command::Bisect(a) => commands::bisect::run(a),
        cli::Command::Eval(a) => commands::eval::run(a),
        cli::Command::Record(a) => commands::record::run(a),
        cli::Command::Replay(a) => commands::replay::run(a),
        cli::Command::Baseline(c) => commands::baseline::run(c),
        cli::Command::History(c) => commands::history::run(c),
        cli::Command::Init(a) => commands::init::run(a),
        cli::Command::Config(cli::ConfigCommand::Show(a)) => commands::config::show(a, config),
    }
}
