/// The one rule for a buyer's email address, used at the edge (every API body, form and query
/// that takes one) and by the mailer for every recipient (`MailComposer`), so that an address
/// the service accepts is an address it can mail (issue 40, finding 8): printable ASCII
/// `local@domain` with none of the characters that would break a header or an SMTP path
/// (`<>(),;:\"[]`, spaces, controls), no SMTPUTF8, a local part of at most 64 bytes, a dotted
/// domain that neither starts nor ends with a dot, at most 254 bytes in all.
public enum EmailAddressRule {
    /// Whether `address`, exactly as given, is one the mailer sends to.
    public static func accepts(_ address: String) -> Bool {
        guard acceptsSyntax(address), let at = address.utf8.firstIndex(of: UInt8(ascii: "@")) else { return false }
        return address.utf8[address.utf8.index(after: at)...].contains(UInt8(ascii: "."))
    }

    /// The header and SMTP-path syntax alone (`MailAddress`: a configured sender such as
    /// `no-reply@localhost` needs no dotted domain; a recipient does, `accepts`).
    public static func acceptsSyntax(_ address: String) -> Bool {
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

    /// The address as stored and mailed (trimmed of surrounding spaces and tabs, lower-cased),
    /// or nil when the mailer would refuse it.
    public static func normalized(_ raw: String) -> String? {
        var scalars = Substring(raw)
        while let first = scalars.first, first == " " || first == "\t" { scalars = scalars.dropFirst() }
        while let last = scalars.last, last == " " || last == "\t" { scalars = scalars.dropLast() }
        let email = String(scalars).lowercased()
        return accepts(email) ? email : nil
    }
}
