//! `--name value` options and bare flags, and the one check every tool's times and rates go
//! through ([`duration_of`], [`period_of_rate`]): `Duration::from_secs_f64` panics on a negative,
//! NaN, infinite or too large number, so a user's value never reaches it unchecked.

use std::time::Duration;

/// The longest time an option may ask for (about 31 years): long enough to mean "forever", short
/// enough that a deadline (now + it) or a small multiple of it never overflows.
pub const MAX_SECONDS: f64 = 1e9;

/// The largest sample a tool makes (1 GiB): a size from the command line is checked against it
/// ([`Args::value_in`]) so that a huge one is a usage error, not a capacity-overflow panic.
pub const MAX_SAMPLE_SIZE: usize = 1 << 30;

/// `text`, the value of option `flag`, as a time counted in units of `unit` seconds (1.0 for
/// seconds, 0.001 for milliseconds): a number from 0 to [`MAX_SECONDS`] seconds, or an error
/// that names the option and the range.
pub fn duration_of(flag: &str, text: &str, unit: f64) -> Result<Duration, String> {
    let secs = text.parse::<f64>().ok().map(|v| v * unit);
    match secs.filter(|s| (0.0..=MAX_SECONDS).contains(s)) {
        Some(s) => Ok(Duration::from_secs_f64(s)),
        None => {
            let (what, max) = if unit == 1.0 { ("seconds", MAX_SECONDS) } else { ("milliseconds", MAX_SECONDS / unit) };
            Err(format!("{flag} needs a number of {what} from 0 to {max:e}, not {text:?}"))
        }
    }
}

/// `text`, the value of option `flag`, as a rate in samples per second, turned into the time
/// between two samples: `None` for 0 (no pacing: as fast as possible), an error for a negative,
/// NaN or infinite rate or one so small that the period would pass [`MAX_SECONDS`].
pub fn period_of_rate(flag: &str, text: &str) -> Result<Option<Duration>, String> {
    match text.parse::<f64>() {
        Ok(0.0) => Ok(None),
        Ok(r) if r.is_finite() && r >= 1.0 / MAX_SECONDS => Ok(Some(Duration::from_secs_f64(1.0 / r))),
        _ => Err(format!(
            "{flag} needs a rate per second: 0 (no pacing) or from {:e} up, not {text:?}",
            1.0 / MAX_SECONDS
        )),
    }
}

/// The process arguments after the mode, as `--name value` options and bare `--flag`s.
pub struct Args {
    items: Vec<String>,
}

impl Args {
    pub fn new(items: Vec<String>) -> Self {
        Args { items }
    }

    pub fn from_env_skipping(n: usize) -> Self {
        Args { items: std::env::args().skip(n).collect() }
    }

    /// The first argument when it is a mode (not an option), and the options after it.
    pub fn with_mode_from_env() -> (Option<String>, Args) {
        let all: Vec<String> = std::env::args().skip(1).collect();
        let mode = all.first().filter(|m| !m.starts_with("--")).cloned();
        let rest = all.into_iter().skip(usize::from(mode.is_some())).collect();
        (mode, Args::new(rest))
    }

    /// The value after `--name`, parsed, or `default`; a value that does not parse ends the
    /// program with a message that names the option.
    pub fn value<T: std::str::FromStr>(&self, name: &str, default: T) -> T {
        self.maybe(name).unwrap_or(default)
    }

    /// The value after `--name` (or `default`), which must lie in `range`: a size that would not
    /// fit in memory or in the sample's length field ends the program here, not in a panic later.
    pub fn value_in<T>(&self, name: &str, default: T, range: std::ops::RangeInclusive<T>) -> T
    where
        T: std::str::FromStr + PartialOrd + std::fmt::Display,
    {
        let v = self.value(name, default);
        if !range.contains(&v) {
            usage_error(&format!("--{name} must be from {} to {}, not {v}", range.start(), range.end()));
        }
        v
    }

    /// The value after `--name`, parsed, if the option is there.
    pub fn maybe<T: std::str::FromStr>(&self, name: &str) -> Option<T> {
        let flag = format!("--{name}");
        let i = self.items.iter().position(|a| *a == flag)?;
        match self.items.get(i + 1).map(|v| v.parse::<T>()) {
            Some(Ok(v)) => Some(v),
            _ => usage_error(&format!("{flag} needs a valid value")),
        }
    }

    /// Every value of a repeatable `--name value` option.
    pub fn values<T: std::str::FromStr>(&self, name: &str) -> Vec<T> {
        let flag = format!("--{name}");
        let mut out = Vec::new();
        for (i, a) in self.items.iter().enumerate() {
            if *a == flag {
                match self.items.get(i + 1).map(|v| v.parse::<T>()) {
                    Some(Ok(v)) => out.push(v),
                    _ => usage_error(&format!("{flag} needs a valid value")),
                }
            }
        }
        out
    }

    /// The time after `--name` in seconds ([`duration_of`]), or `default` seconds; a bad value
    /// ends the program with a message that names the option.
    pub fn seconds(&self, name: &str, default: f64) -> Duration {
        self.maybe_seconds(name).unwrap_or_else(|| Duration::from_secs_f64(default))
    }

    /// The time after `--name` in seconds, if the option is there.
    pub fn maybe_seconds(&self, name: &str) -> Option<Duration> {
        self.maybe_duration(name, 1.0)
    }

    /// The time after `--name` in milliseconds, if the option is there.
    pub fn maybe_millis(&self, name: &str) -> Option<Duration> {
        self.maybe_duration(name, 0.001)
    }

    fn maybe_duration(&self, name: &str, unit: f64) -> Option<Duration> {
        let text: String = self.maybe(name)?;
        Some(duration_of(&format!("--{name}"), &text, unit).unwrap_or_else(|e| usage_error(&e)))
    }

    /// The time between two samples for the rate per second after `--name` (or `default`):
    /// `None` when the rate is 0 ([`period_of_rate`]).
    pub fn period(&self, name: &str, default: f64) -> Option<Duration> {
        let text = self.maybe::<String>(name).unwrap_or_else(|| default.to_string());
        period_of_rate(&format!("--{name}"), &text).unwrap_or_else(|e| usage_error(&e))
    }

    pub fn flag(&self, name: &str) -> bool {
        self.items.iter().any(|a| *a == format!("--{name}"))
    }

    /// Ends the program when an argument is not one of `known` (option names without `--`),
    /// so that a typo never runs a measurement with defaults the user did not ask for.
    pub fn check_known(&self, options: &[&str], flags: &[&str]) {
        let mut i = 0;
        while i < self.items.len() {
            let a = &self.items[i];
            match a.strip_prefix("--") {
                Some(n) if options.contains(&n) => i += 2,
                Some(n) if flags.contains(&n) || n == "help" => i += 1,
                _ => usage_error(&format!("unknown argument {a:?}")),
            }
        }
    }
}

pub fn usage_error(message: &str) -> ! {
    eprintln!("error: {message} (try --help)");
    std::process::exit(2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_and_flags() {
        let a = Args::new(vec!["--count".into(), "5".into(), "--quiet".into(), "--peer".into(), "x".into()]);
        assert_eq!(a.value("count", 1u32), 5);
        assert_eq!(a.value("size", 64usize), 64);
        assert_eq!(a.maybe::<u32>("size"), None);
        assert!(a.flag("quiet") && !a.flag("loud"));
        assert_eq!(a.values::<String>("peer"), vec!["x".to_string()]);
        assert_eq!(a.value_in("count", 1u32, 1..=5), 5);
    }

    #[test]
    fn durations_are_checked_before_conversion() {
        assert_eq!(duration_of("--d", "1.5", 1.0), Ok(Duration::from_millis(1500)));
        assert_eq!(duration_of("--d", "0", 1.0), Ok(Duration::ZERO));
        assert_eq!(duration_of("--d", "250", 0.001), Ok(Duration::from_millis(250)));
        for bad in ["-1", "nan", "NaN", "inf", "-inf", "1e300", "1e10", "x", ""] {
            let e = duration_of("--duration", bad, 1.0).expect_err(bad);
            assert!(e.starts_with("--duration needs a number of seconds from 0 to 1e9"), "{bad}: {e}");
        }
        let e = duration_of("--lease-ms", "-5", 0.001).unwrap_err();
        assert!(e.contains("milliseconds from 0 to 1e12"), "{e}");
    }

    #[test]
    fn rates_are_checked_before_conversion() {
        assert_eq!(period_of_rate("--rate", "0"), Ok(None));
        assert_eq!(period_of_rate("--rate", "1000"), Ok(Some(Duration::from_millis(1))));
        assert_eq!(period_of_rate("--rate", "1e300"), Ok(Some(Duration::ZERO)));
        for bad in ["-1", "nan", "inf", "1e-320", "1e-10", "x"] {
            let e = period_of_rate("--rate", bad).expect_err(bad);
            assert!(e.starts_with("--rate needs a rate per second"), "{bad}: {e}");
        }
    }
}
