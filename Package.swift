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
        // Linux/glibc headers the Glibc module does not export (epoll, eventfd, malloc tuning).
        .systemLibrary(name: "CLinux"),

        // Infrastructure: knows nothing of Tollgate.
        .target(name: "Logging", swiftSettings: strict),
        .target(name: "HTTPServer", dependencies: ["CLinux", "Logging"], swiftSettings: strict),
        .target(name: "Storage", dependencies: ["CSQLite", "Logging"], swiftSettings: strict),
        .target(name: "Crypto", dependencies: ["COpenSSL"], swiftSettings: strict),
        .target(name: "Templating", swiftSettings: strict),
        .target(name: "QRCode", swiftSettings: strict),
        .target(name: "Configuration", swiftSettings: strict),
        .target(name: "Mail", dependencies: ["Storage", "Crypto", "Templating", "Logging"], swiftSettings: strict),

        // The domain: purchases, entitlements, accounts, codes. No I/O of its own.
        .target(name: "Domain", dependencies: ["Storage", "Crypto", "Logging"], swiftSettings: strict),

        // Clients and webhook verifiers of Stripe, the App Store and Google Play.
        .target(name: "Integrations", dependencies: ["Domain", "Crypto", "Logging"], swiftSettings: strict),

        // The web layer: routes, handlers, pages, operations endpoints.
        .target(
            name: "Web",
            dependencies: [
                "HTTPServer", "Storage", "Crypto", "Templating", "QRCode", "Configuration", "Logging", "Domain", "Mail",
                "Integrations",
            ],
            swiftSettings: strict
        ),

        // Executables.
        .executableTarget(name: "tollgate", dependencies: ["Web", "CLinux"], swiftSettings: strict),
        .executableTarget(name: "CryptoBenchmark", dependencies: ["Crypto"], swiftSettings: strict),
        // Seeds purchases and codes for scripts/bench (not shipped).
        .executableTarget(name: "BenchSeed", dependencies: ["Domain", "Storage", "Web"], path: "scripts/bench-seed", swiftSettings: strict),
        // Measures how steadily the machine's CPUs run during a benchmark (scripts/bench; not shipped).
        .executableTarget(name: "MachineSteadiness", dependencies: ["Logging"], path: "scripts/machine-steadiness", swiftSettings: strict),
        // A test-only child process that writes until it is killed (crash-consistency test).
        .executableTarget(
            name: "StorageCrashWriter", dependencies: ["Storage"], path: "Tests/Support/StorageCrashWriter",
            swiftSettings: strict),

        // Tests.
        // Fakes shared by test targets: a real HTTP server on loopback for fake store APIs.
        .target(
            name: "TestSupport", dependencies: ["HTTPServer", "Logging", "Crypto", "Domain"], path: "Tests/Support/TestSupport",
            swiftSettings: strict),
        .testTarget(name: "LoggingTests", dependencies: ["Logging"], swiftSettings: strict),
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPServer"], swiftSettings: strict),
        .testTarget(name: "StorageTests", dependencies: ["Storage", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "CryptoTests", dependencies: ["Crypto", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "TemplatingTests", dependencies: ["Templating"], swiftSettings: strict),
        .testTarget(name: "QRCodeTests", dependencies: ["QRCode", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "ConfigurationTests", dependencies: ["Configuration"], swiftSettings: strict),
        .testTarget(name: "DomainTests", dependencies: ["Domain", "Storage"], swiftSettings: strict),
        .testTarget(
            name: "IntegrationsTests", dependencies: ["Integrations", "Domain", "Crypto", "TestSupport", "HTTPServer"],
            swiftSettings: strict),
        .testTarget(
            name: "MailTests", dependencies: ["Mail", "Storage", "Templating", "TestSupport"], exclude: ["Support/smtp_server.py"],
            swiftSettings: strict),
        .testTarget(name: "WebTests", dependencies: ["Web", "HTTPServer", "Storage", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "MachineSteadinessTests", dependencies: ["MachineSteadiness"], swiftSettings: strict),
        .testTarget(
            name: "CLITests", dependencies: ["tollgate", "StorageCrashWriter", "Storage", "Domain", "TestSupport"],
            swiftSettings: strict),
    ]
)
