import Testing

@testable import MachineSteadiness

@Suite("Slow episodes of the machine probe")
struct SlowEpisodesTests {
    let unit = 25e-6

    /// A sample starting at `start` seconds, charged `slowdown` units of CPU.
    func sample(_ start: Double, slowdown: Double) -> ProbeSample {
        ProbeSample(start: start, wall: slowdown * unit, cpu: slowdown * unit)
    }

    @Test("Slow samples close together on any thread form one episode; a gap starts the next; fast samples are ignored")
    func merging() {
        let samples = [
            sample(10.000, slowdown: 1.1), sample(10.001, slowdown: 8), sample(10.0015, slowdown: 4),
            sample(10.004, slowdown: 3.5), sample(10.050, slowdown: 1.0), sample(10.100, slowdown: 12)
        ]
        let episodes = SlowEpisodes.find(in: samples, unitSeconds: unit, threshold: 3, mergeGap: 0.005)
        #expect(episodes.count == 2)
        #expect(episodes[0].samples == 3)
        #expect(abs(episodes[0].start - 10.001) < 1e-9)
        #expect(abs(episodes[0].end - (10.004 + 3.5 * unit)) < 1e-9)
        #expect(episodes[0].worstSlowdown == 8)
        #expect(episodes[1].samples == 1 && episodes[1].worstSlowdown == 12)
    }

    @Test("A thread preempted by the guest (wall long, CPU charged normal) is not a slow machine")
    func preemptionIsNotSlowness() {
        let preempted = ProbeSample(start: 5, wall: 40 * unit, cpu: 1.05 * unit)
        #expect(SlowEpisodes.find(in: [preempted], unitSeconds: unit, threshold: 3, mergeGap: 0.005).isEmpty)
    }

    @Test("An interval overlaps an episode only when it meets it, within the margin")
    func overlap() {
        let episodes = [
            SlowEpisode(start: 1.0, end: 1.02, samples: 3, worstSlowdown: 5),
            SlowEpisode(start: 2.0, end: 2.01, samples: 2, worstSlowdown: 4)
        ]
        #expect(SlowEpisodes.overlaps(episodes, start: 0.99, end: 1.001, margin: 0))
        #expect(SlowEpisodes.overlaps(episodes, start: 1.5, end: 2.5, margin: 0))
        #expect(!SlowEpisodes.overlaps(episodes, start: 1.03, end: 1.9, margin: 0))
        #expect(SlowEpisodes.overlaps(episodes, start: 1.9, end: 1.9995, margin: 0.001))
        #expect(!SlowEpisodes.overlaps(episodes, start: 2.02, end: 3, margin: 0.001))
        #expect(!SlowEpisodes.overlaps([], start: 0, end: 10, margin: 0))
    }

    @Test("Requests of the route in the window are counted, and the slow ones that ran in an episode")
    func attribution() throws {
        let base = 1_795_255_200.0  // 2026-11-21T10:00:00Z
        let episodes = [SlowEpisode(start: base + 1.000, end: base + 1.030, samples: 5, worstSlowdown: 9)]
        func line(_ stamp: String, _ route: String, _ milliseconds: Double) -> Substring {
            Substring(
                #"{"ts":"2026-11-21T10:00:\#(stamp)Z","level":"info","event":"request","method":"POST","route":"\#(route)","status":200,"duration_ms":\#(milliseconds)}"#
            )
        }
        let lines: [Substring] = [
            line("01.020", "/api/v1/redeem", 25),  // slow, inside the episode
            line("01.500", "/api/v1/redeem", 18),  // slow, outside
            line("01.010", "/api/v1/redeem", 2),  // fast, inside
            line("02.000", "/api/v1/redeem", 3),  // fast, outside
            line("01.020", "/healthz", 30),  // another route
            line("09.000", "/api/v1/redeem", 40),  // after the window
            #"{"ts":"2026-11-21T10:00:01.020Z","level":"info","event":"storage.opened"}"#,
            "not json"
        ]
        let result = RequestLogAttribution.measure(
            logLines: lines, route: "/api/v1/redeem", from: base, to: base + 5, slowMilliseconds: 15, episodes: episodes)
        #expect(result == RequestLogAttribution(requests: 4, requestsInEpisodes: 2, slowRequests: 2, slowRequestsInEpisodes: 1))
    }
}

@Suite("Log lines read by the machine probe")
struct LogLineTests {
    @Test("Fields are read from a log line: strings without quotes, numbers as written, absent ones nil")
    func fields() {
        let line: Substring = #"{"ts":"2026-11-21T10:00:01.020Z","event":"request","status":200,"duration_ms":3.25}"#
        #expect(RequestLogAttribution.field("ts", in: line) == "2026-11-21T10:00:01.020Z")
        #expect(RequestLogAttribution.field("duration_ms", in: line) == "3.25")
        #expect(RequestLogAttribution.field("status", in: line) == "200")
        #expect(RequestLogAttribution.field("route", in: line) == nil)
    }
}
