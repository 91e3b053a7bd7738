import Foundation

/// Locates the shared test vectors (`<workspace>/shared/vectors`) next to the package, walking
/// up from this file so tests run from the main checkout and from nested worktrees alike;
/// `TOLLGATE_VECTORS` overrides.
public enum SharedVectors {
    /// The `shared/vectors` directory.
    public static let directory: URL = {
        if let override = ProcessInfo.processInfo.environment["TOLLGATE_VECTORS"] {
            return URL(fileURLWithPath: override)
        }
        var directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        for _ in 0..<8 {
            let candidate = directory.appendingPathComponent("shared/vectors")
            if FileManager.default.fileExists(atPath: candidate.path) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return URL(fileURLWithPath: "/work/shared/vectors")
    }()

    /// The URL of `relativePath` inside the vectors directory (e.g. `google/sa_pub.pem`).
    public static func url(_ relativePath: String) -> URL {
        directory.appendingPathComponent(relativePath)
    }
}
