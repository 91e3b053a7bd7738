/// The release a binary is, and the oldest release that may keep serving beside a schema this
/// release migrated (docs/OPERATING.md "Upgrading"). The migrator records it in `schema_releases` with each
/// migration it applies and refuses a database whose schema was migrated by a release that does not
/// let this one run beside it, naming both.
public struct SchemaRelease: Sendable, Equatable {
    /// This release's version, `MAJOR.MINOR.PATCH` (for example `"0.2.0"`).
    public let name: String
    /// The oldest release that may serve beside a schema this release migrated.
    public let oldestBeside: String

    /// A release and the oldest release that may run beside its schema.
    public init(name: String, oldestBeside: String) {
        self.name = name
        self.oldestBeside = oldestBeside
    }

    /// Orders versions by their numeric parts (`0.10.0` after `0.9.0`); a missing part counts as 0.
    public static func isOlder(_ version: String, than other: String) -> Bool {
        let left = parts(version), right = parts(other)
        for index in 0..<max(left.count, right.count) {
            let a = index < left.count ? left[index] : 0, b = index < right.count ? right[index] : 0
            if a != b { return a < b }
        }
        return false
    }

    private static func parts(_ version: String) -> [Int] {
        version.split(separator: ".").map { Int($0) ?? 0 }
    }
}
