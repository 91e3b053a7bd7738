import ByteScan
import Testing

/// The word-at-a-time tests against the byte-by-byte rule they stand for: every byte value at
/// every position of buffers long enough to hold a whole word, a tail and a word boundary.
@Suite("Byte scans: word at a time, exact")
struct ByteScanTests {
    static func controlRule(_ byte: UInt8) -> Bool { byte < 0x20 }
    static func escapeRule(_ byte: UInt8) -> Bool { byte < 0x20 || byte == 0x22 || byte == 0x5C || byte == 0x7F }

    @Test("One special byte anywhere in 0 to 24 plain bytes is found; none is never claimed")
    func everyByteEveryPosition() {
        for length in 0...24 {
            for filler in [UInt8(ascii: "a"), 0x21, 0x7E, 0x80, 0xFF] {
                var bytes = [UInt8](repeating: filler, count: length)
                bytes.withUnsafeBufferPointer { buffer in
                    #expect(!ByteScan.containsControl(buffer), "length \(length), filler \(filler)")
                    #expect(!ByteScan.needsJSONEscape(buffer), "length \(length), filler \(filler)")
                }
                for position in 0..<length {
                    for value in UInt8.min...UInt8.max {
                        bytes[position] = value
                        bytes.withUnsafeBufferPointer { buffer in
                            #expect(ByteScan.containsControl(buffer) == Self.controlRule(value), "byte \(value) at \(position) of \(length)")
                            #expect(ByteScan.needsJSONEscape(buffer) == Self.escapeRule(value), "byte \(value) at \(position) of \(length)")
                        }
                    }
                    bytes[position] = filler
                }
            }
        }
    }

    @Test("Random buffers agree with the byte-by-byte rule")
    func randomBuffers() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let length = Int.random(in: 0...40, using: &generator)
            // Mostly printable, so that buffers with nothing special occur often.
            let bytes = (0..<length).map { _ in
                Int.random(in: 0..<20, using: &generator) == 0 ? UInt8.random(in: 0...255, using: &generator) : UInt8.random(in: 0x23...0x5B)
            }
            bytes.withUnsafeBufferPointer { buffer in
                #expect(ByteScan.containsControl(buffer) == bytes.contains(where: Self.controlRule), "\(bytes)")
                #expect(ByteScan.needsJSONEscape(buffer) == bytes.contains(where: Self.escapeRule), "\(bytes)")
            }
        }
    }

    @Test("Bytes read from an offset that is not a word's are read correctly")
    func unalignedStart() {
        let bytes = [UInt8](repeating: UInt8(ascii: "x"), count: 40) + [0x0A] + [UInt8](repeating: UInt8(ascii: "x"), count: 9)
        bytes.withUnsafeBufferPointer { whole in
            for start in 0..<8 {
                let slice = UnsafeBufferPointer(rebasing: whole[start...])
                #expect(ByteScan.containsControl(slice))
                let before = UnsafeBufferPointer(rebasing: whole[start..<40])
                #expect(!ByteScan.containsControl(before))
            }
        }
    }
}
