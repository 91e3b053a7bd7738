/// Quoted-printable encoding (RFC 2045 §6.7) of UTF-8 text, line by line.
///
/// Line breaks in the input (CRLF, LF or a lone CR) become CRLF hard breaks; every encoded line
/// is at most 76 characters, using `=` soft breaks; `=`, control characters and non-ASCII bytes
/// are written `=XX`; a space or tab at the end of a line is encoded so that no transport can
/// strip it.
enum QuotedPrintable {
    static let maximumLineLength = 76
    private static let hex = Array("0123456789ABCDEF".utf8)

    /// The encoded text, with CRLF line endings and no trailing line break added.
    static func encode(_ text: String) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count + text.utf8.count / 8)
        let lines = TextLines.split(Array(text.utf8))
        for (index, line) in lines.enumerated() {
            if index > 0 { output += [13, 10] }
            encodeLine(line, into: &output)
        }
        return output
    }

    private static func encodeLine(_ line: ArraySlice<UInt8>, into output: inout [UInt8]) {
        var column = 0
        var index = line.startIndex
        while index < line.endIndex {
            let byte = line[index]
            let isLast = index == line.index(before: line.endIndex)
            let literal =
                (byte >= 33 && byte <= 126 && byte != UInt8(ascii: "="))
                || ((byte == 32 || byte == 9) && !isLast)
            let width = literal ? 1 : 3
            // Room must remain for a soft break "=" unless this is the line's last token.
            let limit = isLast ? maximumLineLength : maximumLineLength - 1
            if column + width > limit {
                output += [UInt8(ascii: "="), 13, 10]
                column = 0
            }
            if literal {
                output.append(byte)
            } else {
                output += [UInt8(ascii: "="), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
            column += width
            index = line.index(after: index)
        }
    }
}

/// Splits bytes into lines at CRLF, LF or a lone CR (the breaks themselves are dropped).
enum TextLines {
    static func split(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var lines: [ArraySlice<UInt8>] = []
        var start = 0
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 10 || byte == 13 {
                lines.append(bytes[start..<index])
                if byte == 13, index + 1 < bytes.count, bytes[index + 1] == 10 { index += 1 }
                start = index + 1
            }
            index += 1
        }
        lines.append(bytes[start..<bytes.count])
        return lines
    }
}
