// swift-tools-version:6.0
// A test tool, never a dependency of Tollgate: generates a client from the contract Tollgate serves
// (`GET /openapi.json`) with Apple's swift-openapi-generator and compiles it, so an app team that
// generates its client from our contract gets one that builds. scripts/openapi-client-check copies
// the served contract into Sources/TollgateAPIClient/openapi.json (not committed) and builds this.
import PackageDescription

let package = Package(
    name: "TollgateOpenAPIClientCheck",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(url: "https://github.com/apple/swift-openapi-generator", exact: "1.14.3"),
        .package(url: "https://github.com/apple/swift-openapi-runtime", exact: "1.13.4"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession", exact: "1.4.0")
    ],
    targets: [
        .target(
            name: "TollgateAPIClient",
            dependencies: [
                .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime"),
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession")
            ],
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        ),
        .executableTarget(
            name: "ClientUse",
            dependencies: ["TollgateAPIClient", .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime")])
    ]
)
