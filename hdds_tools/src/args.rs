//! `--name value` options and bare flags.

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
    }
}
