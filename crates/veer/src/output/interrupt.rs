//! Interrupts never leave a half-written output behind.
//!
//! Every temporary file an output write creates is registered here while it exists. On SIGINT,
//! SIGTERM or SIGHUP a watcher thread removes the registered files and then ends the process by
//! that same signal (so a shell sees `130` for Ctrl-C, `143` for SIGTERM). The files being
//! replaced are untouched: they only ever change by a rename, which either happened or did not.
//!
//! One lock guards the registry. The writer holds it while it creates a temporary file and while
//! it renames one, and the watcher holds it while it cleans up and ends the process, so a file is
//! never created after the clean-up nor renamed half-way through it.

use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

/// The temporary files that exist right now.
static TEMPORARIES: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn registry() -> MutexGuard<'static, Vec<PathBuf>> {
    // A poisoned lock only means a thread panicked while holding it; the list is still valid.
    TEMPORARIES.lock().unwrap_or_else(|e| e.into_inner())
}

/// Starts the watcher thread. Call once, at start-up; without it signals keep their default
/// action (and a temporary file may be left behind).
pub fn install() {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
        return;
    };
    let _ = std::thread::Builder::new()
        .name("veer-signals".into())
        .spawn(move || {
            if let Some(signal) = signals.forever().next() {
                let guard = registry();
                for path in guard.iter() {
                    let _ = fs::remove_file(path);
                }
                // Die by the signal itself, holding the lock so no write resumes meanwhile.
                let _ = signal_hook::low_level::emulate_default_handler(signal);
                std::process::exit(128 + signal);
            }
        });
}

/// Creates the temporary file `path` (failing if it exists) and registers it.
pub fn create_temporary(path: &Path) -> io::Result<File> {
    let mut guard = registry();
    let file = File::options().write(true).create_new(true).open(path)?;
    guard.push(path.to_path_buf());
    Ok(file)
}

/// Renames the registered temporary file `from` over `to` and forgets it.
pub fn rename_temporary(from: &Path, to: &Path) -> io::Result<()> {
    let mut guard = registry();
    fs::rename(from, to)?;
    guard.retain(|p| p != from);
    Ok(())
}

/// Removes the registered temporary file `path` (if it is still there) and forgets it.
pub fn remove_temporary(path: &Path) {
    let mut guard = registry();
    let _ = fs::remove_file(path);
    guard.retain(|p| p != path);
}
