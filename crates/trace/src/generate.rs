//! generator placeholder
