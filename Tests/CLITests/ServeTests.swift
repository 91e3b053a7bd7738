import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite("tollgate serve, as a process")
struct ServeTests {
    /// Starts `tollgate serve` and returns it with the port it logged.
    static func startServer(
        _ arguments: [String], environment: [String: String] = [:], directory: String? = nil, binary: String = "tollgate"
    ) async throws -> (ChildProcess, Int) {
        let child = ChildProcess(binary, arguments, environment: environment, directory: directory)
        try child.start()
        let line = try #require(await child.waitForStderrLine { $0.contains("\"event\":\"listening\"") }, "server did not log that it listens")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let address = try #require(object["address"] as? String)
        let port = try #require(Int(address.split(separator: ":").last ?? ""))
        return (child, port)
    }

    static func get(_ port: Int, _ path: String) async throws -> (Int, String, [AnyHashable: Any]) {
        let url = try #require(URL(string: "http://127.0.0.1:\(port)\(path)"))
        let (data, response) = try await URLSession.shared.data(from: url)
        let http = try #require(response as? HTTPURLResponse)
        return (http.statusCode, String(decoding: data, as: UTF8.self), http.allHeaderFields)
    }

    @Test("With no configuration it starts in demo mode, serves the home page and stops on SIGTERM")
    func demoModeAndGracefulStop() async throws {
        let directory = try TemporaryDirectory()
        let (child, port) = try await Self.startServer(
            [],
            environment: [
                "TOLLGATE_LISTEN_PORT": "0",
                "TOLLGATE_PATHS_TEMPLATES_DIR": ChildProcess.packageRoot + "/templates",
                "TOLLGATE_PATHS_PUBLIC_DIR": ChildProcess.packageRoot + "/Public"
            ], directory: directory.path)
        let (status, body, headers) = try await Self.get(port, "/")
        #expect(status == 200)
        #expect(body.contains("Tollgate demo"))
        #expect(headers["X-Request-Id"] != nil || headers["x-request-id"] != nil)
        #expect(FileManager.default.fileExists(atPath: directory.path + "/data/tollgate.sqlite"))

        kill(child.pid, SIGTERM)
        let result = try await child.finish()
        #expect(result.status == 0)
        #expect(result.stderr.contains("\"event\":\"stopped\""))
    }

    @Test("A template error stops start-up with file:line")
    func templateErrorStopsStartup() async throws {
        let directory = try TemporaryDirectory()
        let templates = directory.path + "/templates"
        try FileManager.default.createDirectory(atPath: templates + "/partials", withIntermediateDirectories: true)
        for name in ["home.html", "error.html", "partials/layout_top.html", "partials/layout_bottom.html"] {
            try FileManager.default.copyItem(atPath: ChildProcess.packageRoot + "/templates/" + name, toPath: templates + "/" + name)
        }
        try "<p>\n{{#broken}}\n<b>never closed</b>\n".write(toFile: templates + "/bad.html", atomically: true, encoding: .utf8)
        let file = try directory.writeConfig(["paths": ["templates_dir": templates, "public_dir": ChildProcess.packageRoot + "/Public"]])
        let result = try await ChildProcess.run("tollgate", ["serve", "--config", file])
        #expect(result.status == 1)
        #expect(result.stderr.contains("bad.html:2:"))
    }

    @Test("A port already in use is a clear start-up failure")
    func portInUse() async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.writeConfig()
        let (first, port) = try await Self.startServer(["serve", "--config", file])
        let second = directory.path + "/second"
        try FileManager.default.createDirectory(atPath: second, withIntermediateDirectories: true)
        let result = try await ChildProcess.run(
            "tollgate", ["serve", "--config", file],
            environment: ["TOLLGATE_LISTEN_PORT": String(port), "TOLLGATE_DATABASE_PATH": second + "/db.sqlite"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("cannot start"))
        #expect(result.stderr.contains("Address already in use"))
        kill(first.pid, SIGTERM)
        #expect(try await first.finish().status == 0)
    }
}
