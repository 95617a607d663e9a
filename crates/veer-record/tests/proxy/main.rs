//! The proxy driven by a real HTTP client against a scripted upstream: pass-through, records,
//! faults, concurrency and live policy. The real Python SDKs are driven in `sdk.rs`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../support/mod.rs"]
mod support;

mod calls;
mod faults;
mod order;
mod policy;
mod replay;
mod rig;
mod sdk;
