//! Shared pieces of the hdds command-line tools: argument parsing and latency statistics, and the
//! interop peers' rules ([`interop`]).

use std::time::Duration;

pub mod interop;

/// `--name value` options and bare flags, from the process arguments after the subcommand.
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

    /// The value after `--name`, parsed, or `default`; a value that does not parse ends the
    /// program with a message that names the option.
    pub fn value<T: std::str::FromStr>(&self, name: &str, default: T) -> T {
        let flag = format!("--{name}");
        match self.items.iter().position(|a| *a == flag) {
            None => default,
            Some(i) => match self.items.get(i + 1).map(|v| v.parse::<T>()) {
                Some(Ok(v)) => v,
                _ => usage_error(&format!("{flag} needs a valid value")),
            },
        }
    }

    pub fn flag(&self, name: &str) -> bool {
        self.items.iter().any(|a| *a == format!("--{name}"))
    }
}

pub fn usage_error(message: &str) -> ! {
    eprintln!("error: {message} (try --help)");
    std::process::exit(2)
}

/// Percentiles of a set of latencies.
pub struct LatencyStats {
    sorted_ns: Vec<i64>,
}

impl LatencyStats {
    pub fn new(mut samples_ns: Vec<i64>) -> Self {
        samples_ns.sort_unstable();
        LatencyStats { sorted_ns: samples_ns }
    }

    pub fn len(&self) -> usize {
        self.sorted_ns.len()
    }

    pub fn is_empty(&self) -> bool {
        self.sorted_ns.is_empty()
    }

    /// The `p`-th percentile (0..=100), nearest rank; zero when empty.
    pub fn percentile(&self, p: f64) -> Duration {
        if self.sorted_ns.is_empty() {
            return Duration::ZERO;
        }
        let rank = ((p / 100.0) * self.sorted_ns.len() as f64).ceil() as usize;
        let i = rank.clamp(1, self.sorted_ns.len()) - 1;
        Duration::from_nanos(self.sorted_ns[i].max(0) as u64)
    }
}

/// Microseconds with two decimals, as the tools print latencies.
pub fn us(d: Duration) -> String {
    format!("{:.2}", d.as_secs_f64() * 1e6)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_use_nearest_rank() {
        let s = LatencyStats::new((1..=100).rev().collect());
        assert_eq!(s.percentile(50.0), Duration::from_nanos(50));
        assert_eq!(s.percentile(99.0), Duration::from_nanos(99));
        assert_eq!(s.percentile(100.0), Duration::from_nanos(100));
        assert_eq!(s.percentile(0.0), Duration::from_nanos(1));
        assert_eq!(LatencyStats::new(vec![]).percentile(50.0), Duration::ZERO);
    }

    #[test]
    fn args() {
        let a = Args::new(vec!["--count".into(), "5".into(), "--quiet".into()]);
        assert_eq!(a.value("count", 1u32), 5);
        assert_eq!(a.value("size", 64usize), 64);
        assert!(a.flag("quiet") && !a.flag("loud"));
    }
}
