import Foundation

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
    /// ending between `from` and `to` (seconds since 1970).
    static func measure(
        logLines: some Sequence<Substring>, route: String, from: Double, to: Double, slowMilliseconds: Double,
        episodes: [SlowEpisode]
    ) -> RequestLogAttribution {
        var result = RequestLogAttribution()
        for line in logLines where line.contains("\"event\":\"request\"") {
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                object["route"] as? String == route, let stamp = object["ts"] as? String, let end = parseTimestamp(stamp),
                let milliseconds = (object["duration_ms"] as? NSNumber)?.doubleValue, end >= from, end <= to
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

    /// Seconds since 1970 of an RFC 3339 UTC stamp with milliseconds, as the logs write them.
    static func parseTimestamp(_ text: String) -> Double? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)?.timeIntervalSince1970
    }
}
