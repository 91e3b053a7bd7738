/// The app the pages open (`app.*`): its name, URL scheme and store identities, as the pages,
/// the code landing and the `/.well-known` documents use them.
public struct AppIdentity: Sendable, Equatable {
    /// The iOS app: universal links and the App Store.
    public struct IOS: Sendable, Equatable {
        public var bundleID: String?
        /// Ten upper-case letters and digits.
        public var teamID: String?
        public var appStoreURL: String?

        public init(bundleID: String? = nil, teamID: String? = nil, appStoreURL: String? = nil) {
            self.bundleID = bundleID
            self.teamID = teamID
            self.appStoreURL = appStoreURL
        }
    }

    /// The Android app: app links and Google Play.
    public struct Android: Sendable, Equatable {
        public var packageName: String?
        /// `AB:CD:...`, upper case.
        public var sha256CertFingerprints: [String]
        public var playStoreURL: String?

        public init(packageName: String? = nil, sha256CertFingerprints: [String] = [], playStoreURL: String? = nil) {
            self.packageName = packageName
            self.sha256CertFingerprints = sha256CertFingerprints
            self.playStoreURL = playStoreURL
        }
    }

    /// Shown on pages and in mail.
    public var name: String
    /// The custom URL scheme (`{scheme}://redeem?code=...`); empty when the app has none.
    public var scheme: String
    public var ios: IOS
    public var android: Android

    public init(name: String, scheme: String, ios: IOS = IOS(), android: Android = Android()) {
        self.name = name
        self.scheme = scheme
        self.ios = ios
        self.android = android
    }
}
