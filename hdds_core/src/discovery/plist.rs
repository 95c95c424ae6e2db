//! Helpers shared by the SPDP and SEDP codecs: durations, locators, strict/tolerant value reading,
//! and the must-understand rule for parameter ids we do not know.

use std::time::Duration;

use crate::cdr::DecodeError;
use crate::qos::INFINITE;
use crate::wire::parameter::{Parameter, ParameterList};
use crate::wire::pid::{self, ParameterId};
use crate::wire::{self, Locator};

/// A wire Duration_t as the engine's `Duration` ([`INFINITE`] for DURATION_INFINITE).
///
/// Tolerant like the vendors: any value with the infinite seconds field (0x7fffffff) is infinite
/// whatever its fraction, and negative durations (invalid) read as zero.
pub(crate) fn duration_from_wire(t: wire::Duration) -> Duration {
    if t.seconds == i32::MAX {
        return INFINITE;
    }
    if t.seconds < 0 {
        return Duration::ZERO;
    }
    match t.to_nanos() {
        // A fraction that rounds up into i32::MAX seconds would encode back as infinite: make it so.
        Some(ns) if ns >= i64::from(i32::MAX) * 1_000_000_000 => INFINITE,
        Some(ns) if ns >= 0 => Duration::from_nanos(ns as u64),
        _ => Duration::ZERO,
    }
}

/// The engine's `Duration` on the wire: anything from `i32::MAX` seconds up is DURATION_INFINITE.
pub(crate) fn duration_to_wire(d: Duration) -> wire::Duration {
    if d.as_secs() >= i32::MAX as u64 {
        return wire::Duration::INFINITE;
    }
    wire::Duration::from_nanos(d.as_nanos() as i64)
}

/// Offset of a parameter's value inside the payload (encapsulation header included), for errors.
pub(crate) fn value_offset(list: &ParameterList<'_>, p: &Parameter<'_>) -> usize {
    (p.value.as_ptr() as usize).saturating_sub(list.as_bytes().as_ptr() as usize) + crate::cdr::Encapsulation::SIZE
}

/// Runs a value decoder and moves its error offset to the parameter's place in the payload, with a
/// reason naming the parameter.
pub(crate) fn read<'a, T>(
    list: &ParameterList<'a>,
    p: &Parameter<'a>,
    what: &'static str,
    f: impl FnOnce(&Parameter<'a>) -> Result<T, DecodeError>,
) -> Result<T, DecodeError> {
    f(p).map_err(|e| DecodeError::new(what, value_offset(list, p) + e.offset))
}

/// A value error at a parameter (unknown enum value and the like).
pub(crate) fn bad(list: &ParameterList<'_>, p: &Parameter<'_>, what: &'static str) -> DecodeError {
    DecodeError::new(what, value_offset(list, p))
}

/// Appends a locator if it is one we can use (UDPv4/UDPv6, and our own shared-memory kind, which the
/// runtime trusts only from hdds participants); other kinds, such as Fast DDS's shared memory (kind
/// 16), are skipped: a peer offering more transports than we speak is normal.
pub(crate) fn push_locator(
    list: &ParameterList<'_>,
    p: &Parameter<'_>,
    out: &mut Vec<Locator>,
) -> Result<(), DecodeError> {
    let l = read(list, p, "malformed locator", |p| p.as_locator())?;
    if l.is_udp() || l.kind == Locator::KIND_HDDS_SHM {
        out.push(l);
    }
    Ok(())
}

/// What to do with a parameter id the decoder does not handle: vendor-specific ids and ordinary
/// unknown ids are recorded and skipped; an unknown id with the must-understand bit (0x4000) makes
/// the whole data unusable (RTPS 2.5 9.6.2.2.1; Cyclone drops such data the same way).
pub(crate) fn unknown(
    list: &ParameterList<'_>,
    p: &Parameter<'_>,
    ignored: &mut Vec<ParameterId>,
) -> Result<(), DecodeError> {
    if pid::must_understand(p.pid) {
        return Err(DecodeError::new(
            "a parameter with the must-understand bit (0x4000) is not one we know: the data is incompatible",
            value_offset(list, p).saturating_sub(4),
        ));
    }
    ignored.push(p.pid);
    Ok(())
}

/// A sequence of strings (PID_PARTITION).
pub(crate) fn read_string_sequence(p: &Parameter<'_>) -> Result<Vec<String>, DecodeError> {
    let mut r = p.reader();
    let n = r.read_sequence_len(5)?;
    let mut v = Vec::with_capacity(n);
    for _ in 0..n {
        v.push(r.read_str()?.to_owned());
    }
    Ok(v)
}

/// A sequence of i16 (PID_DATA_REPRESENTATION).
pub(crate) fn read_i16_sequence(p: &Parameter<'_>) -> Result<Vec<i16>, DecodeError> {
    p.reader().read_sequence::<i16>()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(duration_from_wire(wire::Duration::INFINITE), INFINITE);
        assert_eq!(duration_from_wire(wire::Duration { seconds: i32::MAX, fraction: 0 }), INFINITE);
        assert_eq!(duration_from_wire(wire::Duration { seconds: -1, fraction: 0 }), Duration::ZERO);
        assert_eq!(duration_from_wire(wire::Duration::INVALID), Duration::ZERO);
        assert_eq!(duration_from_wire(wire::Duration { seconds: 10, fraction: 0 }), Duration::from_secs(10));
        // Fast DDS's 100 ms max_blocking_time.
        assert_eq!(
            duration_from_wire(wire::Duration { seconds: 0, fraction: 0x1999_999a }),
            Duration::from_millis(100)
        );
        assert_eq!(duration_to_wire(Duration::from_millis(100)), wire::Duration { seconds: 0, fraction: 0x1999_999a });
        assert_eq!(duration_to_wire(INFINITE), wire::Duration::INFINITE);
        assert_eq!(duration_to_wire(Duration::from_secs(i32::MAX as u64)), wire::Duration::INFINITE);
        let almost = wire::Duration { seconds: i32::MAX - 1, fraction: u32::MAX };
        assert_eq!(duration_from_wire(almost), INFINITE, "rounds into the infinite seconds value");
        for d in
            [Duration::ZERO, Duration::from_nanos(1), Duration::from_millis(1500), Duration::from_secs(86_400 * 365)]
        {
            assert_eq!(duration_from_wire(duration_to_wire(d)), d);
        }
    }
}
