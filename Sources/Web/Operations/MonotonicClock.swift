#if canImport(Glibc)
import Glibc
#endif

/// Monotonic seconds for measuring durations (cheaper than `ContinuousClock.now` arithmetic).
enum MonotonicClock {
    static func seconds() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}
