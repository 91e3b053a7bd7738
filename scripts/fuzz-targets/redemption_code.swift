// libFuzzer target: normalizing typed redemption codes (Crockford base32). Checked against a
// plain restatement of the rule (uppercase; drop spaces and hyphens; O→0, I/L→1; exactly 16
// characters of the alphabet), and normalizing is idempotent. Built by scripts/fuzz.
@testable import Domain

private let alphabet = Set("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)

private func expected(_ input: String) -> String? {
    var out: [UInt8] = []
    for scalar in input.unicodeScalars {
        guard scalar.isASCII else { return nil }
        var byte = UInt8(scalar.value)
        if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "-") { continue }
        if byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") { byte -= 32 }
        if byte == UInt8(ascii: "O") { byte = UInt8(ascii: "0") }
        if byte == UInt8(ascii: "I") || byte == UInt8(ascii: "L") { byte = UInt8(ascii: "1") }
        guard alphabet.contains(byte) else { return nil }
        out.append(byte)
    }
    return out.count == 16 ? String(decoding: out, as: UTF8.self) : nil
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRedemptionCode(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let code = RedemptionCode(normalizing: input)
    let reference = expected(input)
    if code?.canonical != reference {
        fatalError("normalizing \(input.debugDescription) gave \(code?.canonical ?? "nil"), expected \(reference ?? "nil")")
    }
    if let code {
        let display = code.display
        guard display.utf8.count == 19, RedemptionCode(normalizing: display) == code,
            RedemptionCode(normalizing: code.canonical) == code
        else { fatalError("\(code.canonical) does not survive its display form \(display)") }
    }
    return 0
}
