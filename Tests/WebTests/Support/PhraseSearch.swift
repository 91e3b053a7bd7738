import Glibc

/// Which of a fixed list of phrases occur in a text, compared byte for byte. The
/// language tests ask it of every page and mail for hundreds of English phrases; Foundation's
/// `String.contains` converted both sides to UTF-16 on every call, and was most of their time.
struct PhraseSearch {
    private let phrases: [(text: String, bytes: [UInt8])]

    init(_ phrases: [String]) {
        self.phrases = phrases.map { ($0, Array($0.utf8)) }
    }

    /// The phrases `text` contains, in the list's order.
    func found(in text: String) -> [String] {
        let haystack = Array(text.utf8)
        return haystack.withUnsafeBytes { haystack in
            phrases.filter { phrase in
                phrase.bytes.withUnsafeBytes { Self.occurs($0, in: haystack) }
            }.map(\.text)
        }
    }

    /// Whether `needle` occurs in `haystack`: `memchr` finds each place its first byte stands,
    /// `memcmp` compares the rest there.
    private static func occurs(_ needle: UnsafeRawBufferPointer, in haystack: UnsafeRawBufferPointer) -> Bool {
        guard let first = needle.first, let needleStart = needle.baseAddress else { return true }
        guard var cursor = haystack.baseAddress, needle.count <= haystack.count else { return false }
        let last = cursor + (haystack.count - needle.count)
        while cursor <= last, let found = memchr(cursor, Int32(first), last - cursor + 1) {
            if memcmp(found, needleStart, needle.count) == 0 { return true }
            cursor = UnsafeRawPointer(found) + 1
        }
        return false
    }
}
