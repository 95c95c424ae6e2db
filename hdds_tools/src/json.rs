//! The one-line JSON objects the tools print with `--json` (flat, numbers and strings): enough
//! for a benchmark runner to read, without a serialization dependency.

use std::fmt::{self, Write};

/// A JSON object built field by field, in insertion order.
#[derive(Default)]
pub struct Object {
    body: String,
}

impl Object {
    pub fn new() -> Self {
        Object::default()
    }

    fn key(&mut self, k: &str) {
        if !self.body.is_empty() {
            self.body.push(',');
        }
        quote(&mut self.body, k);
        self.body.push(':');
    }

    /// A number; integers print without a fraction, NaN and infinities as null.
    pub fn num(&mut self, k: &str, v: f64) -> &mut Self {
        self.key(k);
        if !v.is_finite() {
            self.body.push_str("null");
        } else if v.fract() == 0.0 && v.abs() < 1e15 {
            let _ = write!(self.body, "{}", v as i64);
        } else {
            let _ = write!(self.body, "{v}");
        }
        self
    }

    pub fn str(&mut self, k: &str, v: &str) -> &mut Self {
        self.key(k);
        quote(&mut self.body, v);
        self
    }

    pub fn obj(&mut self, k: &str, v: &Object) -> &mut Self {
        self.key(k);
        let _ = write!(self.body, "{v}");
        self
    }
}

impl fmt::Display for Object {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{{{}}}", self.body)
    }
}

fn quote(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects() {
        let mut inner = Object::new();
        inner.num("x", 1.5);
        let mut o = Object::new();
        o.str("tool", "a\"b\n").num("n", 3.0).num("bad", f64::NAN).obj("in", &inner);
        assert_eq!(o.to_string(), r#"{"tool":"a\"b\u000a","n":3,"bad":null,"in":{"x":1.5}}"#);
    }
}
