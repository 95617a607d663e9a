//! veer-report
