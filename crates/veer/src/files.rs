//! Which files each command reads and which it writes, in one place, so that one check before
//! any command runs can refuse an output that would replace an input (`output::inputs`). A new
//! command must add its arm here: the match is exhaustive on purpose.

use crate::cli::{
    BaselineCommand, Command, ExperimentCommand, HistoryCommand, PolicyCommand, RecordCommand,
};
use std::path::Path;

/// The files and directories a command reads, and the paths it writes (`-o`, `--out`).
pub struct CommandFiles<'a> {
    /// Traces, policies, pricing and pattern files, saved reports — everything read.
    pub inputs: Vec<&'a Path>,
    /// Every output path named on the command line.
    pub outputs: Vec<&'a Path>,
}

impl Command {
    /// The files this command reads and writes.
    pub fn files(&self) -> CommandFiles<'_> {
        let (inputs, outputs): (Vec<Option<&Path>>, Vec<Option<&Path>>) = match self {
            Command::Inspect(a) => (vec![Some(&a.trace)], vec![a.out.output.as_deref()]),
            Command::Diff(a) => (
                vec![
                    Some(&a.baseline),
                    Some(&a.candidate),
                    a.policy.as_deref(),
                    a.pricing.as_deref(),
                    a.history.as_deref(),
                    a.quarantine.as_deref(),
                ],
                a.out.paths().into_iter().map(Some).collect(),
            ),
            Command::Convert(a) => (
                a.inputs.iter().map(|p| Some(&**p)).collect(),
                vec![a.output.as_deref()],
            ),
            Command::Demo(a) => (vec![], vec![a.out.output.as_deref()]),
            Command::Config(crate::cli::ConfigCommand::Show(a)) => {
                (vec![], vec![a.out.output.as_deref()])
            }
            Command::Init(_) | Command::Mcp(_) => (vec![], vec![]),
            Command::Check(a) => (
                vec![Some(&a.trace), a.policy.as_deref()],
                vec![a.out.output.as_deref()],
            ),
            Command::Gate(a) => (
                vec![
                    Some(&a.report),
                    a.policy.as_deref(),
                    a.baseline.as_deref(),
                    a.candidate.as_deref(),
                ],
                vec![a.out.output.as_deref()],
            ),
            Command::Policy(PolicyCommand::Validate(a)) => (vec![Some(&a.file)], vec![]),
            Command::Policy(PolicyCommand::Suggest(a)) => (
                vec![Some(&a.from), a.baseline.as_deref(), a.candidate.as_deref()],
                vec![a.out.output.as_deref()],
            ),
            Command::Scan(a) => {
                let mut inputs: Vec<Option<&Path>> = a.paths.iter().map(|p| Some(&**p)).collect();
                inputs.push(a.patterns.as_deref());
                (inputs, vec![a.output.as_deref()])
            }
            // --all-to writes a directory of new files; it reads nothing.
            Command::Schema(a) => (vec![], vec![a.out.output.as_deref()]),
            Command::Experiment(ExperimentCommand::Pair(a)) => {
                let mut inputs = vec![Some(&*a.clean), a.perturbed.as_deref()];
                inputs.extend(a.reruns.iter().map(|p| Some(&**p)));
                (inputs, vec![a.out.output.as_deref()])
            }
            Command::Experiment(ExperimentCommand::Analyze(a)) => {
                (vec![Some(&a.input)], vec![a.out.output.as_deref()])
            }
            Command::Experiment(ExperimentCommand::Perturb(a)) => {
                (vec![Some(&a.file)], vec![Some(&a.out)])
            }
            Command::Experiment(ExperimentCommand::Run(a)) => (
                vec![Some(&a.input)],
                vec![Some(&a.out), a.out_file.output.as_deref()],
            ),
            Command::Synth(a) => (vec![], vec![Some(&a.out_dir)]),
            Command::Mine(a) => (
                vec![Some(&a.corpus), a.policy.as_deref()],
                vec![Some(&a.out), a.out_args.output.as_deref()],
            ),
            Command::Bisect(a) => (
                vec![
                    Some(&*a.baseline_config),
                    Some(&*a.candidate_config),
                    a.policy.as_deref(),
                ],
                vec![Some(&a.out), a.out_file.output.as_deref()],
            ),
            Command::Eval(a) => (
                vec![Some(&*a.cases)],
                vec![Some(&a.out), a.out_file.output.as_deref()],
            ),
            Command::Plan(a) => (vec![Some(&a.dir)], vec![a.out.output.as_deref()]),
            // A baseline is written into its own new version directory (never over a file);
            // the history database is a store veer owns, not a report.
            Command::Baseline(BaselineCommand::Create(a) | BaselineCommand::Update(a)) => {
                (vec![Some(&*a.runs), a.policy.as_deref()], vec![])
            }
            Command::Baseline(BaselineCommand::Show(a) | BaselineCommand::Verify(a)) => {
                (vec![], vec![a.out.output.as_deref()])
            }
            Command::Baseline(BaselineCommand::List(a)) => (vec![], vec![a.out.output.as_deref()]),
            Command::Baseline(_) => (vec![], vec![]),
            Command::History(HistoryCommand::Add(a)) => (vec![Some(&*a.report)], vec![]),
            Command::History(HistoryCommand::Show(a)) => {
                (vec![Some(&*a.db.db)], vec![a.out.output.as_deref()])
            }
            Command::History(HistoryCommand::Export(a)) => {
                (vec![Some(&*a.db.db)], vec![a.out.output.as_deref()])
            }
            Command::History(HistoryCommand::Report(a)) => {
                (vec![Some(&*a.db.db)], vec![a.out.output.as_deref()])
            }
            Command::History(HistoryCommand::Drift(a)) => {
                (vec![Some(&*a.db.db)], vec![a.out.output.as_deref()])
            }
            Command::History(HistoryCommand::Flaky(a)) => (
                vec![Some(&*a.db.db), Some(&*a.quarantine)],
                vec![a.out.output.as_deref()],
            ),
            Command::Record(a) => {
                let proxy = match &a.serve {
                    Some(RecordCommand::Serve(s)) => &s.proxy,
                    None => &a.proxy,
                };
                (vec![proxy.policy.as_deref()], vec![proxy.output.as_deref()])
            }
            Command::Replay(a) => (
                vec![Some(&*a.recording)],
                vec![Some(&*a.output), a.report.as_deref()],
            ),
        };
        CommandFiles {
            inputs: inputs.into_iter().flatten().collect(),
            outputs: outputs.into_iter().flatten().collect(),
        }
    }
}
