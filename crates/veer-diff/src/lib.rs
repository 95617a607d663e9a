//! veer-diff
