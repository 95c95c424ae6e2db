//! Discovery events: what a participant knows of the DDS graph (participants, writers, readers),
//! as "alive" and "gone" events for one listener, the RMW layer's graph cache.
//!
//! Each participant has one [`Graph`]: the set of entities it currently knows alive, and its
//! listener. Three sources feed it:
//! - its own endpoints, when they are created and deleted (`local: true`);
//! - the network runtime (`net/spdp.rs`, `net/sedp.rs`): remote participants and endpoints, on the
//!   receive thread (SPDP/SEDP data) and the timer thread (lease expiry); a participant that
//!   leaves has its endpoints reported gone first, then itself;
//! - the other participants of this process that share the same-process routes (the TopicMerger
//!   serves them, so the network ignores their announcements): every such participant in the same
//!   domain sees the others' participant and endpoints (`local: false`), through the process-wide
//!   registry here.
//!
//! Threads and locks: an event is recorded and queued under the graph's own lock (a leaf: taken
//! after any network lock, never held while calling out) and delivered by [`Graph::dispatch`],
//! which the producing thread calls once it holds no engine lock. Events reach the listener one at
//! a time and in order: if another thread is delivering at that moment, that thread delivers the
//! new event too, right after its own, and the producer returns at once. So a callback runs on the
//! thread that produced the event (creating/deleting thread, receive thread, timer thread, or the
//! one that set the listener, for the replay) or on another of these threads; never with an engine
//! lock held, so it may call back into the engine (create endpoints, write, set the listener).
//!
//! Setting a listener replays, before it returns, every entity known alive (participants first,
//! then endpoints); the replay and later events are one sequence, so nothing is missed or
//! reported twice. After setting returns, the previous listener is never called again (unless the
//! listener is set from inside a callback: the callback that is running finishes).

use std::collections::{HashMap, VecDeque};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, Weak};
use std::thread::ThreadId;

use crate::qos::Qos;
use crate::wire::{Guid, VendorId};

/// A participant as discovery describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParticipantInfo {
    pub guid: Guid,
    pub vendor_id: VendorId,
    /// PID_USER_DATA (ROS: `enclave=<path>;`).
    pub user_data: Arc<[u8]>,
}

/// A writer or reader as discovery describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EndpointInfo {
    pub guid: Guid,
    pub participant_guid: Guid,
    pub vendor_id: VendorId,
    pub is_reader: bool,
    pub topic_name: String,
    pub type_name: String,
    /// The engine's view of the endpoint's QoS (TRANSIENT and PERSISTENT read as TRANSIENT_LOCAL).
    pub qos: Qos,
    /// The endpoint's USER_DATA (rmw_cyclonedds_cpp's `clientid=...;` / `serviceid=...;`).
    pub user_data: Arc<[u8]>,
}

/// One change of the graph. `local` is true for this participant and its own endpoints. An
/// "alive" event for an entity already reported alive means its data changed (a participant's
/// USER_DATA); an endpoint whose data changes is reported gone, then alive with the new data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DiscoveryEvent {
    Participant { info: Arc<ParticipantInfo>, alive: bool, local: bool },
    Endpoint { info: Arc<EndpointInfo>, alive: bool, local: bool },
}

/// Receives discovery events (see the module documentation for the thread it runs on).
pub type DiscoveryListener = Arc<dyn Fn(&DiscoveryEvent) + Send + Sync>;

/// What one participant knows of the graph, and its listener.
pub(crate) struct Graph {
    domain_id: u32,
    /// Shares the same-process routes with the other such participants of its domain.
    intra: bool,
    me: Arc<ParticipantInfo>,
    state: Mutex<State>,
    /// Signalled after each callback returns (a listener change waits for the running one).
    called: Condvar,
}

#[derive(Default)]
struct State {
    /// Known alive, this participant excepted (none of them is local).
    participants: HashMap<Guid, Arc<ParticipantInfo>>,
    /// Known alive; the flag says "local" (this participant's own).
    endpoints: HashMap<Guid, (Arc<EndpointInfo>, bool)>,
    listener: Option<DiscoveryListener>,
    /// Events for the current listener, not delivered yet.
    queue: VecDeque<DiscoveryEvent>,
    dispatching: bool,
    /// The thread inside a callback, if one is.
    calling: Option<ThreadId>,
    /// The participant is gone: local changes are no longer shared with the process's others.
    closed: bool,
}

/// The graphs of this process's participants that use the same-process routes. Lock order: this,
/// then a graph's state.
static INTRA_GRAPHS: Mutex<Vec<Weak<Graph>>> = Mutex::new(Vec::new());

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The other live same-process graphs of `domain_id` (the registry lock is held by the caller).
fn peers(registry: &mut Vec<Weak<Graph>>, me: &Graph) -> Vec<Arc<Graph>> {
    registry.retain(|w| w.strong_count() > 0);
    registry
        .iter()
        .filter_map(Weak::upgrade)
        .filter(|g| g.domain_id == me.domain_id && !std::ptr::eq(Arc::as_ptr(g), me))
        .collect()
}

impl Graph {
    /// A participant's graph. One that uses the same-process routes learns the other such
    /// participants of its domain (and they learn it) at once.
    pub(crate) fn new(domain_id: u32, intra: bool, me: ParticipantInfo) -> Arc<Graph> {
        let g = Arc::new(Graph {
            domain_id,
            intra,
            me: Arc::new(me),
            state: Mutex::new(State::default()),
            called: Condvar::new(),
        });
        if intra {
            let mut registry = lock(&INTRA_GRAPHS);
            let others = peers(&mut registry, &g);
            {
                let mut st = g.lock();
                for o in &others {
                    st.participants.insert(o.me.guid, Arc::clone(&o.me));
                    let ost = o.lock();
                    for (info, _) in ost.endpoints.values().filter(|(_, local)| *local) {
                        st.endpoints.insert(info.guid, (Arc::clone(info), false));
                    }
                }
            }
            for o in &others {
                o.participant_changed(Arc::clone(&g.me), true, false);
            }
            registry.push(Arc::downgrade(&g));
            drop(registry);
            for o in &others {
                o.dispatch();
            }
        }
        g
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        lock(&self.state)
    }

    /// This participant.
    pub(crate) fn me(&self) -> &Arc<ParticipantInfo> {
        &self.me
    }

    /// Records a participant (not this one) alive or gone and queues the event if it changes
    /// what is known. Call [`Graph::dispatch`] once no engine lock is held.
    pub(crate) fn participant_changed(&self, info: Arc<ParticipantInfo>, alive: bool, local: bool) {
        let mut st = self.lock();
        let changed = if alive {
            st.participants.insert(info.guid, Arc::clone(&info)).map_or(true, |old| *old != *info)
        } else {
            st.participants.remove(&info.guid).is_some()
        };
        if changed && st.listener.is_some() {
            st.queue.push_back(DiscoveryEvent::Participant { info, alive, local });
        }
    }

    /// Records an endpoint alive or gone and queues the event if it changes what is known.
    pub(crate) fn endpoint_changed(&self, info: Arc<EndpointInfo>, alive: bool, local: bool) {
        let mut st = self.lock();
        let changed = if alive {
            match st.endpoints.insert(info.guid, (Arc::clone(&info), local)) {
                None => true,
                Some((old, _)) if *old == *info => false,
                Some((old, old_local)) => {
                    if st.listener.is_some() {
                        st.queue.push_back(DiscoveryEvent::Endpoint { info: old, alive: false, local: old_local });
                    }
                    true
                }
            }
        } else {
            st.endpoints.remove(&info.guid).is_some()
        };
        if changed && st.listener.is_some() {
            st.queue.push_back(DiscoveryEvent::Endpoint { info, alive, local });
        }
    }

    /// The endpoints known alive that `participant` owns (for its departure).
    pub(crate) fn endpoints_of(&self, participant: Guid) -> Vec<Arc<EndpointInfo>> {
        let st = self.lock();
        st.endpoints.values().filter(|(e, _)| e.participant_guid == participant).map(|(e, _)| Arc::clone(e)).collect()
    }

    /// A remote participant left: its endpoints are reported gone, then itself.
    pub(crate) fn participant_left(&self, participant: Guid) {
        for e in self.endpoints_of(participant) {
            self.endpoint_changed(e, false, false);
        }
        let info = self.lock().participants.get(&participant).cloned();
        if let Some(info) = info {
            self.participant_changed(info, false, false);
        }
        let mut st = self.lock();
        crate::capacity::release_peak(&mut st.endpoints);
        crate::capacity::release_peak(&mut st.participants);
    }

    /// One of this participant's endpoints was created or deleted: recorded here and, for a
    /// participant on the same-process routes, in the graphs of the others of its domain. Delivers
    /// the events before returning; call it with no engine lock held.
    pub(crate) fn local_endpoint(&self, info: Arc<EndpointInfo>, alive: bool) {
        let mut others = Vec::new();
        {
            let mut registry = self.intra.then(|| lock(&INTRA_GRAPHS));
            if let Some(reg) = registry.as_mut() {
                if !self.lock().closed {
                    others = peers(reg, self);
                }
            }
            self.endpoint_changed(Arc::clone(&info), alive, true);
            for o in &others {
                o.endpoint_changed(Arc::clone(&info), alive, false);
            }
        }
        self.dispatch();
        for o in &others {
            o.dispatch();
        }
    }

    /// The participant is being deleted: the listener is cleared (waiting for a running callback
    /// on another thread), and the other same-process participants learn that its endpoints and
    /// itself are gone.
    pub(crate) fn close(self: &Arc<Graph>) {
        self.set_listener(None);
        let mut others = Vec::new();
        {
            let mut registry = lock(&INTRA_GRAPHS);
            let mine: Vec<Arc<EndpointInfo>> = {
                let mut st = self.lock();
                if st.closed {
                    return;
                }
                st.closed = true;
                st.endpoints.values().filter(|(_, local)| *local).map(|(e, _)| Arc::clone(e)).collect()
            };
            if self.intra {
                others = peers(&mut registry, self);
                registry.retain(|w| !std::ptr::eq(w.as_ptr(), Arc::as_ptr(self)));
            }
            for o in &others {
                for e in &mine {
                    o.endpoint_changed(Arc::clone(e), false, false);
                }
                o.participant_changed(Arc::clone(&self.me), false, false);
            }
        }
        for o in &others {
            o.dispatch();
        }
    }

    /// Replaces the listener (None clears it). A new listener first gets every entity known
    /// alive, before this returns. The previous listener is never called after this returns,
    /// unless this runs inside one of its callbacks.
    pub(crate) fn set_listener(&self, listener: Option<DiscoveryListener>) {
        let me = std::thread::current().id();
        let mut st = self.lock();
        while st.calling.is_some_and(|t| t != me) {
            st = self.called.wait(st).unwrap_or_else(|p| p.into_inner());
        }
        st.queue.clear();
        st.listener = listener;
        if st.listener.is_some() {
            let mut replay = vec![DiscoveryEvent::Participant { info: Arc::clone(&self.me), alive: true, local: true }];
            replay.extend(st.participants.values().map(|p| DiscoveryEvent::Participant {
                info: Arc::clone(p),
                alive: true,
                local: false,
            }));
            // Local endpoints first, then the others: a stable order for the listener.
            let mut eps: Vec<_> = st.endpoints.values().cloned().collect();
            eps.sort_by_key(|(e, local)| (!*local, e.guid));
            replay.extend(eps.into_iter().map(|(info, local)| DiscoveryEvent::Endpoint { info, alive: true, local }));
            st.queue.extend(replay);
        }
        drop(st);
        self.dispatch();
    }

    /// Delivers the queued events, unless another thread is doing so (it will deliver them). Call
    /// with no engine lock held.
    pub(crate) fn dispatch(&self) {
        let me = std::thread::current().id();
        let mut st = self.lock();
        if st.dispatching {
            return;
        }
        st.dispatching = true;
        loop {
            let (Some(ev), Some(listener)) = (st.queue.pop_front(), st.listener.clone()) else { break };
            st.calling = Some(me);
            drop(st);
            // A panicking Rust listener must not leave the graph stuck in "dispatching".
            let _ = catch_unwind(AssertUnwindSafe(|| listener(&ev)));
            st = self.lock();
            st.calling = None;
            self.called.notify_all();
        }
        st.queue.clear();
        st.dispatching = false;
    }

    /// What is known alive now, this participant first.
    pub(crate) fn snapshot(&self) -> (Vec<Arc<ParticipantInfo>>, Vec<Arc<EndpointInfo>>) {
        let st = self.lock();
        let mut ps = vec![Arc::clone(&self.me)];
        ps.extend(st.participants.values().cloned());
        (ps, st.endpoints.values().map(|(e, _)| Arc::clone(e)).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{EntityId, GuidPrefix, VENDOR_ID_HDDS};

    fn pinfo(n: u8) -> ParticipantInfo {
        ParticipantInfo {
            guid: Guid::new(GuidPrefix([n; 12]), EntityId::PARTICIPANT),
            vendor_id: VENDOR_ID_HDDS,
            user_data: Arc::from(&b"enclave=/;"[..]),
        }
    }

    fn einfo(p: u8, key: u8) -> Arc<EndpointInfo> {
        Arc::new(EndpointInfo {
            guid: Guid::new(GuidPrefix([p; 12]), EntityId([0, 0, key, 3])),
            participant_guid: Guid::new(GuidPrefix([p; 12]), EntityId::PARTICIPANT),
            vendor_id: VENDOR_ID_HDDS,
            is_reader: false,
            topic_name: "t".into(),
            type_name: "T".into(),
            qos: Qos::default(),
            user_data: Arc::from(&[][..]),
        })
    }

    type Log = Arc<Mutex<Vec<(Guid, bool, bool)>>>;

    fn recorder() -> (Log, DiscoveryListener) {
        let log: Log = Arc::default();
        let l = Arc::clone(&log);
        let listener: DiscoveryListener = Arc::new(move |ev: &DiscoveryEvent| {
            let e = match ev {
                DiscoveryEvent::Participant { info, alive, local } => (info.guid, *alive, *local),
                DiscoveryEvent::Endpoint { info, alive, local } => (info.guid, *alive, *local),
            };
            lock(&l).push(e);
        });
        (log, listener)
    }

    #[test]
    fn replay_then_changes_in_order_and_departure_reports_endpoints_first() {
        // Not on the same-process routes: no other test's graphs interfere.
        let g = Graph::new(7, false, pinfo(1));
        let remote = Arc::new(pinfo(2));
        g.participant_changed(Arc::clone(&remote), true, false);
        g.endpoint_changed(einfo(2, 1), true, false);
        let (log, l) = recorder();
        g.set_listener(Some(l));
        assert_eq!(
            *lock(&log),
            [(pinfo(1).guid, true, true), (remote.guid, true, false), (einfo(2, 1).guid, true, false)]
        );
        lock(&log).clear();
        g.endpoint_changed(einfo(2, 1), true, false);
        g.participant_changed(Arc::clone(&remote), true, false);
        g.dispatch();
        assert!(lock(&log).is_empty(), "nothing changed, nothing reported");
        g.endpoint_changed(einfo(2, 2), true, false);
        g.participant_left(remote.guid);
        g.dispatch();
        let got = lock(&log).clone();
        assert_eq!(got.len(), 4);
        assert_eq!(got[3], (remote.guid, false, false), "the participant goes last");
        assert!(got[1..3].iter().all(|(_, alive, _)| !alive));
        g.set_listener(None);
        g.endpoint_changed(einfo(2, 3), true, false);
        g.dispatch();
        assert_eq!(lock(&log).len(), 4, "no listener, no call");
    }

    #[test]
    fn a_callback_may_set_the_listener_and_a_panicking_one_does_not_stick() {
        let g = Graph::new(7, false, pinfo(3));
        let g2 = Arc::clone(&g);
        let (log, l) = recorder();
        let swap: DiscoveryListener = Arc::new(move |_: &DiscoveryEvent| g2.set_listener(Some(Arc::clone(&l))));
        g.set_listener(Some(swap));
        assert_eq!(lock(&log).len(), 1, "the new listener got the replay");
        g.set_listener(Some(Arc::new(|_: &DiscoveryEvent| panic!("listener bug"))));
        let (log, l) = recorder();
        g.set_listener(Some(l));
        assert_eq!(lock(&log).len(), 1);
    }

    #[test]
    fn same_process_participants_see_each_other() {
        let a = Graph::new(231, true, pinfo(10));
        let ea = einfo(10, 1);
        a.local_endpoint(Arc::clone(&ea), true);
        let b = Graph::new(231, true, pinfo(11));
        let (log, l) = recorder();
        b.set_listener(Some(l));
        assert_eq!(*lock(&log), [(pinfo(11).guid, true, true), (pinfo(10).guid, true, false), (ea.guid, true, false)]);
        lock(&log).clear();
        let eb = einfo(11, 1);
        b.local_endpoint(Arc::clone(&eb), true);
        assert_eq!(a.snapshot().1.len(), 2, "a learned b's endpoint");
        a.close();
        assert_eq!(*lock(&log), [(eb.guid, true, true), (ea.guid, false, false), (pinfo(10).guid, false, false)]);
        b.close();
    }
}
