//! The TopicMerger: same-process routing from writers to readers, with no socket and no copy.
//!
//! One table per process, keyed by (domain, topic), so that the participants of several ROS
//! contexts in one process reach each other too. The table is touched only when an endpoint is
//! created or deleted; a write walks its own writer's matched-reader list, never this table.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use crate::qos::Qos;
use crate::runtime::reader::ReaderShared;
use crate::runtime::writer::WriterShared;
use crate::wire::GuidPrefix;

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
/// and the offered QoS satisfies the requested one. A mismatch is simply no route; statuses report
/// it once the engine has them.
fn matches(w: &WriterShared, r: &ReaderShared) -> bool {
    w.type_name == r.type_name
        && w.guid.entity_id.is_keyed() == r.guid.entity_id.is_keyed()
        && Qos::offered_satisfies(&w.qos, &r.qos).is_ok()
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
