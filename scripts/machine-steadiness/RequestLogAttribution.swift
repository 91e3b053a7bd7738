import Foundation
import Logging

/// How the requests of a Tollgate request log line up with slow episodes: whether the slow
/// requests are the ones that ran while the CPUs were slow.
struct RequestLogAttribution: Sendable, Equatable {
    /// Requests of the route that ended inside the probed window.
    var requests = 0
    /// Of those, the ones that overlapped an episode.
    var requestsInEpisodes = 0
    /// Requests of the route at least `slowMilliseconds` long (server-side duration).
    var slowRequests = 0
    /// Of those, the ones that overlapped an episode.
    var slowRequestsInEpisodes = 0

    /// Reads request lines (`"event":"request"`, with `ts`, `route` and `duration_ms`) of `route`
    /// ending between `from` and `to` (seconds since 1970). The lines are Tollgate's own JSON log
    /// lines, whose `ts` and `duration_ms` never need unescaping, so the fields are read directly:
    /// a full JSON parse of every line took ~0.1 ms each, seconds for one benchmark's log.
    static func measure(
        logLines: some Sequence<Substring>, route: String, from: Double, to: Double, slowMilliseconds: Double,
        episodes: [SlowEpisode]
    ) -> RequestLogAttribution {
        var result = RequestLogAttribution()
        let routeField = "\"route\":\"\(route)\""
        for line in logLines where line.contains(routeField) && line.contains("\"event\":\"request\"") {
            guard let stamp = field("ts", in: line), let end = RFC3339.parse(stamp),
                end >= from, end <= to, let duration = field("duration_ms", in: line), let milliseconds = Double(duration)
            else { continue }
            // Log stamps have millisecond precision: widen by that much.
            let inEpisode = SlowEpisodes.overlaps(episodes, start: end - milliseconds / 1000, end: end, margin: 0.001)
            result.requests += 1
            if inEpisode { result.requestsInEpisodes += 1 }
            if milliseconds >= slowMilliseconds {
                result.slowRequests += 1
                if inEpisode { result.slowRequestsInEpisodes += 1 }
            }
        }
        return result
    }

    /// The value of top-level member `name` of a flat log line: a string's text (without quotes)
    /// or a number's digits; nil when absent.
    static func field(_ name: String, in line: Substring) -> Substring? {
        guard let key = line.range(of: "\"\(name)\":") else { return nil }
        let rest = line[key.upperBound...]
        if rest.first == "\"" {
            let text = rest.dropFirst()
            return text.firstIndex(of: "\"").map { text[..<$0] }
        }
        let end = rest.firstIndex { $0 == "," || $0 == "}" } ?? rest.endIndex
        return rest[..<end]
    }
}
