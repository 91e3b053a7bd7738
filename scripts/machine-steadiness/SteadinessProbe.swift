import Foundation
import Synchronization

/// One measurement of a fixed unit of arithmetic on one thread.
struct ProbeSample: Sendable, Equatable {
    /// Wall-clock start, seconds since 1970 (to line up with request logs).
    let start: Double
    /// Wall time the unit took, seconds.
    let wall: Double
    /// CPU time the thread was charged for it, seconds.
    let cpu: Double

    var end: Double { start + wall }
}

/// Measures how steadily this machine's CPUs run: one thread per core repeatedly runs a unit of
/// pure arithmetic (no memory traffic, no system calls) that takes `unitSeconds` on an unloaded
/// core, then sleeps `pause`. A unit charged several times its calibrated CPU time ran on a CPU
/// that delivered a fraction of its speed while the thread held it: the guest scheduler did not
/// take the thread away (that time is not charged), so the slowness is beneath the guest — the
/// host descheduling or throttling the virtual CPU.
struct SteadinessProbe {
    let unitSeconds: Double
    let pause: Duration

    /// Runs `threads` probing threads for `seconds` and returns every sample, ordered by start.
    func run(seconds: Double, threads: Int) -> [ProbeSample] {
        let iterations = Self.calibrate(unitSeconds: unitSeconds)
        let collected = Mutex<[ProbeSample]>([])
        let finished = DispatchGroup()
        let pauseNanoseconds = Int(pause.components.seconds) * 1_000_000_000 + Int(pause.components.attoseconds / 1_000_000_000)
        for _ in 0..<threads {
            finished.enter()
            let thread = Thread {
                var samples: [ProbeSample] = []
                let end = Clocks.monotonic() + seconds
                var pauseSpec = timespec(tv_sec: pauseNanoseconds / 1_000_000_000, tv_nsec: pauseNanoseconds % 1_000_000_000)
                while Clocks.monotonic() < end {
                    nanosleep(&pauseSpec, nil)
                    let start = Clocks.realtime(), wallStart = Clocks.monotonic(), cpuStart = Clocks.threadCPU()
                    Self.work(iterations)
                    samples.append(ProbeSample(start: start, wall: Clocks.monotonic() - wallStart, cpu: Clocks.threadCPU() - cpuStart))
                }
                collected.withLock { $0 += samples }
                finished.leave()
            }
            thread.start()
        }
        finished.wait()
        return collected.withLock { $0 }.sorted { $0.start < $1.start }
    }

    /// Iterations of `work` that take `unitSeconds` of CPU at full speed: the fastest of many
    /// timed runs, so that a slow moment during calibration does not shrink the unit.
    static func calibrate(unitSeconds: Double) -> Int {
        let trial = 200_000
        var fastest = Double.infinity
        for _ in 0..<30 {
            let start = Clocks.threadCPU()
            work(trial)
            fastest = min(fastest, Clocks.threadCPU() - start)
        }
        return max(1_000, Int(Double(trial) * unitSeconds / max(fastest, 1e-9)))
    }

    /// A chain of dependent multiply-adds the optimizer cannot remove or vectorize.
    static func work(_ iterations: Int) {
        var value: UInt64 = 1
        for _ in 0..<iterations { value = value &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407 }
        sink.store(value, ordering: .relaxed)
    }

    private static let sink = Atomic<UInt64>(0)
}

/// The clocks the probe reads, in seconds.
enum Clocks {
    static func monotonic() -> Double { read(CLOCK_MONOTONIC) }
    static func realtime() -> Double { read(CLOCK_REALTIME) }
    static func threadCPU() -> Double { read(CLOCK_THREAD_CPUTIME_ID) }

    private static func read(_ clock: clockid_t) -> Double {
        var time = timespec()
        clock_gettime(clock, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
