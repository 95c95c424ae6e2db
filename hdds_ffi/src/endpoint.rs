//! Writers and readers of serialized samples.

use std::ffi::{c_char, c_void};
use std::time::Duration;

use hdds_core::wire::Guid;
use hdds_core::{Reader, Writer};

use crate::participant::HddsParticipant;
use crate::qos::HddsQos;
use crate::ret::{arg, bytes_or_empty, guard, guard_ret, guard_void, out, out_handle, str_arg, HddsRet};
use crate::sample::{sample_info, HddsSample, HddsSampleInfo};

pub struct HddsWriter {
    pub(crate) inner: Writer,
}

pub struct HddsReader {
    pub(crate) inner: Reader,
}

/// Creates a writer on `topic_name` for samples of `type_name`. `qos` may be NULL for the
/// defaults. Thread-safe.
#[no_mangle]
pub extern "C" fn hdds_writer_create(
    participant: *const HddsParticipant,
    topic_name: *const c_char,
    type_name: *const c_char,
    qos: *const HddsQos,
    out_writer: *mut *mut HddsWriter,
) -> HddsRet {
    create_endpoint("hdds_writer_create", participant, topic_name, type_name, qos, out_writer, |p, t, ty, q| {
        Ok(HddsWriter { inner: p.create_writer(t, ty, q)? })
    })
}

/// What a writer or reader has besides topic, type and QoS. Zero-initialize it for the defaults.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct HddsEndpointOptions {
    /// USER_DATA announced in SEDP (rmw_cyclonedds_cpp's services: "clientid=...;" /
    /// "serviceid=...;"); NULL with length 0 for none. Copied.
    pub user_data: *const u8,
    pub user_data_len: usize,
    /// Readers: writers of the same participant are not matched, so their samples never arrive
    /// (ros_discovery_info). Ignored for writers.
    pub ignore_local_participant: bool,
}

fn options_arg(options: *const HddsEndpointOptions) -> Result<hdds_core::EndpointOptions, hdds_core::Error> {
    if options.is_null() {
        return Ok(hdds_core::EndpointOptions::default());
    }
    let o = arg(options, "options")?;
    Ok(hdds_core::EndpointOptions {
        user_data: bytes_or_empty(o.user_data, o.user_data_len, "options->user_data")?.to_vec(),
        ignore_local_participant: o.ignore_local_participant,
        // No partition through the C ABI yet (ROS does not use partitions).
        ..Default::default()
    })
}

/// hdds_writer_create with endpoint options (NULL: none). Thread-safe.
#[no_mangle]
pub extern "C" fn hdds_writer_create_ex(
    participant: *const HddsParticipant,
    topic_name: *const c_char,
    type_name: *const c_char,
    qos: *const HddsQos,
    options: *const HddsEndpointOptions,
    out_writer: *mut *mut HddsWriter,
) -> HddsRet {
    create_endpoint("hdds_writer_create_ex", participant, topic_name, type_name, qos, out_writer, |p, t, ty, q| {
        Ok(HddsWriter { inner: p.create_writer_with(t, ty, q, &options_arg(options)?)? })
    })
}

/// hdds_reader_create with endpoint options (NULL: none). Thread-safe.
#[no_mangle]
pub extern "C" fn hdds_reader_create_ex(
    participant: *const HddsParticipant,
    topic_name: *const c_char,
    type_name: *const c_char,
    qos: *const HddsQos,
    options: *const HddsEndpointOptions,
    out_reader: *mut *mut HddsReader,
) -> HddsRet {
    create_endpoint("hdds_reader_create_ex", participant, topic_name, type_name, qos, out_reader, |p, t, ty, q| {
        Ok(HddsReader { inner: p.create_reader_with(t, ty, q, &options_arg(options)?)? })
    })
}

/// Destroys a writer. NULL is a no-op. Not thread-safe with other uses of the same handle.
#[no_mangle]
pub extern "C" fn hdds_writer_destroy(writer: *mut HddsWriter) {
    guard_void("hdds_writer_destroy", || {
        if !writer.is_null() {
            // SAFETY: the handle came from Box::into_raw in hdds_writer_create; this is its last use.
            drop(unsafe { Box::from_raw(writer) });
        }
    })
}

/// Publishes one serialized sample: `len` bytes at `data`, starting with the 4-byte CDR
/// encapsulation header. Stores the sample's sequence number in *out_sequence_number unless it is
/// NULL. Thread-safe: concurrent writes are numbered and delivered in one order.
#[no_mangle]
#[link_section = ".text.hot.hdds"]
pub extern "C" fn hdds_writer_write(
    writer: *const HddsWriter,
    data: *const u8,
    len: usize,
    out_sequence_number: *mut i64,
) -> HddsRet {
    guard("hdds_writer_write", || {
        let w = arg(writer, "writer")?;
        let payload = bytes_arg(data, len)?;
        let sn = w.inner.write(payload)?;
        if !out_sequence_number.is_null() {
            out(out_sequence_number, "out_sequence_number", sn)?;
        }
        Ok(())
    })
}

/// Serializes a sample into the `len` bytes at `buf` (not initialized; valid during the call
/// only): writes it there, CDR encapsulation header first, stores how many bytes it wrote in
/// *out_written (at most `len`) and returns true; returns false to write nothing. It must not
/// unwind (no C++ exception may leave it) nor call hdds_* functions of the same writer.
pub type HddsSampleFiller =
    Option<extern "C" fn(user: *mut c_void, buf: *mut u8, len: usize, out_written: *mut usize) -> bool>;

/// hdds_writer_write of a sample serialized straight into the buffer the engine keeps for it:
/// `fill(user, buf, len, &written)` is called once, on this thread, with `len` bytes, and the
/// first `written` of them are published. Saves the copy hdds_writer_write makes. When `fill`
/// returns false nothing is written and HDDS_RET_ERROR is returned (the filler says why, e.g. in
/// its own `user` state). Thread-safe.
#[no_mangle]
#[link_section = ".text.hot.hdds"]
pub extern "C" fn hdds_writer_write_into(
    writer: *const HddsWriter,
    len: usize,
    fill: HddsSampleFiller,
    user: *mut c_void,
    out_sequence_number: *mut i64,
) -> HddsRet {
    guard("hdds_writer_write_into", || {
        let w = arg(writer, "writer")?;
        let Some(fill) = fill else {
            return Err(hdds_core::Error::bad_argument("fill is NULL"));
        };
        let fill_buf = |buf: &mut [std::mem::MaybeUninit<u8>]| {
            let mut written = 0usize;
            if !fill(user, buf.as_mut_ptr().cast::<u8>(), buf.len(), &mut written) {
                return Err(hdds_core::Error::new(
                    hdds_core::error::ErrorKind::Io,
                    "the sample filler failed: nothing was written (the caller's serializer says why)",
                ));
            }
            Ok(written)
        };
        // SAFETY: the filler's contract (HddsSampleFiller) is that it wrote the `written` bytes it
        // reports; write_into refuses more than `len`.
        let sn = unsafe { w.inner.write_into(len, &hdds_core::WriteOptions::default(), fill_buf) }?;
        if !out_sequence_number.is_null() {
            out(out_sequence_number, "out_sequence_number", sn)?;
        }
        Ok(())
    })
}

/// What hdds_writer_write_ex says about a sample besides its payload. Zero-initialize it for a
/// plain write.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct HddsWriteOptions {
    /// Send RELATED_SAMPLE_IDENTITY (a service reply naming its request): inline QoS PID 0x0083
    /// and Fast DDS's 0x800f; readers see it in HddsSampleInfo.
    pub has_related_sample_identity: bool,
    pub related_writer_guid: [u8; 16],
    pub related_sequence_number: i64,
    /// Only the matched reader directed_reader_guid (same-process or remote) gets the sample.
    /// Other remote reliable readers are told by a GAP that its sequence number is not for them.
    pub directed: bool,
    pub directed_reader_guid: [u8; 16],
    /// The source timestamp, nanoseconds since the UNIX epoch; 0 is now.
    pub source_timestamp_ns: i64,
}

/// hdds_writer_write with options (NULL: none). A directed write to a reader that is not matched
/// (any more) returns HDDS_RET_BAD_ARGUMENT and writes nothing; a negative source timestamp is
/// HDDS_RET_BAD_ARGUMENT. Thread-safe.
#[no_mangle]
pub extern "C" fn hdds_writer_write_ex(
    writer: *const HddsWriter,
    data: *const u8,
    len: usize,
    options: *const HddsWriteOptions,
    out_sequence_number: *mut i64,
) -> HddsRet {
    guard("hdds_writer_write_ex", || {
        let w = arg(writer, "writer")?;
        let payload = bytes_arg(data, len)?;
        let opts = if options.is_null() {
            hdds_core::WriteOptions::default()
        } else {
            write_options(arg(options, "options")?)?
        };
        let sn = w.inner.write_with(payload, &opts)?;
        if !out_sequence_number.is_null() {
            out(out_sequence_number, "out_sequence_number", sn)?;
        }
        Ok(())
    })
}

pub(crate) fn write_options(o: &HddsWriteOptions) -> Result<hdds_core::WriteOptions, hdds_core::Error> {
    if o.source_timestamp_ns < 0 {
        return Err(hdds_core::Error::bad_argument(format!(
            "options->source_timestamp_ns is negative ({}): give nanoseconds since the UNIX epoch, or 0 for now",
            o.source_timestamp_ns
        )));
    }
    Ok(hdds_core::WriteOptions {
        related_sample_identity: o.has_related_sample_identity.then(|| hdds_core::SampleIdentity {
            writer: Guid::from_bytes(&o.related_writer_guid),
            sn: o.related_sequence_number,
        }),
        directed_to: o.directed.then(|| Guid::from_bytes(&o.directed_reader_guid)),
        source_timestamp: (o.source_timestamp_ns != 0).then_some(o.source_timestamp_ns),
    })
}

/// Stores in *out whether the reader with GUID reader_guid (16 bytes; same-process or remote) is
/// matched with the writer, i.e. a directed write can reach it. Thread-safe.
#[no_mangle]
pub extern "C" fn hdds_writer_has_matched_reader(
    writer: *const HddsWriter,
    reader_guid: *const u8,
    out_matched: *mut bool,
) -> HddsRet {
    guard("hdds_writer_has_matched_reader", || {
        let w = arg(writer, "writer")?;
        let g = arg(reader_guid.cast::<[u8; 16]>(), "reader_guid")?;
        out(out_matched, "out_matched", w.inner.has_matched_reader(Guid::from_bytes(g)))
    })
}

/// Stores in *out whether the reader with GUID reader_guid (16 bytes) is matched with the writer
/// and knows it: a same-process or best-effort reader as soon as it is matched, a remote reliable
/// reader once it has sent the writer an ACKNACK (before that, it may drop what the writer sends,
/// and a volatile one then skips it as history). A service client checks this before its first
/// request. Thread-safe.
#[no_mangle]
pub extern "C" fn hdds_writer_is_known_by_reader(
    writer: *const HddsWriter,
    reader_guid: *const u8,
    out_known: *mut bool,
) -> HddsRet {
    guard("hdds_writer_is_known_by_reader", || {
        let w = arg(writer, "writer")?;
        let g = arg(reader_guid.cast::<[u8; 16]>(), "reader_guid")?;
        out(out_known, "out_known", w.inner.is_known_by_reader(Guid::from_bytes(g)))
    })
}

/// Stores in *out whether the writer with GUID writer_guid (16 bytes; same-process or remote)
/// delivers to the reader (mirror of hdds_writer_has_matched_reader). Thread-safe.
#[no_mangle]
pub extern "C" fn hdds_reader_has_matched_writer(
    reader: *const HddsReader,
    writer_guid: *const u8,
    out_matched: *mut bool,
) -> HddsRet {
    guard("hdds_reader_has_matched_writer", || {
        let r = arg(reader, "reader")?;
        let g = arg(writer_guid.cast::<[u8; 16]>(), "writer_guid")?;
        out(out_matched, "out_matched", r.inner.has_matched_writer(Guid::from_bytes(g)))
    })
}

/// Stores in *out whether the writer with GUID writer_guid (16 bytes) is matched with the reader
/// and has matched it too, so that what it writes now reaches the reader (mirror of
/// hdds_writer_is_known_by_reader): a same-process writer at once, a same-host one once its ring
/// serves the reader, a remote reliable one once it has sent the reader anything (or 1 s after
/// the match: a Fast DDS writer may have said nothing the reader could hear), a remote
/// best-effort one as soon as it is matched. A service client checks this of the service's reply
/// writer before its first request. Thread-safe.
#[no_mangle]
pub extern "C" fn hdds_reader_is_known_by_writer(
    reader: *const HddsReader,
    writer_guid: *const u8,
    out_known: *mut bool,
) -> HddsRet {
    guard("hdds_reader_is_known_by_writer", || {
        let r = arg(reader, "reader")?;
        let g = arg(writer_guid.cast::<[u8; 16]>(), "writer_guid")?;
        out(out_known, "out_known", r.inner.is_known_by_writer(Guid::from_bytes(g)))
    })
}

/// Stores the number of readers the writer delivers to in *out_count. Thread-safe.
#[no_mangle]
pub extern "C" fn hdds_writer_matched_count(writer: *const HddsWriter, out_count: *mut usize) -> HddsRet {
    guard("hdds_writer_matched_count", || {
        out(out_count, "out_count", arg(writer, "writer")?.inner.matched_reader_count())
    })
}

/// Writes the writer's GUID (16 bytes) to guid_out. Thread-safe.
#[no_mangle]
pub extern "C" fn hdds_writer_guid(writer: *const HddsWriter, guid_out: *mut u8) -> HddsRet {
    guard("hdds_writer_guid", || {
        out(guid_out.cast::<[u8; 16]>(), "guid_out", arg(writer, "writer")?.inner.guid().to_bytes())
    })
}

/// Creates a reader on `topic_name` for samples of `type_name`. `qos` may be NULL for the
/// defaults. Thread-safe.
#[no_mangle]
pub extern "C" fn hdds_reader_create(
    participant: *const HddsParticipant,
    topic_name: *const c_char,
    type_name: *const c_char,
    qos: *const HddsQos,
    out_reader: *mut *mut HddsReader,
) -> HddsRet {
    create_endpoint("hdds_reader_create", participant, topic_name, type_name, qos, out_reader, |p, t, ty, q| {
        Ok(HddsReader { inner: p.create_reader(t, ty, q)? })
    })
}

/// Destroys a reader. NULL is a no-op. Not thread-safe with other uses of the same handle.
#[no_mangle]
pub extern "C" fn hdds_reader_destroy(reader: *mut HddsReader) {
    guard_void("hdds_reader_destroy", || {
        if !reader.is_null() {
            // SAFETY: the handle came from Box::into_raw in hdds_reader_create; this is its last use.
            drop(unsafe { Box::from_raw(reader) });
        }
    })
}

/// Takes the oldest sample into *out_sample (free it with hdds_sample_free), or returns
/// HDDS_RET_NO_DATA and stores NULL when there is none. Thread-safe.
#[no_mangle]
pub extern "C" fn hdds_reader_take(reader: *const HddsReader, out_sample: *mut *mut HddsSample) -> HddsRet {
    guard_ret("hdds_reader_take", || {
        let r = arg(reader, "reader")?;
        if out_sample.is_null() {
            return Err(hdds_core::Error::bad_argument("out_sample is NULL"));
        }
        out_handle(out_sample, "out_sample", r.inner.take().map(|s| HddsSample { inner: s }))
    })
}

/// Reads one taken sample in place: `data`/`len` is its serialized payload (CDR encapsulation
/// header first) and `info` its sample info, both valid during the call only. It must not unwind
/// (no C++ exception may leave it); it may call hdds_* functions (no engine lock is held).
pub type HddsSampleReader =
    Option<extern "C" fn(user: *mut c_void, data: *const u8, len: usize, info: *const HddsSampleInfo)>;

/// Takes the oldest sample as hdds_reader_take does and hands it to `read(user, ...)` once, on
/// this thread, before returning HDDS_RET_OK; the sample is freed after the call. Returns
/// HDDS_RET_NO_DATA (and calls nothing) when there is none. Unlike hdds_reader_take it allocates
/// no handle, so a deserializer reads straight from the engine's buffer: for a large sample from a
/// same-host writer (64 KiB and more), the writer's shared-memory ring itself, which the writer
/// leaves alone until the call returns (from the first call on, such samples wait in the reader's
/// history in place; see hdds_reader_take_loan for what that means to the writer). Thread-safe.
#[no_mangle]
#[link_section = ".text.hot.hdds"]
pub extern "C" fn hdds_reader_take_with(
    reader: *const HddsReader,
    read: HddsSampleReader,
    user: *mut c_void,
) -> HddsRet {
    guard_ret("hdds_reader_take_with", || {
        let r = arg(reader, "reader")?;
        let Some(read) = read else {
            return Err(hdds_core::Error::bad_argument("read is NULL"));
        };
        let taken = r.inner.take_with(|data, info| {
            let info = sample_info(info);
            read(user, data.as_ptr(), data.len(), &info);
        });
        Ok(if taken.is_some() { HddsRet::Ok } else { HddsRet::NoData })
    })
}

/// Waits up to `timeout_ns` nanoseconds (HDDS_DURATION_INFINITE: forever) for a sample to take.
/// Returns HDDS_RET_OK when one is there, HDDS_RET_TIMEOUT otherwise. Thread-safe.
#[no_mangle]
pub extern "C" fn hdds_reader_wait(reader: *const HddsReader, timeout_ns: i64) -> HddsRet {
    guard_ret("hdds_reader_wait", || {
        let r = arg(reader, "reader")?;
        if timeout_ns < 0 {
            return Err(hdds_core::Error::bad_argument(format!("timeout_ns is negative ({timeout_ns})")));
        }
        Ok(if r.inner.wait_for_data(Duration::from_nanos(timeout_ns as u64)) { HddsRet::Ok } else { HddsRet::Timeout })
    })
}

/// Writes the reader's GUID (16 bytes) to guid_out. Thread-safe.
#[no_mangle]
pub extern "C" fn hdds_reader_guid(reader: *const HddsReader, guid_out: *mut u8) -> HddsRet {
    guard("hdds_reader_guid", || {
        out(guid_out.cast::<[u8; 16]>(), "guid_out", arg(reader, "reader")?.inner.guid().to_bytes())
    })
}

/// The argument checks and handle hand-over that writer and reader creation share.
fn create_endpoint<T>(
    function: &str,
    participant: *const HddsParticipant,
    topic_name: *const c_char,
    type_name: *const c_char,
    qos: *const HddsQos,
    out_handle: *mut *mut T,
    make: impl FnOnce(&hdds_core::Participant, &str, &str, hdds_core::Qos) -> Result<T, hdds_core::Error>,
) -> HddsRet {
    guard(function, || {
        let p = arg(participant, "participant")?;
        let (topic, ty) = (str_arg(topic_name, "topic_name")?, str_arg(type_name, "type_name")?);
        let qos = qos_arg(qos)?;
        if out_handle.is_null() {
            return Err(hdds_core::Error::bad_argument("the out-parameter for the new handle is NULL"));
        }
        let handle = make(&p.inner, topic, ty, qos)?;
        out(out_handle, "out handle", Box::into_raw(Box::new(handle)))
    })
}

fn qos_arg(qos: *const HddsQos) -> Result<hdds_core::Qos, hdds_core::Error> {
    if qos.is_null() {
        Ok(hdds_core::Qos::default())
    } else {
        arg(qos, "qos")?.to_core()
    }
}

fn bytes_arg<'a>(data: *const u8, len: usize) -> Result<&'a [u8], hdds_core::Error> {
    if len == 0 {
        return Err(hdds_core::Error::bad_argument(
            "len is 0: a serialized sample has at least its 4-byte encapsulation header",
        ));
    }
    if data.is_null() {
        return Err(hdds_core::Error::bad_argument("data is NULL"));
    }
    // SAFETY: non-null; the caller promises `len` readable bytes at `data` for the call's duration.
    Ok(unsafe { std::slice::from_raw_parts(data, len) })
}

/// A network address an endpoint uses, in the RTPS locator layout: `kind` 1 = UDPv4 (the IPv4
/// address in address[12..16], the rest zero), 2 = UDPv6; `port` the UDP port. A multicast
/// address is in 224.0.0.0/4.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HddsLocator {
    pub kind: i32,
    pub port: u32,
    pub address: [u8; 16],
}

/// Stores the number of locators in *out_count and copies the first `capacity` of them to
/// `out_locators` (which may be NULL when `capacity` is 0: a call to learn the count).
fn locators_out(
    locators: Vec<hdds_core::wire::Locator>,
    out_locators: *mut HddsLocator,
    capacity: usize,
    out_count: *mut usize,
) -> Result<(), hdds_core::Error> {
    if capacity > 0 && out_locators.is_null() {
        return Err(hdds_core::Error::bad_argument("out_locators is NULL but capacity is not 0"));
    }
    out(out_count, "out_count", locators.len())?;
    for (i, l) in locators.iter().take(capacity).enumerate() {
        // SAFETY: non-null (checked) and the caller promises room for `capacity` locators; i < capacity.
        unsafe { out_locators.add(i).write(HddsLocator { kind: l.kind, port: l.port, address: l.address }) };
    }
    Ok(())
}

/// The locators the writer sends from: the participant's send socket, which all its writers
/// share (the first interface, a port the system chose). None for a same-process-only
/// participant. Stores the count in *out_count and the first `capacity` locators in
/// `out_locators` (NULL allowed when `capacity` is 0). Thread-safe.
#[no_mangle]
pub extern "C" fn hdds_writer_locators(
    writer: *const HddsWriter,
    out_locators: *mut HddsLocator,
    capacity: usize,
    out_count: *mut usize,
) -> HddsRet {
    guard("hdds_writer_locators", || {
        locators_out(arg(writer, "writer")?.inner.locators(), out_locators, capacity, out_count)
    })
}

/// The locators the reader receives user data on: the participant's user unicast port on each of
/// its interfaces, which all its readers share (user data is not sent by multicast). None for a
/// same-process-only participant. Count and copy as hdds_writer_locators. Thread-safe.
#[no_mangle]
pub extern "C" fn hdds_reader_locators(
    reader: *const HddsReader,
    out_locators: *mut HddsLocator,
    capacity: usize,
    out_count: *mut usize,
) -> HddsRet {
    guard("hdds_reader_locators", || {
        locators_out(arg(reader, "reader")?.inner.locators(), out_locators, capacity, out_count)
    })
}
