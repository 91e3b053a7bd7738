/// A UUID as clients send one (`checkout_context_id`): exactly 36 characters, hex digits in
/// groups of 8-4-4-4-12 joined by hyphens. Foundation's `UUID(uuidString:)` is not this check on
/// Linux: it takes whitespace inside a UUID (and reads other digits than were sent).
enum UUIDInput {
    /// `text` lower-cased when it is a UUID in that form; nil otherwise.
    static func canonical(_ text: String) -> String? {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return nil }
        for (index, byte) in bytes.enumerated() {
            if index == 8 || index == 13 || index == 18 || index == 23 {
                guard byte == UInt8(ascii: "-") else { return nil }
            } else {
                let lower = byte | 0x20
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(lower) else {
                    return nil
                }
            }
        }
        return text.lowercased()
    }
}
