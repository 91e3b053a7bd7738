/// The App Store environment that signed data belongs to, as written in payloads (`environment`)
/// and in the configuration (`apple.environment`).
public enum AppStoreEnvironment: String, Sendable, Hashable, CaseIterable {
    /// Real purchases.
    case production = "Production"
    /// Sandbox testers, TestFlight and App Review.
    case sandbox = "Sandbox"
    /// StoreKit testing in Xcode: signed locally by Xcode, never by the App Store.
    case xcode = "Xcode"
    /// Apple's local testing environment: not signed by the App Store either.
    case localTesting = "LocalTesting"

    /// Whether data of this environment is signed by the App Store and so can be chained to an
    /// Apple root. Xcode and LocalTesting data carry a one-certificate `x5c` made by Xcode.
    public var isSignedByAppStore: Bool {
        switch self {
        case .production, .sandbox: true
        case .xcode, .localTesting: false
        }
    }

    /// Parses a configuration value, ignoring case: `Production`, `sandbox`, `Xcode`, `LocalTesting`.
    public init?(configValue: String) {
        guard let match = Self.allCases.first(where: { $0.rawValue.lowercased() == configValue.lowercased() }) else {
            return nil
        }
        self = match
    }
}
