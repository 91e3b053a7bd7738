import Configuration
import Crypto
import Foundation
import HTTPCore
import HTTPRouting
import Logging
import Templating
import TestSupport
import UseCases
import Web
@testable import App

/// Paths of the package checkout the tests run from.
enum PackagePaths {
    static let root: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }  // Tests/WebTests/Support/File.swift
        return url.path
    }()
    static var templates: String { root + "/templates" }
    static var publicDir: String { root + "/Public" }
    /// The test catalogs (`Tests/Fixtures/locales`: Arabic, right to left).
    static var testLocales: String { root + "/Tests/Fixtures/locales" }
}

/// The shipped templates, loaded once for the whole test process. Loading them is most of an
/// app's start-up in a debug build (about a quarter of the parallel suite's CPU when each of
/// the hundreds of apps the tests build loaded its own), and they never change during a run.
enum ShippedTemplates {
    private static let loaded = Result { try LocalizedTemplates(directory: PackagePaths.templates) }

    /// The shipped templates and catalogs (English by default), as loaded once.
    /// - Throws: the `TemplateError` loading them threw.
    static var shared: LocalizedTemplates { get throws { try loaded.get() } }

    /// The shared load when `config` reads exactly the shipped templates and catalogs; nil
    /// otherwise (the app then loads its own, and reports any error in them itself).
    static func matching(_ config: TollgateConfig) -> LocalizedTemplates? {
        guard config.paths.templatesDir == PackagePaths.templates, config.locales.dir == nil, config.locales.defaultLanguage == "en" else {
            return nil
        }
        return try? loaded.get()
    }
}

/// A fresh temporary directory, removed when the value is released.
final class TemporaryDirectory: Sendable {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "tollgate-test-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

extension TollgateConfig {
    /// A valid non-demo configuration whose database lives in `directory`; `extra` is merged
    /// into the JSON at the top level.
    static func make(directory: String, extra: [String: Any] = [:]) throws -> TollgateConfig {
        var json: [String: Any] = [
            "base_url": "http://localhost:8080",
            "listen": ["host": "127.0.0.1", "port": 0],
            "database": try TestDatabaseBackend.freshPostgresURL().map { ["url": $0, "max_connections": TestDatabaseBackend.testConnections] }
                ?? ["path": directory + "/tollgate.sqlite"],
            "secret_key": "test-secret-key-0123456789abcdef0123456789",
            "app": ["name": "Example", "scheme": "exampleapp"],
            "mail": ["transport": "file", "file_dir": directory + "/mail", "from": "Example <no-reply@example.com>"],
            "paths": ["templates_dir": PackagePaths.templates, "public_dir": PackagePaths.publicDir],
            "admin": ["tokens_sha256": [TestApp.adminTokenHash]]
        ]
        for (key, value) in extra { json[key] = value }
        let file = directory + "/config.json"
        try JSONSerialization.data(withJSONObject: json).write(to: URL(fileURLWithPath: file))
        return try ConfigLoader.load(path: file, environment: [:])
    }
}

extension TollgateConfig {
    /// Puts a migrated copy of the service's schema at `database.path` when the app would
    /// otherwise create and migrate a new SQLite file there (`MigratedSQLiteTemplate`); the app
    /// still runs its migrator on start, which then finds nothing pending.
    func placeMigratedDatabase() throws {
        guard database.url == nil, !FileManager.default.fileExists(atPath: database.path) else { return }
        try MigratedSQLiteTemplate.copy(TollgateReleases.migrator, to: database.path)
    }
}

/// A whole app on a temp database, driven in-process (no sockets) through its responder.
struct TestApp {
    /// The admin bearer token the test configuration accepts.
    static let adminToken = "test-admin-token-0123456789"
    static let adminTokenHash = Hex.encode(try! SHA256.hash(Array(adminToken.utf8)))

    let directory: TemporaryDirectory
    let app: TollgateApp
    let logs: MemoryLogSink

    init(
        extra: [String: Any] = [:], now: @escaping @Sendable () -> Date = { Date() },
        eventDelivery: EventDeliveryConfiguration = EventDeliveryConfiguration()
    ) throws {
        directory = try TemporaryDirectory()
        logs = MemoryLogSink()
        let config = try TollgateConfig.make(directory: directory.path, extra: extra)
        try config.placeMigratedDatabase()
        app = try TollgateApp(
            config: config, logger: Logger(sink: logs, minimumLevel: .debug), now: now, eventDelivery: eventDelivery,
            templates: ShippedTemplates.matching(config))
    }

    /// An app built elsewhere (e.g. with other start-up parameters).
    init(directory: TemporaryDirectory, app: TollgateApp, logs: MemoryLogSink) {
        self.directory = directory
        self.app = app
        self.logs = logs
    }

    /// `Authorization` for the admin API.
    static var adminHeaders: HTTPHeaders { ["Authorization": "Bearer \(adminToken)"] }

    /// Sends one request through routing, error mapping, headers, logs and metrics.
    func send(_ method: HTTPMethod, _ target: String, headers: HTTPHeaders = [:], body: String = "") async -> HTTPResponse {
        await send(method, target, headers: headers, bytes: Array(body.utf8))
    }

    /// Sends raw body bytes (webhooks are verified over the exact bytes).
    /// Each response is also checked against `Public/openapi.json` (`ContractCheck`).
    func send(_ method: HTTPMethod, _ target: String, headers: HTTPHeaders = [:], bytes: [UInt8], remoteAddress: String = "198.51.100.7") async
        -> HTTPResponse
    {
        let request = HTTPRequest(method: method, target: target, headers: headers, body: bytes)
        let requestId = "test-\(UUID().uuidString.prefix(8))"
        // As the server does: the context's logger already carries the request id.
        let logger = Logger(sink: logs, minimumLevel: .debug).with([("request_id", .string(requestId))])
        let context = RequestContext(requestId: requestId, logger: logger, remoteAddress: remoteAddress)
        let response = await app.responder.respond(to: request, context: context)
        ContractCheck.check(request, response)
        return response
    }
}

extension HTTPResponse {
    var text: String { String(decoding: body, as: UTF8.self) }

    var jsonObject: [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
    }

    /// `error.code` of an API.md error body.
    var errorCode: String? {
        (jsonObject?["error"] as? [String: Any])?["code"] as? String
    }
}
