//! CDR (OMG CDR / XCDR1) encoding of payloads and parameter lists.
