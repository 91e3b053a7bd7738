/// Why a QR code could not be made.
public enum QRCodeError: Error, Equatable, CustomStringConvertible {
    /// The data needs more than the largest symbol (version 40, level M, byte mode) holds.
    case dataTooLong(byteCount: Int, maximum: Int)

    /// A message a caller can act on.
    public var description: String {
        switch self {
        case let .dataTooLong(byteCount, maximum):
            return "QR code data is \(byteCount) bytes; at most \(maximum) bytes fit a version 40 symbol at error correction level M"
        }
    }
}
