//! veer-policy
