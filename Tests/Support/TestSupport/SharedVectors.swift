import Foundation

/// The shared test vectors (`shared/vectors/` next to the package), found by walking up from this
/// file until a folder contains `shared/vectors`; `TOLLGATE_VECTORS` overrides the location.
public enum SharedVectors {
    /// The `shared/vectors` directory.
    public static let directory: URL = {
        if let override = ProcessInfo.processInfo.environment["TOLLGATE_VECTORS"] {
            return URL(fileURLWithPath: override)
        }
        var folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while folder.path != "/" {
            let candidate = folder.appendingPathComponent("shared/vectors")
            if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        return URL(fileURLWithPath: "/work/shared/vectors")
    }()

    /// The URL of `relativePath` inside the vectors directory (e.g. `apple/certs/testCA.der`).
    public static func url(_ relativePath: String) -> URL {
        directory.appendingPathComponent(relativePath)
    }

    /// The bytes of a vector file.
    /// - Throws: the file system error if it cannot be read.
    public static func bytes(_ relativePath: String) throws -> [UInt8] {
        Array(try Data(contentsOf: url(relativePath)))
    }

    /// The text of a vector file with surrounding whitespace removed.
    /// - Throws: the file system error if it cannot be read.
    public static func text(_ relativePath: String) throws -> String {
        String(decoding: try bytes(relativePath), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
