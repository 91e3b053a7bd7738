// swift-tools-version: 6.0
// Tollgate: web checkout, redemption codes and store verification, in Swift with no
// package dependencies. Targets are layered; each depends only on the ones above it here.
import PackageDescription

let strict: [SwiftSetting] = [.enableUpcomingFeature("ExistentialAny")]

let package = Package(
    name: "Tollgate",
    products: [
        .executable(name: "tollgate", targets: ["tollgate"]),
    ],
    targets: [
        // System C libraries (Debian: libsqlite3-dev, libssl-dev).
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),

        // Infrastructure: knows nothing of Tollgate.
        .target(name: "Logging", swiftSettings: strict),
        .target(name: "HTTPServer", dependencies: ["Logging"], swiftSettings: strict),
        .target(name: "Storage", dependencies: ["CSQLite", "Logging"], swiftSettings: strict),
        .target(name: "Crypto", dependencies: ["COpenSSL"], swiftSettings: strict),
        .target(name: "Templating", swiftSettings: strict),
        .target(name: "Configuration", swiftSettings: strict),
        .target(name: "Mail", dependencies: ["Storage", "Crypto", "Templating", "Logging"], swiftSettings: strict),

        // The web layer: routes, handlers, pages, operations endpoints.
        .target(
            name: "Web",
            dependencies: ["HTTPServer", "Storage", "Crypto", "Templating", "Configuration", "Logging"],
            swiftSettings: strict
        ),

        // Executables.
        .executableTarget(name: "tollgate", dependencies: ["Web"], swiftSettings: strict),
        .executableTarget(name: "CryptoBenchmark", dependencies: ["Crypto"], swiftSettings: strict),

        // Tests.
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer"], swiftSettings: strict),
        .testTarget(name: "StorageTests", dependencies: ["Storage"], swiftSettings: strict),
        .testTarget(name: "CryptoTests", dependencies: ["Crypto"], swiftSettings: strict),
        .testTarget(name: "TemplatingTests", dependencies: ["Templating"], swiftSettings: strict),
        .testTarget(name: "ConfigurationTests", dependencies: ["Configuration"], swiftSettings: strict),
        .testTarget(name: "MailTests", dependencies: ["Mail", "Storage", "Templating"], swiftSettings: strict),
        .testTarget(name: "WebTests", dependencies: ["Web", "HTTPServer", "Storage"], swiftSettings: strict),
    ]
)
