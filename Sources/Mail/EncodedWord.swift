import Foundation

/// Header text encoding: RFC 2047 encoded words for non-ASCII text and RFC 5322 quoted strings.
enum EncodedWord {
    /// The longest encoded word RFC 2047 §2 allows.
    static let maximumWordLength = 75
    /// UTF-8 bytes per word: `=?UTF-8?B?` + 60 base64 characters + `?=` is 72 characters.
    static let bytesPerWord = 45

    /// True when `text` can go in a header as it is: printable ASCII and spaces only.
    static func isPlainASCII(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 >= 32 && $0 < 127 }
    }

    /// `text` as one or more `=?UTF-8?B?...?=` words separated by folding whitespace
    /// (CRLF + space), never splitting a character's UTF-8 bytes across words.
    static func encode(_ text: String) -> String {
        var words: [String] = []
        var chunk: [UInt8] = []
        for scalar in text.unicodeScalars {
            let bytes = Array(String(scalar).utf8)
            if chunk.count + bytes.count > bytesPerWord, !chunk.isEmpty {
                words.append(word(chunk))
                chunk.removeAll(keepingCapacity: true)
            }
            chunk += bytes
        }
        if !chunk.isEmpty || words.isEmpty { words.append(word(chunk)) }
        return words.joined(separator: "\r\n ")
    }

    private static func word(_ bytes: [UInt8]) -> String {
        "=?UTF-8?B?" + Data(bytes).base64EncodedString() + "?="
    }

    /// An unstructured header value (Subject): as is when it is short printable ASCII, otherwise
    /// encoded words folded onto continuation lines.
    static func unstructured(_ text: String, headerName: String) -> String {
        if isPlainASCII(text), headerName.count + 2 + text.utf8.count <= 78 {
            return text
        }
        return encode(text)
    }

    /// A display name: an RFC 5322 quoted string for ASCII, encoded words otherwise.
    static func displayName(_ name: String) -> String {
        guard isPlainASCII(name), name.utf8.count <= 60 else { return encode(name) }
        var quoted = "\""
        for character in name {
            if character == "\"" || character == "\\" { quoted.append("\\") }
            quoted.append(character)
        }
        return quoted + "\""
    }
}
