extension PostgresValue {
    /// Decodes a column's text-format bytes by the column's type OID: integers, floats, booleans
    /// and `bytea` (hex output) to their cases, everything else (numeric included) to `.text`.
    /// - Throws: `PostgresError` (`.decoding`) naming the column when the bytes do not parse.
    static func decode(_ bytes: ArraySlice<UInt8>, type: UInt32, column: String) throws -> PostgresValue {
        switch type {
        case PostgresTypeOID.int2, PostgresTypeOID.int4, PostgresTypeOID.int8, PostgresTypeOID.oid:
            guard let value = parseInteger(bytes) else { throw decodingError(column, "an integer") }
            return .int(value)
        case PostgresTypeOID.float4, PostgresTypeOID.float8:
            guard let value = Double(String(decoding: bytes, as: UTF8.self)) else { throw decodingError(column, "a float") }
            return .double(value)
        case PostgresTypeOID.bool:
            guard bytes.count == 1 else { throw decodingError(column, "a boolean") }
            switch bytes.first {
            case UInt8(ascii: "t"): return .bool(true)
            case UInt8(ascii: "f"): return .bool(false)
            default: throw decodingError(column, "a boolean")
            }
        case PostgresTypeOID.bytea:
            guard let value = decodeHexBytea(bytes) else {
                throw PostgresError(.decoding, "column '\(column)': bytea is not in hex format (set bytea_output = 'hex')")
            }
            return .bytes(value)
        default:
            return .text(String(decoding: bytes, as: UTF8.self))
        }
    }

    /// A decimal Int64 without going through String (every integer column of every row).
    private static func parseInteger(_ bytes: ArraySlice<UInt8>) -> Int64? {
        var index = bytes.startIndex
        guard index < bytes.endIndex else { return nil }
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        guard index < bytes.endIndex else { return nil }
        var value: Int64 = 0
        while index < bytes.endIndex {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            // Accumulate negatively so Int64.min parses without overflow.
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = times10.subtractingReportingOverflow(Int64(digit))
            guard !overflow1, !overflow2 else { return nil }
            value = next
            index += 1
        }
        if negative { return value }
        return value == Int64.min ? nil : -value
    }

    /// `\x` followed by two hex digits per byte.
    private static func decodeHexBytea(_ bytes: ArraySlice<UInt8>) -> [UInt8]? {
        guard bytes.count >= 2, bytes.count % 2 == 0, bytes[bytes.startIndex] == UInt8(ascii: "\\"),
            bytes[bytes.startIndex + 1] == UInt8(ascii: "x")
        else { return nil }
        let count = bytes.count / 2 - 1
        var valid = true
        let out = [UInt8](unsafeUninitializedCapacity: count) { output, initialized in
            bytes.withUnsafeBufferPointer { input in
                var index = 2
                for position in 0..<count {
                    guard let high = hexNibble(input[index]), let low = hexNibble(input[index + 1]) else {
                        valid = false
                        break
                    }
                    output[position] = high << 4 | low
                    index += 2
                }
            }
            initialized = valid ? count : 0
        }
        return valid ? out : nil
    }

    private static func hexNibble(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static func decodingError(_ column: String, _ expected: String) -> PostgresError {
        PostgresError(.decoding, "column '\(column)': the server's text is not \(expected)")
    }
}
