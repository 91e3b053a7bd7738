import Foundation

/// The test vectors the repository holds (`Tests/Fixtures/vectors/`, a copy of the team's shared
/// vectors with the same layout), so a clone alone runs its tests; `TOLLGATE_VECTORS` overrides
/// the location.
public enum SharedVectors {
    /// The vectors directory: `TOLLGATE_VECTORS` when set, else `Tests/Fixtures/vectors`.
    public static let directory: URL = {
        if let override = ProcessInfo.processInfo.environment["TOLLGATE_VECTORS"], !override.isEmpty {
            return URL(fileURLWithPath: override)
        }
        return repositoryCopy
    }()

    /// `Tests/Fixtures/vectors` of this checkout, found from this file's own path
    /// (`Tests/Support/TestSupport/SharedVectors.swift`), whatever the working directory.
    public static let repositoryCopy: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // TestSupport
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // Tests
        .appendingPathComponent("Fixtures/vectors")

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
