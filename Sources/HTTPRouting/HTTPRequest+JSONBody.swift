import HTTPCore
import JSON

extension HTTPRequest {
    /// The media type of `Content-Type`, lower-cased, without parameters; nil when absent.
    public var mediaType: String? {
        headers["Content-Type"].map { value in
            value.split(separator: ";", omittingEmptySubsequences: false).first
                .map { HTTPHeaders.trimmingOptionalWhitespace($0).lowercased() } ?? ""
        }
    }

    /// Whether `Content-Type` declares JSON: `application/json` or any `*/*+json`. Runs on every
    /// request with a body, so it reads the header's bytes in place (no lower-cased copies).
    public var declaresJSONBody: Bool {
        guard var value = headers["Content-Type"] else { return false }
        return value.withUTF8 { bytes in
            var end = bytes.firstIndex(of: UInt8(ascii: ";")) ?? bytes.count
            var start = 0
            while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
            while end > start, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
            func matches(_ text: StaticString, at offset: Int) -> Bool {
                let count = text.utf8CodeUnitCount
                guard offset >= start, offset + count <= end else { return false }
                for index in 0..<count {
                    let byte = bytes[offset + index]
                    let folded = (0x41...0x5A).contains(byte) ? byte | 0x20 : byte
                    if folded != text.utf8Start[index] { return false }
                }
                return true
            }
            let json: StaticString = "application/json"
            return (end - start == json.utf8CodeUnitCount && matches(json, at: start)) || matches("+json", at: end - 5)
        }
    }
}

extension StrictJSON.Violation {
    /// The sentence a 400 answer carries, e.g. "The body is not valid JSON: trailing comma in
    /// an object at byte 17."
    public var message: String { "The body is not valid JSON: \(description)." }
}
