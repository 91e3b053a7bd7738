import Domain

/// An email address with an optional display name, validated for use in headers and SMTP.
///
/// The address must be ASCII `local@domain` with no spaces, angle brackets, control characters or
/// line breaks (no SMTPUTF8); the display name may be any text without a line break (non-ASCII
/// names are written as RFC 2047 encoded words).
public struct MailAddress: Sendable, Equatable, CustomStringConvertible {
    /// `local@domain`.
    public let address: String
    /// The name shown before the address, if any.
    public let displayName: String?

    /// Validates and creates an address.
    /// - Throws: `MailError` (permanent) when the address is malformed or either part contains a
    ///   CR or LF (header injection).
    public init(_ address: String, displayName: String? = nil) throws {
        if address.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\r\n" }) {
            throw MailError.permanent("header injection refused: the email address contains a line break")
        }
        if let displayName, displayName.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" }) {
            throw MailError.permanent("header injection refused: the display name contains a line break")
        }
        guard Self.isValid(address) else {
            throw MailError.permanent("invalid email address (expected ASCII local@domain, at most 254 characters)")
        }
        self.address = address
        let trimmed = displayName?.trimmingSpaces
        self.displayName = (trimmed?.isEmpty ?? true) ? nil : trimmed
    }

    /// The address alone, masked for logs and operator views as everywhere (`EmailMask`):
    /// `j•••@e•••.com`.
    public var masked: String { EmailMask.mask(address) }

    /// `Name <address>` or `<address>` (unencoded; for logs and tests).
    public var description: String {
        displayName.map { "\($0) <\(address)>" } ?? "<\(address)>"
    }

    private static func isValid(_ address: String) -> Bool {
        let bytes = Array(address.utf8)
        guard bytes.count >= 3, bytes.count <= 254 else { return false }
        guard let at = bytes.firstIndex(of: UInt8(ascii: "@")), at > 0, at < bytes.count - 1, at <= 64 else { return false }
        for byte in bytes {
            // Printable ASCII except the characters that would break a header or an SMTP path.
            guard byte > 0x20, byte < 0x7F else { return false }
            switch byte {
            case UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: ","),
                 UInt8(ascii: ";"), UInt8(ascii: ":"), UInt8(ascii: "\\"), UInt8(ascii: "\""), UInt8(ascii: "["),
                 UInt8(ascii: "]"):
                return false
            default:
                continue
            }
        }
        let domain = bytes[(at + 1)...]
        return !domain.contains(UInt8(ascii: "@")) && domain.first != UInt8(ascii: ".") && domain.last != UInt8(ascii: ".")
    }
}

extension String {
    /// The string without leading and trailing spaces and tabs.
    var trimmingSpaces: String {
        var scalars = Substring(self)
        while let first = scalars.first, first == " " || first == "\t" { scalars = scalars.dropFirst() }
        while let last = scalars.last, last == " " || last == "\t" { scalars = scalars.dropLast() }
        return String(scalars)
    }
}
