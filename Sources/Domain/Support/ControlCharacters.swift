/// The one rule for characters that must not reach storage from an identifier a client names
/// (`app_user_id`, `device_id`) and are escaped wherever stored text is printed to a terminal:
/// Unicode controls (Cc: NUL, ESC, CR, LF, DEL, the C1 controls such as CSI), format characters
/// (Cf: zero-width and bidi marks) and the line and paragraph separators (Zl, Zp).
public enum ControlCharacters {
    /// Whether `scalar` is a control, format, line- or paragraph-separator character.
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        // ASCII's only such characters are its controls (Cc): no table lookup for them.
        if scalar.value < 0x80 { return scalar.value < 0x20 || scalar.value == 0x7F }
        return switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator: true
        default: false
        }
    }

    /// Whether `text` holds any such character.
    public static func contains(_ text: String) -> Bool {
        !isPrintableASCII(text) && text.unicodeScalars.contains(where: isControl)
    }

    /// Whether every byte of `text` is printable ASCII (U+0020 to U+007E): then it holds no such
    /// character and no line break. One pass over the bytes, the common case of ids and codes.
    public static func isPrintableASCII(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
    }

    /// `U+001B`: how a message names a refused character without printing it.
    public static func name(_ scalar: Unicode.Scalar) -> String {
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    /// `text` with each such character written as `\u{HEX}`: safe to print on a terminal.
    public static func escaped(_ text: String) -> String {
        guard contains(text) else { return text }
        var result = ""
        result.unicodeScalars.reserveCapacity(text.unicodeScalars.count + 8)
        for scalar in text.unicodeScalars {
            if isControl(scalar) {
                result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
