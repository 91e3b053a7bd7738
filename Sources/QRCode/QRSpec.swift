/// The ISO/IEC 18004 tables Tollgate's encoder needs: error correction level M, byte mode.
enum QRSpec {
    /// Smallest and largest symbol versions.
    static let versions = 1...40

    /// Error correction codewords in every block, level M, indexed by `version - 1`.
    static let ecCodewordsPerBlock: [Int] = [
        10, 16, 26, 18, 24, 16, 18, 22, 22, 26,
        30, 22, 22, 24, 24, 28, 28, 26, 26, 26,
        26, 28, 28, 28, 28, 28, 28, 28, 28, 28,
        28, 28, 28, 28, 28, 28, 28, 28, 28, 28
    ]

    /// Number of error correction blocks, level M, indexed by `version - 1`. When the data
    /// codewords do not divide evenly, the first blocks are one data codeword shorter.
    static let blockCount: [Int] = [
        1, 1, 1, 2, 2, 4, 4, 4, 5, 5,
        5, 8, 9, 9, 10, 10, 11, 13, 14, 16,
        17, 17, 18, 20, 21, 23, 25, 26, 28, 29,
        31, 33, 35, 37, 38, 40, 43, 45, 47, 49
    ]

    /// Centre coordinates (on both axes) of the alignment patterns, indexed by `version - 1`.
    static let alignmentCentres: [[Int]] = [
        [], [6, 18], [6, 22], [6, 26], [6, 30], [6, 34],
        [6, 22, 38], [6, 24, 42], [6, 26, 46], [6, 28, 50], [6, 30, 54], [6, 32, 58], [6, 34, 62],
        [6, 26, 46, 66], [6, 26, 48, 70], [6, 26, 50, 74], [6, 30, 54, 78], [6, 30, 56, 82],
        [6, 30, 58, 86], [6, 34, 62, 90],
        [6, 28, 50, 72, 94], [6, 26, 50, 74, 98], [6, 30, 54, 78, 102], [6, 28, 54, 80, 106],
        [6, 32, 58, 84, 110], [6, 30, 58, 86, 114], [6, 34, 62, 90, 118],
        [6, 26, 50, 74, 98, 122], [6, 30, 54, 78, 102, 126], [6, 26, 52, 78, 104, 130],
        [6, 30, 56, 82, 108, 134], [6, 34, 60, 86, 112, 138], [6, 30, 58, 86, 114, 142],
        [6, 34, 62, 90, 118, 146],
        [6, 30, 54, 78, 102, 126, 150], [6, 24, 50, 76, 102, 128, 154],
        [6, 28, 54, 80, 106, 132, 158], [6, 32, 58, 84, 110, 136, 162],
        [6, 26, 54, 82, 110, 138, 166], [6, 30, 58, 86, 114, 142, 170]
    ]

    /// Modules per side: 21 for version 1, four more per version.
    static func size(version: Int) -> Int { 17 + 4 * version }

    /// Modules left for codewords (data + error correction + remainder bits) once the
    /// finder patterns with separators, format information, dark module, timing patterns,
    /// alignment patterns and version information are placed.
    static func dataModules(version: Int) -> Int {
        let size = size(version: version)
        var modules = size * size
        modules -= 3 * 64  // finders with separators
        modules -= 2 * 15 + 1  // two format copies and the dark module
        modules -= 2 * (size - 16)  // timing patterns between the separators
        let perAxis = alignmentCentres[version - 1].count
        if perAxis > 0 {
            let patterns = perAxis * perAxis - 3  // none over the finders
            let onTiming = 2 * (perAxis - 2)  // these share 5 modules with a timing line
            modules -= 25 * patterns - 5 * onTiming
        }
        if version >= 7 { modules -= 2 * 18 }  // two version information blocks
        return modules
    }

    /// Total codewords (data + error correction); leftover modules are remainder bits.
    static func totalCodewords(version: Int) -> Int { dataModules(version: version) / 8 }

    /// Data codewords at level M.
    static func dataCodewords(version: Int) -> Int {
        totalCodewords(version: version)
            - ecCodewordsPerBlock[version - 1] * blockCount[version - 1]
    }

    /// Bits of the byte-mode character count indicator.
    static func countBits(version: Int) -> Int { version <= 9 ? 8 : 16 }

    /// The most bytes byte mode carries at level M in `version`.
    static func byteCapacity(version: Int) -> Int {
        (dataCodewords(version: version) * 8 - 4 - countBits(version: version)) / 8
    }

    /// The smallest version whose level-M byte capacity holds `byteCount` bytes, or nil.
    static func smallestVersion(forByteCount byteCount: Int) -> Int? {
        versions.first { byteCapacity(version: $0) >= byteCount }
    }
}
