//! The C ABI driven from Rust the way a C program drives it: raw pointers in, out-parameters,
//! callbacks with a user pointer, handles destroyed in any order the header allows. Every
//! `unsafe` block of hdds_ffi is on these paths, so that Miri (`cargo +nightly miri test -p
//! hdds_ffi`, docs/checks.md) checks them for undefined behaviour: dangling or misaligned
//! pointers, out-of-bounds slices, double frees, leaks. Same-process participants only: Miri
//! cannot open sockets.

use std::ffi::{c_void, CStr};
use std::ptr;
use std::sync::atomic::{AtomicUsize, Ordering};

use hdds_ffi::condition::*;
use hdds_ffi::discovery::*;
use hdds_ffi::endpoint::*;
use hdds_ffi::loan::*;
use hdds_ffi::participant::*;
use hdds_ffi::qos::*;
use hdds_ffi::reader_loan::*;
use hdds_ffi::ret::*;
use hdds_ffi::sample::*;
use hdds_ffi::status::*;
use hdds_ffi::waitset::*;

const PAYLOAD: [u8; 8] = [0, 1, 0, 0, 7, 0, 0, 0];

fn last_error() -> String {
    // SAFETY: hdds_last_error always returns a valid NUL-terminated string.
    unsafe { CStr::from_ptr(hdds_last_error()) }.to_string_lossy().into_owned()
}

fn participant(domain: u32) -> *mut HddsParticipant {
    let mut p = ptr::null_mut();
    assert_eq!(hdds_participant_create(domain, &mut p), HddsRet::Ok, "{}", last_error());
    assert!(!p.is_null());
    p
}

/// A writer and a reader of `topic` (type "T", default QoS) in participant `p`.
fn writer_and_reader(p: *mut HddsParticipant, topic: &CStr) -> (*mut HddsWriter, *mut HddsReader) {
    let mut w = ptr::null_mut();
    let mut r = ptr::null_mut();
    assert_eq!(hdds_writer_create(p, topic.as_ptr(), c"T".as_ptr(), ptr::null(), &mut w), HddsRet::Ok);
    assert_eq!(hdds_reader_create(p, topic.as_ptr(), c"T".as_ptr(), ptr::null(), &mut r), HddsRet::Ok);
    (w, r)
}

extern "C" fn count_data(user: *const c_void, count: usize) {
    // SAFETY: the user pointer is the &AtomicUsize the test registered, alive until the reader goes.
    unsafe { &*user.cast::<AtomicUsize>() }.fetch_add(count, Ordering::SeqCst);
}

extern "C" fn count_status(user: *const c_void, _status: u32) {
    // SAFETY: as in count_data.
    unsafe { &*user.cast::<AtomicUsize>() }.fetch_add(1, Ordering::SeqCst);
}

extern "C" fn on_participant(user: *const c_void, ev: *const HddsParticipantEvent) {
    // SAFETY: the engine passes a valid event for the duration of the call; user as in count_data.
    let ev = unsafe { &*ev };
    if ev.user_data_len > 0 {
        // SAFETY: the event's user_data points to user_data_len bytes during the call.
        let _ = unsafe { std::slice::from_raw_parts(ev.user_data, ev.user_data_len) }.to_vec();
    }
    // SAFETY: as in count_data.
    unsafe { &*user.cast::<AtomicUsize>() }.fetch_add(1, Ordering::SeqCst);
}

extern "C" fn on_endpoint(user: *const c_void, ev: *const HddsEndpointEvent) {
    // SAFETY: as in on_participant.
    let ev = unsafe { &*ev };
    // SAFETY: topic and type names are NUL-terminated strings valid during the call.
    let topic = unsafe { CStr::from_ptr(ev.topic_name) }.to_str().unwrap().to_owned();
    // SAFETY: as above.
    let _ = unsafe { CStr::from_ptr(ev.type_name) }.to_str().unwrap();
    if ev.user_data_len > 0 {
        // SAFETY: user_data_len bytes during the call.
        let _ = unsafe { std::slice::from_raw_parts(ev.user_data, ev.user_data_len) }.to_vec();
    }
    if topic == "rt/abi" {
        // SAFETY: as in count_data.
        unsafe { &*user.cast::<AtomicUsize>() }.fetch_add(1, Ordering::SeqCst);
    }
}

#[test]
fn write_take_wait_listen_and_destroy_through_raw_pointers() {
    let p = participant(41);
    let events = AtomicUsize::new(0);
    let user = ptr::from_ref(&events).cast::<c_void>();
    assert_eq!(hdds_participant_set_discovery_listener(p, Some(on_participant), Some(on_endpoint), user), HddsRet::Ok);

    let mut qos = std::mem::MaybeUninit::<HddsQos>::uninit();
    assert_eq!(hdds_qos_default(qos.as_mut_ptr()), HddsRet::Ok);
    // SAFETY: hdds_qos_default filled it.
    let qos = unsafe { qos.assume_init() };

    let user_data = b"clientid=01.02;";
    let opts = HddsEndpointOptions {
        user_data: user_data.as_ptr(),
        user_data_len: user_data.len(),
        ignore_local_participant: false,
    };
    let mut w = ptr::null_mut();
    let mut r = ptr::null_mut();
    assert_eq!(hdds_writer_create_ex(p, c"rt/abi".as_ptr(), c"T".as_ptr(), &qos, &opts, &mut w), HddsRet::Ok);
    assert_eq!(hdds_reader_create(p, c"rt/abi".as_ptr(), c"T".as_ptr(), &qos, &mut r), HddsRet::Ok);
    assert!(events.load(Ordering::SeqCst) >= 2, "both local endpoints reported");

    let data_calls = AtomicUsize::new(0);
    let status_calls = AtomicUsize::new(0);
    let dc = ptr::from_ref(&data_calls).cast::<c_void>();
    let sc = ptr::from_ref(&status_calls).cast::<c_void>();
    assert_eq!(hdds_reader_set_data_listener(r, Some(count_data), dc), HddsRet::Ok);
    assert_eq!(hdds_reader_set_status_listener(r, Some(count_status), sc), HddsRet::Ok);
    assert_eq!(hdds_writer_set_status_listener(w, Some(count_status), sc), HddsRet::Ok);

    let mut wguid = [0u8; 16];
    let mut rguid = [0u8; 16];
    assert_eq!(hdds_writer_guid(w, wguid.as_mut_ptr()), HddsRet::Ok);
    assert_eq!(hdds_reader_guid(r, rguid.as_mut_ptr()), HddsRet::Ok);
    let mut matched = false;
    assert_eq!(hdds_writer_has_matched_reader(w, rguid.as_ptr(), &mut matched), HddsRet::Ok);
    assert!(matched);
    assert_eq!(hdds_reader_has_matched_writer(r, wguid.as_ptr(), &mut matched), HddsRet::Ok);
    assert!(matched);
    let mut n = 0usize;
    assert_eq!(hdds_writer_matched_count(w, &mut n), HddsRet::Ok);
    assert_eq!(n, 1);

    // A wait set over the reader's data and a guard condition, entries in caller memory.
    let mut ws = ptr::null_mut();
    let mut gc = ptr::null_mut();
    assert_eq!(hdds_waitset_create(&mut ws), HddsRet::Ok);
    assert_eq!(hdds_guard_condition_create(std::ptr::null(), &mut gc), HddsRet::Ok);
    let mut entries = [
        HddsWaitEntry { kind: HDDS_WAIT_READER_DATA, handle: r.cast_const().cast(), status_mask: 0, ready: false },
        HddsWaitEntry { kind: HDDS_WAIT_GUARD, handle: gc.cast_const().cast(), status_mask: 0, ready: false },
        HddsWaitEntry {
            kind: HDDS_WAIT_WRITER_STATUS,
            handle: w.cast_const().cast(),
            status_mask: HDDS_STATUS_OFFERED_DEADLINE_MISSED,
            ready: false,
        },
    ];
    assert_eq!(hdds_waitset_wait(ws, entries.as_mut_ptr(), entries.len(), 0), HddsRet::Timeout);
    assert_eq!(hdds_guard_condition_trigger(gc), HddsRet::Ok);
    assert_eq!(hdds_waitset_wait(ws, entries.as_mut_ptr(), entries.len(), 0), HddsRet::Ok);
    assert!(!entries[0].ready && entries[1].ready);

    let mut sn = 0i64;
    assert_eq!(hdds_writer_write(w, PAYLOAD.as_ptr(), PAYLOAD.len(), &mut sn), HddsRet::Ok);
    assert_eq!(sn, 1);
    let wo = HddsWriteOptions {
        has_related_sample_identity: true,
        related_writer_guid: [9; 16],
        related_sequence_number: 5,
        directed: true,
        directed_reader_guid: rguid,
        source_timestamp_ns: 1_000_000_000,
    };
    assert_eq!(hdds_writer_write_ex(w, PAYLOAD.as_ptr(), PAYLOAD.len(), &wo, &mut sn), HddsRet::Ok);
    assert_eq!(hdds_waitset_wait(ws, entries.as_mut_ptr(), entries.len(), 1_000_000_000), HddsRet::Ok);
    assert!(entries[0].ready);
    assert_eq!(hdds_reader_unread_count(r, &mut n), HddsRet::Ok);
    assert_eq!(n, 2);
    assert_eq!(data_calls.load(Ordering::SeqCst), 2);

    for expected_sn in 1..=2 {
        let mut s = ptr::null_mut();
        assert_eq!(hdds_reader_take(r, &mut s), HddsRet::Ok);
        let mut len = 0usize;
        let d = hdds_sample_data(s, &mut len);
        // SAFETY: hdds_sample_data returned len bytes valid until hdds_sample_free.
        assert_eq!(unsafe { std::slice::from_raw_parts(d, len) }, PAYLOAD);
        let mut info = std::mem::MaybeUninit::<HddsSampleInfo>::uninit();
        assert_eq!(hdds_sample_info(s, info.as_mut_ptr()), HddsRet::Ok);
        // SAFETY: hdds_sample_info filled it.
        let info = unsafe { info.assume_init() };
        assert_eq!(info.sequence_number, expected_sn);
        assert_eq!(info.writer_guid, wguid);
        assert_eq!(info.has_related_sample_identity, expected_sn == 2);
        hdds_sample_free(s);
    }
    let mut s = ptr::null_mut();
    assert_eq!(hdds_reader_take(r, &mut s), HddsRet::NoData);
    assert!(s.is_null());

    let mut st = HddsStatus::default();
    assert_eq!(hdds_writer_get_status(w, HDDS_STATUS_PUBLICATION_MATCHED, &mut st), HddsRet::Ok);
    assert_eq!(st.current_count, 1);
    assert_eq!(hdds_reader_get_status(r, HDDS_STATUS_SUBSCRIPTION_MATCHED, &mut st), HddsRet::Ok);
    assert_eq!(st.current_count, 1);

    // Teardown in an order C code may well use: the participant before its endpoints is not
    // allowed, the rest is.
    hdds_guard_condition_destroy(gc);
    hdds_waitset_destroy(ws);
    hdds_reader_destroy(r);
    hdds_writer_destroy(w);
    assert_eq!(hdds_participant_set_discovery_listener(p, None, None, ptr::null()), HddsRet::Ok);
    hdds_participant_destroy(p);
}

#[test]
fn bad_arguments_are_codes_not_undefined_behaviour() {
    let mut p = ptr::null_mut();
    assert_eq!(hdds_participant_create(0, ptr::null_mut()), HddsRet::BadArgument);
    assert!(last_error().contains("hdds_participant_create"));
    assert_eq!(hdds_participant_create(233, &mut p), HddsRet::BadArgument);
    let p = participant(42);
    let mut w = ptr::null_mut();
    assert_eq!(hdds_writer_create(p, ptr::null(), c"T".as_ptr(), ptr::null(), &mut w), HddsRet::BadArgument);
    // Not UTF-8.
    let bad = [0xffu8, 0xfe, 0];
    assert_eq!(hdds_writer_create(p, bad.as_ptr().cast(), c"T".as_ptr(), ptr::null(), &mut w), HddsRet::BadArgument);
    assert!(last_error().contains("UTF-8"), "{}", last_error());
    let opts = HddsEndpointOptions { user_data: ptr::null(), user_data_len: 3, ignore_local_participant: false };
    assert_eq!(
        hdds_writer_create_ex(p, c"rt/x".as_ptr(), c"T".as_ptr(), ptr::null(), &opts, &mut w),
        HddsRet::BadArgument
    );
    assert_eq!(hdds_writer_create(p, c"rt/x".as_ptr(), c"T".as_ptr(), ptr::null(), &mut w), HddsRet::Ok);
    assert_eq!(hdds_writer_write(w, ptr::null(), 4, ptr::null_mut()), HddsRet::BadArgument);
    assert_eq!(hdds_writer_write(w, PAYLOAD.as_ptr(), 0, ptr::null_mut()), HddsRet::BadArgument);
    let mut len = 0usize;
    assert!(hdds_sample_data(ptr::null(), &mut len).is_null());
    let mut ws = ptr::null_mut();
    assert_eq!(hdds_waitset_create(&mut ws), HddsRet::Ok);
    assert_eq!(hdds_waitset_wait(ws, ptr::null_mut(), 1, 0), HddsRet::BadArgument);
    assert_eq!(hdds_waitset_wait(ws, ptr::null_mut(), 0, 0), HddsRet::Timeout);
    let mut e = [HddsWaitEntry { kind: 99, handle: w.cast_const().cast(), status_mask: 0, ready: false }];
    assert_eq!(hdds_waitset_wait(ws, e.as_mut_ptr(), 1, 0), HddsRet::BadArgument);
    // Destroying NULL is a no-op.
    hdds_waitset_destroy(ptr::null_mut());
    hdds_writer_destroy(ptr::null_mut());
    hdds_sample_free(ptr::null_mut());
    hdds_waitset_destroy(ws);
    hdds_writer_destroy(w);
    hdds_participant_destroy(p);
}

#[test]
fn loans_through_raw_pointers() {
    // Same-process only (Miri has no sockets, no file-backed mmap): the loan is ordinary memory,
    // which runs the same entry points and the same unsafe blocks of loan.rs.
    let p = participant(43);
    let (w, r) = writer_and_reader(p, c"rt/loan");
    let mut loan = ptr::null_mut();
    assert_eq!(hdds_writer_loan(w, PAYLOAD.len(), &mut loan), HddsRet::Ok, "{}", last_error());
    let mut data = ptr::null_mut();
    let mut len = 0usize;
    assert_eq!(hdds_loan_data(loan, &mut data, &mut len), HddsRet::Ok);
    assert_eq!(len, PAYLOAD.len());
    // SAFETY: hdds_loan_data gave len writable bytes, ours until the loan is published.
    unsafe { ptr::copy_nonoverlapping(PAYLOAD.as_ptr(), data, len) };
    let mut shm = true;
    assert_eq!(hdds_loan_in_shared_memory(loan, &mut shm), HddsRet::Ok);
    assert!(!shm);
    let mut sn = 0i64;
    assert_eq!(hdds_loan_publish(loan, ptr::null(), &mut sn), HddsRet::Ok);
    assert_eq!(sn, 1);
    let mut s = ptr::null_mut();
    assert_eq!(hdds_reader_take(r, &mut s), HddsRet::Ok);
    let mut n = 0usize;
    let d = hdds_sample_data(s, &mut n);
    // SAFETY: hdds_sample_data returned n bytes valid until hdds_sample_free.
    assert_eq!(unsafe { std::slice::from_raw_parts(d, n) }, PAYLOAD);
    hdds_sample_free(s);
    // Returned, and errors: nothing is published, nothing leaks.
    assert_eq!(hdds_writer_loan(w, 4, &mut loan), HddsRet::Ok);
    hdds_loan_return(loan);
    hdds_loan_return(ptr::null_mut());
    assert_eq!(hdds_writer_loan(w, 4, ptr::null_mut()), HddsRet::BadArgument);
    assert_eq!(hdds_loan_publish(ptr::null_mut(), ptr::null(), ptr::null_mut()), HddsRet::BadArgument);
    assert_eq!(hdds_loan_data(ptr::null_mut(), &mut data, &mut len), HddsRet::BadArgument);
    let mut s = ptr::null_mut();
    assert_eq!(hdds_reader_take(r, &mut s), HddsRet::NoData);
    hdds_reader_destroy(r);
    hdds_writer_destroy(w);
    hdds_participant_destroy(p);
}

#[test]
fn reader_loans_through_raw_pointers() {
    // Same-process (as above): the loan is the writer's shared buffer, handed out without a copy
    // through the same entry points and unsafe blocks of reader_loan.rs.
    let p = participant(44);
    let (w, r) = writer_and_reader(p, c"rt/rloan");
    let mut loan = ptr::null_mut();
    assert_eq!(hdds_reader_take_loan(r, &mut loan), HddsRet::NoData);
    assert!(loan.is_null());
    assert_eq!(hdds_writer_write(w, PAYLOAD.as_ptr(), PAYLOAD.len(), ptr::null_mut()), HddsRet::Ok);
    assert_eq!(hdds_reader_take_loan(r, &mut loan), HddsRet::Ok, "{}", last_error());
    let mut n = 0usize;
    let d = hdds_reader_loan_data(loan, &mut n);
    let mut info = std::mem::MaybeUninit::<HddsSampleInfo>::uninit();
    assert_eq!(hdds_reader_loan_info(loan, info.as_mut_ptr()), HddsRet::Ok);
    // SAFETY: hdds_reader_loan_info filled it.
    assert_eq!(unsafe { info.assume_init() }.sequence_number, 1);
    let mut shm = true;
    assert_eq!(hdds_reader_loan_in_shared_memory(loan, &mut shm), HddsRet::Ok);
    assert!(!shm);
    // The loan outlives its reader, writer and participant.
    hdds_reader_destroy(r);
    hdds_writer_destroy(w);
    hdds_participant_destroy(p);
    // SAFETY: hdds_reader_loan_data returned n bytes valid until hdds_reader_return_loan.
    assert_eq!(unsafe { std::slice::from_raw_parts(d, n) }, PAYLOAD);
    hdds_reader_return_loan(loan);
    hdds_reader_return_loan(ptr::null_mut());
    assert_eq!(hdds_reader_take_loan(ptr::null(), &mut loan), HddsRet::BadArgument);
    assert!(hdds_reader_loan_data(ptr::null(), &mut n).is_null());
}

/// What fill_payload writes: the first `user` bytes of PAYLOAD, or nothing (false) for 0.
extern "C" fn fill_payload(user: *mut c_void, buf: *mut u8, len: usize, out_written: *mut usize) -> bool {
    let n = user as usize;
    if n == 0 || n > len {
        return false;
    }
    // SAFETY: the engine lent `len` writable bytes at buf for this call; n <= len and n <= 8.
    unsafe { ptr::copy_nonoverlapping(PAYLOAD.as_ptr(), buf, n) };
    // SAFETY: out_written points to the engine's usize for this call.
    unsafe { *out_written = n };
    true
}

/// Keeps what hdds_reader_take_with showed: the payload and the sequence number.
extern "C" fn keep_sample(user: *mut c_void, data: *const u8, len: usize, info: *const HddsSampleInfo) {
    // SAFETY: user is the test's &mut (Vec<u8>, i64); data/len and info are valid during the call.
    let (bytes, sn) = unsafe { &mut *user.cast::<(Vec<u8>, i64)>() };
    *bytes = unsafe { std::slice::from_raw_parts(data, len) }.to_vec();
    *sn = unsafe { (*info).sequence_number };
}

#[test]
fn write_into_and_take_with_through_raw_pointers() {
    let p = participant(45);
    let (w, r) = writer_and_reader(p, c"rt/into");
    let mut got: (Vec<u8>, i64) = (Vec::new(), 0);
    let user = ptr::addr_of_mut!(got).cast::<c_void>();
    assert_eq!(hdds_reader_take_with(r, Some(keep_sample), user), HddsRet::NoData);

    // The whole buffer, then a shorter sample than the buffer, then a failing filler.
    let mut sn = 0i64;
    assert_eq!(hdds_writer_write_into(w, 8, Some(fill_payload), 8 as *mut c_void, &mut sn), HddsRet::Ok);
    assert_eq!(sn, 1);
    assert_eq!(hdds_writer_write_into(w, 64, Some(fill_payload), 5 as *mut c_void, &mut sn), HddsRet::Ok);
    assert_eq!(hdds_writer_write_into(w, 8, Some(fill_payload), ptr::null_mut(), &mut sn), HddsRet::Error);
    assert!(last_error().contains("nothing was written"), "{}", last_error());
    assert_eq!(hdds_writer_write_into(w, 8, None, ptr::null_mut(), ptr::null_mut()), HddsRet::BadArgument);

    assert_eq!(hdds_reader_take_with(r, Some(keep_sample), user), HddsRet::Ok);
    assert_eq!((got.0.as_slice(), got.1), (&PAYLOAD[..], 1));
    assert_eq!(hdds_reader_take_with(r, Some(keep_sample), user), HddsRet::Ok);
    assert_eq!((got.0.as_slice(), got.1), (&PAYLOAD[..5], 2));
    assert_eq!(hdds_reader_take_with(r, Some(keep_sample), user), HddsRet::NoData);
    assert_eq!(hdds_reader_take_with(r, None, user), HddsRet::BadArgument);
    assert_eq!(hdds_reader_take_with(ptr::null(), Some(keep_sample), user), HddsRet::BadArgument);
    hdds_reader_destroy(r);
    hdds_writer_destroy(w);
    hdds_participant_destroy(p);
}
