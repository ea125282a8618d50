//! Lifetimes and game time of rtGDL: a non-negative number of seconds kept exactly, in whole
//! nanoseconds, or `infinity`.

use std::fmt;

/// A duration or an instant of game time, in nanoseconds, or [`Time::INFINITY`].
///
/// Lifetimes are fixed-point rather than floating-point so that subtracting elapsed time is
/// exact: a fact with lifetime `1.0` that has lived `0.3` and then `0.7` expires exactly then,
/// and the interpreter and the generated code compute bit-identical states.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time(u64);

/// Nanoseconds per second.
const NANOS: u64 = 1_000_000_000;

impl Time {
    /// No time: the start of a match, or an empty duration.
    pub const ZERO: Time = Time(0);
    /// The unbounded lifetime, `infinity`.
    pub const INFINITY: Time = Time(u64::MAX);
    /// The largest finite time, about 584 years.
    pub const MAX_FINITE: Time = Time(u64::MAX - 1);

    /// A finite time of `nanos` nanoseconds (saturating at [`Time::MAX_FINITE`]).
    pub const fn from_nanos(nanos: u64) -> Time {
        if nanos == u64::MAX {
            Time::MAX_FINITE
        } else {
            Time(nanos)
        }
    }

    /// The nanoseconds of a finite time (`u64::MAX` for infinity).
    pub const fn nanos(self) -> u64 {
        self.0
    }

    /// The time nearest to `seconds` in whole nanoseconds: a negative number or NaN gives
    /// [`Time::ZERO`], positive infinity [`Time::INFINITY`], and a finite number too large
    /// [`Time::MAX_FINITE`].
    pub fn from_secs_f64(seconds: f64) -> Time {
        if seconds.is_infinite() && seconds > 0.0 {
            return Time::INFINITY;
        }
        let nanos = (seconds.max(0.0) * NANOS as f64).round();
        if nanos >= (u64::MAX - 1) as f64 {
            Time::MAX_FINITE
        } else {
            Time(nanos as u64)
        }
    }

    /// The finite time of a [`std::time::Duration`], saturating at [`Time::MAX_FINITE`].
    pub fn from_duration(duration: std::time::Duration) -> Time {
        Time::from_nanos(u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX))
    }

    /// The time in seconds, as the nearest `f64`; [`Time::INFINITY`] gives `f64::INFINITY`.
    pub fn as_secs_f64(self) -> f64 {
        if self.is_infinite() {
            f64::INFINITY
        } else {
            self.0 as f64 / NANOS as f64
        }
    }

    /// Whether this is [`Time::INFINITY`].
    pub const fn is_infinite(self) -> bool {
        self.0 == u64::MAX
    }

    /// `self - earlier`, where infinity stays infinity and a finite result never goes below zero.
    pub fn minus(self, earlier: Time) -> Time {
        if self.is_infinite() {
            Time::INFINITY
        } else {
            Time(self.0.saturating_sub(earlier.0))
        }
    }

    /// `self + later`, where infinity stays infinity and a finite sum saturates at
    /// [`Time::MAX_FINITE`].
    pub fn plus(self, later: Time) -> Time {
        if self.is_infinite() || later.is_infinite() {
            Time::INFINITY
        } else {
            Time(self.0.saturating_add(later.0).min(Time::MAX_FINITE.0))
        }
    }

    /// Reads `infinity` (any case) or a decimal number of seconds (`1`, `1.0`, `0.25`, at most
    /// nine decimals): the lifetimes an rtGDL game writes and the times of the real-time
    /// protocol. Signs, exponents and anything else are refused with the reason.
    pub fn parse(text: &str) -> Result<Time, String> {
        if text.eq_ignore_ascii_case("infinity") {
            return Ok(Time::INFINITY);
        }
        let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
        let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
        if whole.is_empty() || !digits(whole) || !digits(fraction) || (text.contains('.') && fraction.is_empty()) {
            return Err(format!(
                "`{text}` is not a number of seconds (digits with an optional decimal point) or `infinity`"
            ));
        }
        if fraction.len() > 9 {
            return Err(format!("`{text}` has more than nine decimals; times are kept in nanoseconds"));
        }
        let too_large = || format!("`{text}` is too large a time (the most is 500 years)");
        let seconds: u64 = whole.parse().map_err(|_| too_large())?;
        let nanos_part: u64 = format!("{fraction:0<9}").parse().unwrap_or(0);
        let nanos = seconds.checked_mul(NANOS).and_then(|n| n.checked_add(nanos_part)).ok_or_else(too_large)?;
        if nanos > Time::MAX_FINITE.0 {
            return Err(too_large());
        }
        Ok(Time(nanos))
    }
}

impl fmt::Display for Time {
    /// `infinity`, or seconds with at least one decimal and no trailing zeros beyond it:
    /// `1.0`, `0.25`, `0.000000001`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_infinite() {
            return f.write_str("infinity");
        }
        let fraction = format!("{:09}", self.0 % NANOS);
        let fraction = fraction.trim_end_matches('0');
        write!(f, "{}.{}", self.0 / NANOS, if fraction.is_empty() { "0" } else { fraction })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_prints_lifetimes_exactly() {
        for (text, nanos, printed) in [
            ("1.0", 1_000_000_000, "1.0"),
            ("1", 1_000_000_000, "1.0"),
            ("0.25", 250_000_000, "0.25"),
            ("0.000000001", 1, "0.000000001"),
            ("12.5", 12_500_000_000, "12.5"),
        ] {
            let t = Time::parse(text).unwrap();
            assert_eq!(t.nanos(), nanos, "{text}");
            assert_eq!(t.to_string(), printed);
        }
        assert_eq!(Time::parse("Infinity").unwrap(), Time::INFINITY);
        assert_eq!(Time::INFINITY.to_string(), "infinity");
    }

    #[test]
    fn refuses_what_is_not_a_plain_decimal() {
        for bad in ["-1.0", "+1", "1e3", "", ".5", "1.", "abc", "1.0000000001", "99999999999999999999"] {
            assert!(Time::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn arithmetic_keeps_infinity_and_stays_exact() {
        let one = Time::parse("1.0").unwrap();
        let a = Time::parse("0.3").unwrap();
        let b = Time::parse("0.7").unwrap();
        assert_eq!(one.minus(a).minus(b), Time::ZERO);
        assert_eq!(Time::INFINITY.minus(one), Time::INFINITY);
        assert_eq!(a.plus(b), one);
        assert_eq!(a.plus(Time::INFINITY), Time::INFINITY);
        assert!(one < Time::INFINITY);
    }
}
