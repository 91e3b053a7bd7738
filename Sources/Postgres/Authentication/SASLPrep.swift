import Foundation

/// The part of SASLprep (RFC 4013) that changes real passwords: non-ASCII spaces become U+0020,
/// "mapped to nothing" characters are removed, and the result is NFKC-normalized. ASCII passwords
/// pass through untouched. Like PostgreSQL, a password the full profile would prohibit is not
/// refused here: the server then uses the raw bytes, which a prohibited character leaves as they are.
enum SASLPrep {
    static func prepare(_ password: String) -> String {
        if password.utf8.allSatisfy({ $0 < 0x80 }) { return password }
        var mapped = String.UnicodeScalarView()
        for scalar in password.unicodeScalars {
            if mappedToNothing.contains(scalar.value) { continue }
            if nonASCIISpaces.contains(scalar.value) {
                mapped.append(" ")
            } else {
                mapped.append(scalar)
            }
        }
        return String(mapped).precomposedStringWithCompatibilityMapping
    }

    /// RFC 3454 table C.1.2.
    private static let nonASCIISpaces: Set<UInt32> = [
        0x00A0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007, 0x2008, 0x2009, 0x200A,
        0x200B, 0x202F, 0x205F, 0x3000
    ]

    /// RFC 3454 table B.1.
    private static let mappedToNothing: Set<UInt32> = [
        0x00AD, 0x034F, 0x1806, 0x180B, 0x180C, 0x180D, 0x200B, 0x200C, 0x200D, 0x2060, 0xFE00, 0xFE01, 0xFE02, 0xFE03,
        0xFE04, 0xFE05, 0xFE06, 0xFE07, 0xFE08, 0xFE09, 0xFE0A, 0xFE0B, 0xFE0C, 0xFE0D, 0xFE0E, 0xFE0F, 0xFEFF
    ]
}
