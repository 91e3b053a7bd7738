/// Stretches of time in which the CPUs ran slow: slow probe samples (on any thread) that follow
/// each other within `mergeGap` seconds form one episode.
struct SlowEpisode: Sendable, Equatable {
    var start: Double
    var end: Double
    /// Slow samples inside it.
    var samples: Int
    /// The largest CPU-time slowdown seen in it (charged CPU / calibrated unit).
    var worstSlowdown: Double

    var duration: Double { end - start }
}

enum SlowEpisodes {
    /// Episodes of `samples` (sorted by start) whose charged CPU time was at least `threshold`
    /// times `unitSeconds`. A lone slow sample is an episode of one; callers may ignore those.
    static func find(in samples: [ProbeSample], unitSeconds: Double, threshold: Double, mergeGap: Double) -> [SlowEpisode] {
        var episodes: [SlowEpisode] = []
        for sample in samples where sample.cpu >= threshold * unitSeconds {
            let slowdown = sample.cpu / unitSeconds
            if var last = episodes.last, sample.start <= last.end + mergeGap {
                last.end = max(last.end, sample.end)
                last.samples += 1
                last.worstSlowdown = max(last.worstSlowdown, slowdown)
                episodes[episodes.count - 1] = last
            } else {
                episodes.append(SlowEpisode(start: sample.start, end: sample.end, samples: 1, worstSlowdown: slowdown))
            }
        }
        return episodes
    }

    /// Whether the interval [start, end] meets an episode (widened by `margin` each side).
    /// `episodes` must be sorted and disjoint, as `find` returns them.
    static func overlaps(_ episodes: [SlowEpisode], start: Double, end: Double, margin: Double) -> Bool {
        var low = 0, high = episodes.count
        // The first episode that ends at or after `start - margin`.
        while low < high {
            let middle = (low + high) / 2
            if episodes[middle].end + margin < start { low = middle + 1 } else { high = middle }
        }
        return low < episodes.count && episodes[low].start - margin <= end
    }
}
