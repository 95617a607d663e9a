//! veer's seeded random-number generators, one home for every measure that draws: each is a
//! pure function of its seed (integer arithmetic only, so the same seed gives the same words on
//! every platform and at every thread count), and each caller owns its generator.
//!
//! - [`ChaCha12`]: the diff's bootstrap and fingerprint tests and the perturbation operators
//!   (spec `diff.md` §3.2, `experiment.md` §13.6).
//! - [`TrialRng`] (xoshiro256**) and [`derive_seed`]: the Monte Carlo p-values of repeated
//!   trials (docs/internals/trials-method.md).
//! - [`SplitMix64`]: the seeding step of [`TrialRng`], and the synthetic-trace generator of
//!   `veer synth`.

mod chacha;
mod splitmix;
mod xoshiro;

pub use chacha::ChaCha12;
pub use splitmix::SplitMix64;
pub use xoshiro::{derive_seed, TrialRng};
