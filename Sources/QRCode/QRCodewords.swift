/// Builds the final codeword sequence of a symbol: the byte-mode bit stream padded to the
/// version's data capacity, split into blocks, each given its Reed–Solomon codewords, and
/// the blocks interleaved.
enum QRCodewords {
    /// The padded data codewords for `bytes` in byte mode at `version` (which must fit them).
    static func dataCodewords(for bytes: [UInt8], version: Int) -> [UInt8] {
        let capacity = QRSpec.dataCodewords(version: version)
        var writer = BitWriter(capacity: capacity)
        writer.append(0b0100, bits: 4)  // byte mode
        writer.append(bytes.count, bits: QRSpec.countBits(version: version))
        for byte in bytes { writer.append(Int(byte), bits: 8) }
        // Terminator: up to four zero bits, then zeros to the byte boundary.
        writer.append(0, bits: min(4, capacity * 8 - writer.bitCount))
        writer.append(0, bits: (8 - writer.bitCount % 8) % 8)
        var codewords = writer.bytes
        var pad: UInt8 = 0xEC
        while codewords.count < capacity {
            codewords.append(pad)
            pad = pad == 0xEC ? 0x11 : 0xEC
        }
        return codewords
    }

    /// Data codewords split into the version's blocks, each followed by its error
    /// correction, interleaved: first byte of every block's data, second byte, …, then the
    /// error correction bytes the same way.
    static func interleaved(data: [UInt8], version: Int) -> [UInt8] {
        let blocks = QRSpec.blockCount[version - 1]
        let ecLength = QRSpec.ecCodewordsPerBlock[version - 1]
        let shortDataLength = data.count / blocks
        let longBlocks = data.count % blocks
        let shortBlocks = blocks - longBlocks
        let rs = ReedSolomon(degree: ecLength)

        var dataBlocks: [ArraySlice<UInt8>] = []
        var ecBlocks: [[UInt8]] = []
        var start = 0
        for index in 0..<blocks {
            let length = shortDataLength + (index < shortBlocks ? 0 : 1)
            let block = data[start..<start + length]
            dataBlocks.append(block)
            ecBlocks.append(rs.remainder(of: Array(block)))
            start += length
        }

        var result: [UInt8] = []
        result.reserveCapacity(data.count + blocks * ecLength)
        for i in 0...shortDataLength {
            for block in dataBlocks where i < block.count {
                result.append(block[block.startIndex + i])
            }
        }
        for i in 0..<ecLength {
            for block in ecBlocks { result.append(block[i]) }
        }
        return result
    }
}

/// Appends values most significant bit first into bytes.
struct BitWriter {
    private(set) var bytes: [UInt8] = []
    private(set) var bitCount = 0

    init(capacity: Int) { bytes.reserveCapacity(capacity) }

    /// Appends the low `bits` bits of `value`, most significant first.
    mutating func append(_ value: Int, bits: Int) {
        var remaining = bits
        while remaining > 0 {
            remaining -= 1
            if bitCount % 8 == 0 { bytes.append(0) }
            if (value >> remaining) & 1 != 0 {
                bytes[bytes.count - 1] |= 0x80 >> UInt8(bitCount % 8)
            }
            bitCount += 1
        }
    }
}
