//! How samples move between writers and readers. Today: [`intra`], same-process delivery.
pub mod intra;
