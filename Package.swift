// swift-tools-version: 6.0
// Tollgate: web checkout, redemption codes and store verification, in Swift with no
// package dependencies. Targets are layered; each depends only on the ones above it here.
import PackageDescription

let strict: [SwiftSetting] = [.enableUpcomingFeature("ExistentialAny")]

let package = Package(
    name: "Tollgate",
    products: [
        .executable(name: "tollgate", targets: ["tollgate"]),
        // The app's Swift library (Foundation only; builds for iOS and Linux).
        .library(name: "TollgateClient", targets: ["TollgateClient"])
    ],
    targets: [
        // System C libraries (Debian: libsqlite3-dev, libssl-dev).
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        // Linux/glibc headers the Glibc module does not export (epoll, eventfd, malloc tuning).
        .systemLibrary(name: "CLinux"),

        // Infrastructure: knows nothing of Tollgate.
        // Word-at-a-time byte tests (a control byte, a byte a JSON string escapes) for the writers.
        .target(name: "ByteScan", swiftSettings: strict),
        .target(name: "Logging", dependencies: ["ByteScan"], swiftSettings: strict),
        // Long-running parts (`Service.run()`) started and stopped together (`ServiceGroup`).
        .target(name: "Lifecycle", dependencies: ["Logging"], swiftSettings: strict),
        // HTTP/1.1 on sockets: epoll, parser, serializer, connections, limits. Knows no routes.
        .target(name: "HTTPCore", dependencies: ["ByteScan", "CLinux", "Logging", "Lifecycle"], swiftSettings: strict),
        // JSON: the one JSONValue (ordered members), its byte-exact writer, and the strict reader
        // (StrictJSON.validate for request bodies; JSONValue.parse, the same validator building values).
        .target(name: "JSON", dependencies: ["ByteScan"], swiftSettings: strict),
        // Routes on top of the core: router, request context, middleware, HTTPResponseError; query
        // and form decoding, the JSON media type.
        .target(name: "HTTPRouting", dependencies: ["HTTPCore", "JSON", "Logging"], swiftSettings: strict),
        // Blocking TCP / Unix-domain client sockets with timeouts (SMTP, PostgreSQL, outbound HTTP).
        .target(name: "Sockets", swiftSettings: strict),
        .target(name: "Crypto", dependencies: ["COpenSSL", "JSON"], swiftSettings: strict),
        .target(name: "Templating", dependencies: ["JSON"], swiftSettings: strict),
        .target(name: "QRCode", swiftSettings: strict),
        .target(name: "Configuration", dependencies: ["JSON"], swiftSettings: strict),
        // A PostgreSQL client (protocol v3: TLS, SCRAM-SHA-256, extended queries, a pool). Knows
        // nothing of Storage: Storage's PostgreSQL backend adapts it to the SQLDatabase seam.
        .target(name: "Postgres", dependencies: ["Sockets", "Crypto", "Logging"], swiftSettings: strict),
        // The storage seam (SQLDatabase) and its two backends: SQLite (embedded) and PostgreSQL.
        .target(name: "Storage", dependencies: ["CSQLite", "Postgres", "Logging"], swiftSettings: strict),

        // The domain: purchases, entitlements, accounts, codes. The model, its pure rules (policies,
        // outcomes), its repositories and its migrations: it does I/O only through repositories, on
        // a connection a use case hands it inside the transaction the use case opened; it opens none.
        .target(name: "Domain", dependencies: ["Storage", "Crypto", "JSON", "Logging"], swiftSettings: strict),

        // The durable mail outbox, its worker and the SMTP client.
        .target(name: "Mail", dependencies: ["Sockets", "Storage", "Domain", "Crypto", "Templating", "Logging", "Lifecycle"], swiftSettings: strict),

        // Clients and webhook verifiers of Stripe, the App Store and Google Play.
        .target(name: "Integrations", dependencies: ["Sockets", "Domain", "Crypto", "JSON", "Logging"], swiftSettings: strict),

        // Demo mode's Stripe: the part of Stripe's API Tollgate calls, its hosted checkout page's
        // actions and its signed webhooks, reached through the real Stripe client (in memory).
        .target(
            name: "StripeSimulator", dependencies: ["HTTPCore", "HTTPRouting", "Crypto", "JSON", "Templating", "Integrations", "Logging"],
            swiftSettings: strict),

        // Use cases: one named type per thing Tollgate does (redeem a code, complete a checkout,
        // claim a store purchase...), each given only what it uses. Each is the one owner of its
        // operation and its transactions: it opens them and applies Domain's rules and repositories.
        .target(
            name: "UseCases", dependencies: ["Domain", "Storage", "Crypto", "Integrations", "JSON", "Mail", "QRCode", "Logging"],
            swiftSettings: strict),

        // The web layer: decodes requests, calls one use case, encodes the answer or renders a
        // page. Routes, middleware, pages. No storage.
        .target(
            name: "Web",
            dependencies: [
                "ByteScan", "HTTPCore", "HTTPRouting", "JSON", "Crypto", "Templating", "QRCode", "Logging", "Domain", "UseCases"
            ],
            swiftSettings: strict
        ),

        // The composition root: builds every part from the configuration.
        .target(
            name: "App",
            dependencies: [
                "Web", "UseCases", "Domain", "Storage", "Mail", "Integrations", "Configuration", "Templating", "HTTPCore", "HTTPRouting", "Logging",
                "Lifecycle", "StripeSimulator", "Crypto"
            ],
            swiftSettings: strict),

        // The app's client library: depends on no other target (it ships to iOS apps).
        .target(name: "TollgateClient", swiftSettings: strict),

        // Executables.
        .executableTarget(
            name: "tollgate",
            dependencies: [
                "App", "UseCases", "Domain", "Storage", "Integrations", "Configuration", "Templating", "Logging", "CLinux", "StripeSimulator"
            ],
            swiftSettings: strict),
        .executableTarget(name: "CryptoBenchmark", dependencies: ["Crypto"], swiftSettings: strict),
        // Seeds purchases and codes for scripts/bench (not shipped).
        .executableTarget(
            name: "BenchSeed", dependencies: ["Domain", "Storage", "App", "Web", "Configuration", "UseCases"], path: "scripts/bench-seed",
            swiftSettings: strict),
        // Redeems through the service in process under a virtual clock: does retention keep the
        // database flat? (scripts/bench --flat; not shipped)
        .executableTarget(
            name: "BenchFlat", dependencies: ["App", "Configuration", "Domain", "HTTPCore", "HTTPRouting", "Logging", "Storage"],
            path: "scripts/bench-flat-run", swiftSettings: strict),
        // Measures how steadily the machine's CPUs run during a benchmark (scripts/bench; not shipped).
        .executableTarget(name: "MachineSteadiness", dependencies: ["Logging"], path: "scripts/machine-steadiness", swiftSettings: strict),
        // A test-only child process that writes until it is killed (crash-consistency test).
        .executableTarget(
            name: "StorageCrashWriter", dependencies: ["Storage"], path: "Tests/Support/StorageCrashWriter",
            swiftSettings: strict),

        // Tests.
        // Fakes shared by test targets: a real HTTP server on loopback for fake store APIs.
        .target(
            name: "TestSupport", dependencies: ["HTTPCore", "HTTPRouting", "JSON", "Logging", "Crypto", "Storage", "Postgres", "StripeSimulator"],
            path: "Tests/Support/TestSupport",
            exclude: ["FakeStripe/README.md", "FakeGooglePlay/README.md", "FakeAppStore/README.md", "FakeAppleExternalPurchase/README.md"],
            swiftSettings: strict),
        .testTarget(name: "LoggingTests", dependencies: ["Logging"], swiftSettings: strict),
        .testTarget(name: "ByteScanTests", dependencies: ["ByteScan"], swiftSettings: strict),
        .testTarget(name: "LifecycleTests", dependencies: ["Lifecycle", "Logging"], swiftSettings: strict),
        .testTarget(name: "HTTPServerTests", dependencies: ["HTTPCore", "HTTPRouting", "Logging"], swiftSettings: strict),
        .testTarget(name: "JSONTests", dependencies: ["JSON"], swiftSettings: strict),
        // Against real loopback and Unix-domain listeners.
        .testTarget(name: "SocketsTests", dependencies: ["Sockets", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "StorageTests", dependencies: ["Storage", "Logging", "TestSupport"], swiftSettings: strict),
        // Against a real PostgreSQL server (Debian's, from scripts/install-test-tools) the tests start privately.
        .testTarget(
            name: "PostgresTests", dependencies: ["Postgres", "Storage", "Domain", "Crypto", "Logging", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "CryptoTests", dependencies: ["Crypto", "JSON", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "TemplatingTests", dependencies: ["Templating"], swiftSettings: strict),
        .testTarget(name: "QRCodeTests", dependencies: ["QRCode", "TestSupport"], swiftSettings: strict),
        .testTarget(name: "ConfigurationTests", dependencies: ["Configuration", "JSON"], swiftSettings: strict),
        .testTarget(name: "DomainTests", dependencies: ["Domain", "Storage", "Crypto", "TestSupport"], swiftSettings: strict),
        .testTarget(
            name: "UseCasesTests", dependencies: ["UseCases", "Domain", "Storage", "Mail", "Integrations", "App", "Crypto", "Logging", "TestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "IntegrationsTests", dependencies: ["Integrations", "Domain", "Crypto", "JSON", "TestSupport", "HTTPCore", "HTTPRouting"],
            swiftSettings: strict),
        .testTarget(
            name: "MailTests", dependencies: ["Mail", "Domain", "Storage", "Templating", "Logging", "TestSupport"],
            exclude: ["Support/smtp_server.py"],
            swiftSettings: strict),
        .testTarget(
            name: "WebTests",
            dependencies: [
                "Web", "App", "UseCases", "Domain", "Mail", "Configuration", "Crypto", "JSON", "Logging", "Templating", "HTTPCore", "HTTPRouting",
                "Storage",
                "TestSupport", "StripeSimulator", "Integrations"
            ],
            swiftSettings: strict),
        .testTarget(
            name: "TollgateClientTests",
            dependencies: ["TollgateClient", "App", "Web", "HTTPCore", "HTTPRouting", "Configuration", "Logging", "Storage", "Crypto", "TestSupport"],
            swiftSettings: strict),
        // docs/ARCHITECTURE.md's module graph against this file and the sources' imports (reads text only).
        .testTarget(name: "ArchitectureTests", swiftSettings: strict),
        .testTarget(name: "MachineSteadinessTests", dependencies: ["MachineSteadiness"], swiftSettings: strict),
        .testTarget(
            name: "CLITests",
            dependencies: [
                "tollgate", "StorageCrashWriter", "Storage", "Domain", "App", "Configuration", "Logging", "TestSupport", "StripeSimulator"
            ],
            swiftSettings: strict)
    ]
)
