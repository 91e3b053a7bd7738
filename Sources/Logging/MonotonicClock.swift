#if canImport(Glibc)
    import Glibc
#endif

/// The one monotonic clock of the tree: `CLOCK_MONOTONIC`, which no wall-clock change moves.
/// Every deadline in the HTTP server and every measured duration (request logs, metrics, storage
/// timings) reads it; the wall clock is `RFC3339.writeNow(into:)`'s business.
public enum MonotonicClock {
    /// Nanoseconds since an arbitrary start (the machine's boot on Linux).
    @inlinable
    public static func now() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) &* 1_000_000_000 &+ UInt64(spec.tv_nsec)
    }

    /// Seconds since the same start, for measuring durations.
    @inlinable
    public static func seconds() -> Double {
        Double(now()) / 1e9
    }

    /// Seconds elapsed since `started` (a value of `now()`).
    @inlinable
    public static func seconds(since started: UInt64) -> Double {
        Double(now() &- started) / 1e9
    }

    /// `duration` in nanoseconds, clamped to zero and to about 292 years.
    public static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        guard seconds < Int64(UInt64.max / 2_000_000_000) else { return UInt64.max / 2 }
        return UInt64(seconds) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000)
    }
}
