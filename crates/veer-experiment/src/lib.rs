//! veer-experiment
