/// A QR code symbol (ISO/IEC 18004) holding bytes in byte mode at error correction level M,
/// in the smallest version that fits, with the lowest-penalty of the eight data masks.
///
/// Used for the redeem link on desktop pages: `try QRCode(encoding: url).svg(label: ...)`.
public struct QRCode: Sendable {
    /// The symbol version, 1...40; the symbol is `17 + 4 * version` modules wide.
    public let version: Int
    /// The data mask pattern chosen, 0...7.
    public let mask: Int
    /// Row-major dark flags, `size * size` of them, without quiet zone.
    let modules: [Bool]

    /// The most bytes a symbol holds (version 40, level M, byte mode).
    public static let maximumByteCount = QRSpec.byteCapacity(version: 40)

    /// Encodes the UTF-8 bytes of `text`.
    /// - Throws: `QRCodeError.dataTooLong` when the bytes do not fit version 40-M.
    public init(encoding text: String) throws {
        try self.init(bytes: Array(text.utf8))
    }

    /// Encodes `bytes` in byte mode.
    /// - Throws: `QRCodeError.dataTooLong` when the bytes do not fit version 40-M.
    public init(bytes: [UInt8]) throws {
        try self.init(bytes: bytes, forcedMask: nil)
    }

    /// Encodes `bytes`, with `forcedMask` instead of the lowest-penalty mask when given
    /// (tests use it to prove every mask decodes).
    /// - Throws: `QRCodeError.dataTooLong` when the bytes do not fit version 40-M.
    init(bytes: [UInt8], forcedMask: Int?) throws {
        guard let version = QRSpec.smallestVersion(forByteCount: bytes.count) else {
            throw QRCodeError.dataTooLong(byteCount: bytes.count, maximum: QRCode.maximumByteCount)
        }
        let data = QRCodewords.dataCodewords(for: bytes, version: version)
        var matrix = QRMatrix(version: version)
        matrix.placeCodewords(QRCodewords.interleaved(data: data, version: version))

        let chosen: (pattern: Int, matrix: QRMatrix)
        if let forcedMask, (0...7).contains(forcedMask) {
            chosen = (forcedMask, QRMask.apply(pattern: forcedMask, to: matrix))
        } else {
            chosen = QRMask.best(for: matrix)
        }
        self.version = version
        self.mask = chosen.pattern
        self.modules = chosen.matrix.dark
    }

    /// Modules per side, without the quiet zone: `17 + 4 * version`.
    public var size: Int { QRSpec.size(version: version) }

    /// Whether the module in column `x`, row `y` (0-based from the top left) is dark.
    /// Coordinates outside the symbol (the quiet zone) are light.
    public func isDark(x: Int, y: Int) -> Bool {
        let size = size
        guard x >= 0, x < size, y >= 0, y < size else { return false }
        return modules[y * size + x]
    }
}
