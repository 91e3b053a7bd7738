import Domain

/// An email address with an optional display name, validated for use in headers and SMTP.
///
/// The address must pass `EmailAddressRule`'s syntax (ASCII `local@domain`, no spaces,
/// angle brackets, quotes, control characters or line breaks; no SMTPUTF8); the display name may be any text without a line break (non-ASCII
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

    /// The one address rule's syntax (`EmailAddressRule`); recipients are held to the whole rule (`MailComposer`).
    private static func isValid(_ address: String) -> Bool {
        EmailAddressRule.acceptsSyntax(address)
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
