//! The pyo3 bindings of `veer._native`: convert arguments, release the GIL while the library
//! computes (`allow_threads`), hand back JSON text (the pure-Python `veer` package parses it
//! with `json.loads`, which is faster than building the objects here — docs/python.md), and
//! raise `NativeError(kind, message, file, line, field, hint, more)`, which the package turns
//! into the matching `veer.VeerError` subclass.

use crate::api::{self, DiffParams, Input};
use crate::error::ApiError;
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

create_exception!(
    _native,
    NativeError,
    PyException,
    "Raised by veer._native; veer re-raises it as a veer.VeerError subclass."
);

fn raise(e: ApiError, redact: bool) -> PyErr {
    let e = if redact { crate::error::redacted(e) } else { e };
    NativeError::new_err((
        e.kind.python_class(),
        e.message,
        e.file,
        e.line,
        e.field,
        e.hint,
        e.more,
    ))
}

/// An input as the package passes it: `(name, None)` for a path, `(name, bytes)` for a
/// document in memory.
fn input(arg: (String, Option<Vec<u8>>)) -> Input {
    match arg {
        (name, None) => Input::Path(name),
        (name, Some(bytes)) => Input::Bytes { name, bytes },
    }
}

type InputArg = (String, Option<Vec<u8>>);

/// `veer diff` as JSON text, the verdict's JSON, and the pair summary's JSON when `summary` is
/// true.
#[pyfunction]
#[pyo3(signature = (baseline, candidate, policy, pricing, seed, top_k, fail_on, summary, redact))]
#[allow(clippy::too_many_arguments)]
fn diff(
    py: Python<'_>,
    baseline: InputArg,
    candidate: InputArg,
    policy: Option<String>,
    pricing: Option<String>,
    seed: u64,
    top_k: usize,
    fail_on: String,
    summary: bool,
    redact: bool,
) -> PyResult<(String, String, Option<String>)> {
    let (b, c) = (input(baseline), input(candidate));
    let params = DiffParams {
        policy,
        pricing,
        seed,
        top_k,
        fail_on,
        redact,
    };
    py.allow_threads(|| api::diff(&b, &c, &params, summary))
        .map_err(|e| raise(e, redact))
}

/// `veer diff FIRST SECOND` on paths as the CLI runs it (every comparison it picks from the
/// inputs): the report's JSON, the verdict's JSON and the warnings. `options` is the keyword
/// arguments as JSON (`api::run::RunParams`).
#[pyfunction]
fn run(
    py: Python<'_>,
    first: String,
    second: String,
    options: String,
) -> PyResult<(String, String, Vec<String>)> {
    let params = api::run::RunParams::from_json(&options).map_err(|e| raise(e, true))?;
    let redact = params.redact;
    py.allow_threads(|| api::run::run(&first, &second, &params))
        .map_err(|e| raise(e, redact))
}

/// `veer check` as JSON text, and the verdict's JSON.
#[pyfunction]
fn check(
    py: Python<'_>,
    trace: InputArg,
    policy: String,
    fail_on: String,
    redact: bool,
) -> PyResult<(String, String)> {
    let t = input(trace);
    py.allow_threads(|| api::check(&t, &policy, &fail_on, redact))
        .map_err(|e| raise(e, redact))
}

/// `veer experiment pair` as JSON text.
#[pyfunction]
fn experiment_pair(
    py: Python<'_>,
    clean: InputArg,
    perturbed: InputArg,
    reruns: Vec<InputArg>,
    redact: bool,
) -> PyResult<String> {
    let (c, p) = (input(clean), input(perturbed));
    let reruns: Vec<Input> = reruns.into_iter().map(input).collect();
    py.allow_threads(|| api::experiment_pair(&c, &p, &reruns, redact))
        .map_err(|e| raise(e, redact))
}

/// `veer convert` output (`.agentlog` bytes), redacted unless `redact` is false.
#[pyfunction]
fn convert(py: Python<'_>, inputs: Vec<InputArg>, redact: bool) -> PyResult<Py<PyBytes>> {
    let inputs: Vec<Input> = inputs.into_iter().map(input).collect();
    let bytes = py
        .allow_threads(|| api::convert(&inputs, redact))
        .map_err(|e| raise(e, redact))?;
    Ok(PyBytes::new(py, &bytes).unbind())
}

/// Two pair summaries merged, as JSON text.
#[pyfunction]
fn merge_summaries(py: Python<'_>, a: String, b: String, keep_deltas: bool) -> PyResult<String> {
    py.allow_threads(|| api::merge_summaries(&a, &b, keep_deltas))
        .map_err(|e| raise(e, true))
}

/// The empty pair summary, as JSON text.
#[pyfunction]
fn empty_summary() -> String {
    api::empty_summary()
}

/// The `aggregate` block from a summary, as JSON text.
#[pyfunction]
#[pyo3(signature = (summary, unmatched, middles))]
fn finish_summary(
    py: Python<'_>,
    summary: String,
    unmatched: usize,
    middles: Option<Vec<(String, Vec<f64>)>>,
) -> PyResult<String> {
    py.allow_threads(|| api::finish_summary(&summary, unmatched, middles.as_deref()))
        .map_err(|e| raise(e, true))
}

/// The trace files `veer diff DIR DIR` pairs under a directory (relative paths, in order).
#[pyfunction]
fn trace_files(py: Python<'_>, dir: String) -> PyResult<Vec<String>> {
    py.allow_threads(|| api::trace_files(&dir))
        .map_err(|e| raise(e, true))
}

/// The pairing of `veer diff DIR DIR`: (files in both, baseline only, candidate only).
#[pyfunction]
fn pair_directories(
    py: Python<'_>,
    baseline: String,
    candidate: String,
) -> PyResult<api::DirectoryPairing> {
    py.allow_threads(|| api::pair_directories(&baseline, &candidate))
        .map_err(|e| raise(e, true))
}

/// One pair's response fingerprints as `veer diff DIR DIR` computes them: (baseline bytes,
/// candidate bytes), each row 12 little-endian doubles.
#[pyfunction]
fn fingerprint_rows(
    py: Python<'_>,
    baseline: String,
    candidate: String,
) -> PyResult<(Py<PyBytes>, Py<PyBytes>)> {
    let (b, c) = py
        .allow_threads(|| api::pooled::fingerprint_rows(&baseline, &candidate))
        .map_err(|e| raise(e, true))?;
    Ok((PyBytes::new(py, &b).unbind(), PyBytes::new(py, &c).unbind()))
}

/// Directory mode's pooled fingerprint test (the engine's pool): `push` each pair's rows in
/// path order, then `finish(second_pass, fail_on)`; `second_pass` is a callable returning an
/// iterable of the same (baseline, candidate) bytes in the same order, called only when the
/// pool kept sums (`needs_second_pass`).
#[pyclass(module = "veer._native")]
struct Pool {
    inner: Option<api::pooled::FingerprintPool>,
}

/// The error of a pool used after `finish`.
fn finished() -> PyErr {
    raise(
        crate::error::input("this pool is finished", "make a new pool for another test"),
        true,
    )
}

impl Pool {
    fn inner(&mut self) -> PyResult<&mut api::pooled::FingerprintPool> {
        self.inner.as_mut().ok_or_else(finished)
    }
}

#[pymethods]
impl Pool {
    #[new]
    fn new() -> Pool {
        Pool {
            inner: Some(api::pooled::FingerprintPool::new()),
        }
    }

    /// Adds the next pair's rows.
    fn push(&mut self, baseline: &[u8], candidate: &[u8]) -> PyResult<()> {
        self.inner()?
            .push(baseline, candidate)
            .map_err(|e| raise(e, true))
    }

    /// Pairs pushed so far.
    fn pairs(&mut self) -> PyResult<usize> {
        Ok(self.inner()?.pairs())
    }

    /// Whether `finish` will call its second pass.
    fn needs_second_pass(&mut self) -> PyResult<bool> {
        Ok(self.inner()?.needs_second_pass())
    }

    /// The pooled block's JSON (or "null") and the verdict's JSON.
    fn finish(
        &mut self,
        py: Python<'_>,
        second_pass: PyObject,
        fail_on: String,
    ) -> PyResult<(String, String)> {
        let pool = self.inner.take().ok_or_else(finished)?;
        let mut failure: Option<PyErr> = None;
        let result = pool.finish(
            |take| {
                let mut feed = || -> PyResult<()> {
                    let rows = second_pass.call0(py)?;
                    for item in rows.bind(py).try_iter()? {
                        let (b, c): (Bound<'_, PyBytes>, Bound<'_, PyBytes>) = item?.extract()?;
                        take(
                            api::pooled::decode_pair(b.as_bytes(), c.as_bytes())
                                .map_err(|e| raise(e, true))?,
                        );
                    }
                    Ok(())
                };
                feed().map_err(|e| {
                    failure = Some(e);
                    crate::error::input("the second pass failed", "see the Python error")
                })
            },
            &fail_on,
        );
        if let Some(e) = failure {
            return Err(e);
        }
        result.map_err(|e| raise(e, true))
    }
}

/// The native half of the `veer` package.
#[pymodule]
#[pyo3(name = "_native")]
fn native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // Every call redacts its own output (`redact=`, default on) with an explicit detector, so
    // the process-wide setting the printers fall back on is off: `redact=False` must give the
    // text verbatim, as the CLI's `--no-redact` does.
    veer_secrets::display::set_redaction(false);
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("NativeError", m.py().get_type::<NativeError>())?;
    m.add_function(wrap_pyfunction!(diff, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(check, m)?)?;
    m.add_function(wrap_pyfunction!(experiment_pair, m)?)?;
    m.add_function(wrap_pyfunction!(convert, m)?)?;
    m.add_function(wrap_pyfunction!(merge_summaries, m)?)?;
    m.add_function(wrap_pyfunction!(empty_summary, m)?)?;
    m.add_function(wrap_pyfunction!(finish_summary, m)?)?;
    m.add_function(wrap_pyfunction!(trace_files, m)?)?;
    m.add_function(wrap_pyfunction!(pair_directories, m)?)?;
    m.add_function(wrap_pyfunction!(fingerprint_rows, m)?)?;
    m.add_class::<Pool>()?;
    Ok(())
}
