//! Statuses an endpoint reports about its matching with remote endpoints.

use crate::discovery::{MatchError, QosPolicy};

/// Remote endpoints on the same topic that did not match this one, and why. The RMW layer reports
/// the QoS part as OFFERED/REQUESTED_INCOMPATIBLE_QOS events.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MatchStatus {
    /// Remote endpoints whose QoS was incompatible with ours (DDS's total_count).
    pub incompatible_qos_count: u32,
    /// The policy that failed last (DDS's last_policy_id).
    pub last_incompatible_policy: Option<QosPolicy>,
    /// Every mismatch on the same topic, QoS or not (type name, keyed-ness, partition).
    pub mismatch_count: u32,
    pub last_mismatch: Option<MatchError>,
}

impl MatchStatus {
    pub(crate) fn record(&mut self, e: MatchError) {
        self.mismatch_count = self.mismatch_count.saturating_add(1);
        self.last_mismatch = Some(e);
        if let Some(p) = e.policy() {
            self.incompatible_qos_count = self.incompatible_qos_count.saturating_add(1);
            self.last_incompatible_policy = Some(p);
        }
    }
}
