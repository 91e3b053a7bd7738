/// Finds the known name closest to a mistyped one ("did you mean secret_key?").
enum KeySuggester {
    /// The candidate within a small edit distance of `name`, if any.
    static func closest(to name: String, among candidates: [String]) -> String? {
        let target = Array(name.lowercased().unicodeScalars)
        var best: (candidate: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(target, Array(candidate.lowercased().unicodeScalars))
            let allowed = max(1, min(3, candidate.count / 3))
            guard distance <= allowed else { continue }
            if best == nil || distance < best?.distance ?? Int.max {
                best = (candidate, distance)
            }
        }
        return best?.candidate
    }

    /// "unknown key; did you mean X?" or "unknown key; expected one of a, b, c".
    static func unknownKeyMessage(_ name: String, siblings: [String]) -> String {
        if let close = closest(to: name, among: siblings) {
            return "unknown key; did you mean \(close)?"
        }
        if siblings.isEmpty { return "unknown key" }
        return "unknown key; expected one of " + siblings.sorted().joined(separator: ", ")
    }

    /// Levenshtein distance with adjacent transpositions counted as one edit.
    static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previousPrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    value = min(value, previousPrevious[j - 2] + 1)
                }
                current[j] = value
            }
            (previousPrevious, previous, current) = (previous, current, previousPrevious)
        }
        return previous[b.count]
    }
}
