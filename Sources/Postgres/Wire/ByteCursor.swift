/// Reads big-endian integers, C strings and byte runs from a message body, checking bounds.
struct ByteCursor {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func byte() throws -> UInt8 {
        guard index < bytes.count else { throw truncated() }
        defer { index += 1 }
        return bytes[index]
    }

    mutating func int16() throws -> Int16 {
        guard index + 2 <= bytes.count else { throw truncated() }
        defer { index += 2 }
        return Int16(bitPattern: UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1]))
    }

    mutating func int32() throws -> Int32 {
        guard index + 4 <= bytes.count else { throw truncated() }
        defer { index += 4 }
        let value = UInt32(bytes[index]) << 24 | UInt32(bytes[index + 1]) << 16 | UInt32(bytes[index + 2]) << 8 | UInt32(bytes[index + 3])
        return Int32(bitPattern: value)
    }

    /// `count` bytes (shares the body's storage).
    mutating func bytes(_ count: Int) throws -> ArraySlice<UInt8> {
        guard count >= 0, index + count <= bytes.count else { throw truncated() }
        defer { index += count }
        return bytes[index..<(index + count)]
    }

    /// A NUL-terminated UTF-8 string (invalid bytes replaced).
    mutating func cString() throws -> String {
        guard let end = bytes[index...].firstIndex(of: 0) else { throw truncated() }
        defer { index = end + 1 }
        return String(decoding: bytes[index..<end], as: UTF8.self)
    }

    /// Everything not read yet.
    mutating func rest() -> ArraySlice<UInt8> {
        defer { index = bytes.count }
        return bytes[index...]
    }

    private func truncated() -> PostgresError {
        PostgresError(.protocolViolation, "a message from the server is shorter than its fields")
    }
}
