//! The TopicMerger: same-process routing from writers to readers, with no socket and no copy.
//!
//! One table per process, keyed by (domain, topic), so that the participants of several ROS
//! contexts in one process reach each other too. The table is touched only when an endpoint is
//! created or deleted; a write walks its own writer's matched-reader list, never this table.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use crate::discovery::matching::partitions_match;
use crate::discovery::MatchError;
use crate::qos::Qos;
use crate::runtime::reader::ReaderShared;
use crate::runtime::writer::WriterShared;
use crate::wire::{Guid, GuidPrefix};

/// What a same-process writer and reader must share to be routed to each other.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TopicKey {
    pub domain_id: u32,
    pub name: String,
    /// `None` for the process-wide routes; a participant that opted out of same-process routing
    /// with the others (a test aid) routes among its own endpoints only, under its GUID prefix.
    pub scope: Option<GuidPrefix>,
}

#[derive(Default)]
struct Route {
    writers: Vec<Arc<WriterShared>>,
    readers: Vec<Arc<ReaderShared>>,
}

pub(crate) struct TopicMerger {
    routes: Mutex<HashMap<TopicKey, Route>>,
}

/// The process's one TopicMerger.
pub(crate) fn merger() -> &'static TopicMerger {
    static MERGER: OnceLock<TopicMerger> = OnceLock::new();
    MERGER.get_or_init(|| TopicMerger { routes: Mutex::new(HashMap::new()) })
}

/// A writer and a reader match when their type names are equal, both are keyed or both keyless,
/// and the offered QoS satisfies the requested one, unless the reader ignores its own participant's writers. A mismatch is no route;
/// an incompatible QoS is also counted on both sides (OFFERED_ / REQUESTED_INCOMPATIBLE_QOS), as
/// for remote endpoints.
fn matches(w: &WriterShared, r: &ReaderShared) -> bool {
    if w.type_name != r.type_name
        || w.guid.entity_id.is_keyed() != r.guid.entity_id.is_keyed()
        || (r.ignore_local_participant && w.guid.prefix == r.guid.prefix)
        || !partitions_match(&w.partition, &r.partition)
    {
        return false;
    }
    match Qos::offered_satisfies(&w.qos, &r.qos) {
        Ok(()) => true,
        Err(p) => {
            let e = MatchError::IncompatibleQos(p.into());
            w.record_mismatch(e);
            r.record_mismatch(e);
            false
        }
    }
}

impl TopicMerger {
    fn lock(&self) -> MutexGuard<'_, HashMap<TopicKey, Route>> {
        self.routes.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(crate) fn add_writer(&self, w: &Arc<WriterShared>) {
        let mut routes = self.lock();
        let route = routes.entry(w.topic.clone()).or_default();
        for r in route.readers.iter().filter(|r| matches(w, r)) {
            w.attach_reader(r);
        }
        route.writers.push(Arc::clone(w));
    }

    pub(crate) fn add_reader(&self, r: &Arc<ReaderShared>) {
        let mut routes = self.lock();
        let route = routes.entry(r.topic.clone()).or_default();
        for w in route.writers.iter().filter(|w| matches(w, r)) {
            w.attach_reader(r);
        }
        route.readers.push(Arc::clone(r));
    }

    /// Whether the same-process writer `writer` on `topic` delivers to `reader`.
    pub(crate) fn writer_delivers_to(&self, topic: &TopicKey, writer: Guid, reader: Guid) -> bool {
        let routes = self.lock();
        routes
            .get(topic)
            .and_then(|route| route.writers.iter().find(|w| w.guid == writer))
            .is_some_and(|w| w.delivers_to(reader))
    }

    pub(crate) fn remove_writer(&self, w: &Arc<WriterShared>) {
        let mut routes = self.lock();
        w.detach_all();
        if let Some(route) = routes.get_mut(&w.topic) {
            route.writers.retain(|x| !Arc::ptr_eq(x, w));
            if route.writers.is_empty() && route.readers.is_empty() {
                routes.remove(&w.topic);
            }
        }
    }

    pub(crate) fn remove_reader(&self, r: &Arc<ReaderShared>) {
        let mut routes = self.lock();
        if let Some(route) = routes.get_mut(&r.topic) {
            for w in &route.writers {
                w.detach_reader(r);
            }
            route.readers.retain(|x| !Arc::ptr_eq(x, r));
            if route.writers.is_empty() && route.readers.is_empty() {
                routes.remove(&r.topic);
            }
        }
    }
}
