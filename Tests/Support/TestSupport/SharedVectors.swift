import Foundation

/// Locates the shared test vectors (`<somewhere above the package>/shared/vectors`), found by
/// walking up from this file so tests run from the main checkout and from nested worktrees;
/// `TOLLGATE_VECTORS` overrides.
public enum SharedVectors {
    /// The `shared/vectors` directory.
    public static let directory: URL = {
        if let override = ProcessInfo.processInfo.environment["TOLLGATE_VECTORS"] {
            return URL(fileURLWithPath: override)
        }
        var directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        for _ in 0..<10 {
            let candidate = directory.appendingPathComponent("shared/vectors")
            if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return directory.appendingPathComponent("shared/vectors")
    }()

    /// The URL of `relativePath` inside the vectors directory, e.g. `stripe/webhook_vectors.json`.
    public static func url(_ relativePath: String) -> URL {
        directory.appendingPathComponent(relativePath)
    }

    /// The bytes of a vector file exactly as stored.
    /// - Throws: the file system's error when the file cannot be read.
    public static func bytes(_ relativePath: String) throws -> [UInt8] {
        Array(try Data(contentsOf: url(relativePath)))
    }
}
