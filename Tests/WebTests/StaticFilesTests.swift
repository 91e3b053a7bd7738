import Foundation
import HTTPCore
import HTTPRouting
import Testing
@testable import Web

@Suite("Static files")
struct StaticFilesTests {
    /// A fresh Public folder: files in a subfolder, a hidden file and folder, links pointing
    /// outside (to /etc/passwd, to a file and to a folder outside) and a FIFO.
    private final class Fixture {
        let root: String
        let publicDirectory: String
        let outside: String

        init() throws {
            root = FileManager.default.temporaryDirectory.appendingPathComponent("static-\(UUID().uuidString)").path
            publicDirectory = root + "/Public"
            outside = root + "/outside"
            let files: [String: String] = [
                "app.js": "console.log(1)",
                "favicon.ico": "ICO",
                "robots.txt": "User-agent: *",
                "index.html": "<p>hi</p>",
                "css/site.css": "body { color: red }",
                "css/sub/deep.css": "p { margin: 0 }",
                "img/logo.svg": "<svg/>",
                "img/photo.JPG": "jpg",
                "img/photo.jpeg": "jpeg",
                "img/pic.png": "png",
                "img/pic.webp": "webp",
                "fonts/a.woff2": "woff2",
                "data/info.json": "{}",
                "js/app.js.map": "{}",
                "download.bin": "bin",
                "README": "no extension",
                "hello world.txt": "spaces",
                "grüße.txt": "unicode",
                ".hidden": "secret",
                ".git/config": "secret"
            ]
            for (relative, contents) in files {
                try Fixture.write(contents, to: publicDirectory + "/" + relative)
            }
            try Fixture.write("outside secret", to: outside + "/secret.txt")
            let manager = FileManager.default
            try manager.createSymbolicLink(atPath: publicDirectory + "/passwd", withDestinationPath: "/etc/passwd")
            try manager.createSymbolicLink(atPath: publicDirectory + "/secret.txt", withDestinationPath: outside + "/secret.txt")
            try manager.createSymbolicLink(atPath: publicDirectory + "/outside-dir", withDestinationPath: outside)
            try manager.createSymbolicLink(atPath: publicDirectory + "/css/up", withDestinationPath: "..")
            #expect(mkfifo(publicDirectory + "/pipe", 0o600) == 0)
        }

        deinit { try? FileManager.default.removeItem(atPath: root) }

        static func write(_ contents: String, to path: String) throws {
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try contents.write(toFile: path, atomically: false, encoding: .utf8)
        }

        func load(maxFileBytes: Int = 5 << 20) throws -> StaticFiles {
            try StaticFiles(directory: publicDirectory, maxFileBytes: maxFileBytes)
        }
    }

    private func get(_ files: StaticFiles, _ path: String, headers: HTTPHeaders = HTTPHeaders()) -> HTTPResponse? {
        files.response(for: path, request: HTTPRequest(method: .get, target: "/static/" + path, headers: headers))
    }

    @Test("only regular, non-hidden files are loaded; links, hidden entries and FIFOs are skipped")
    func loadsOnlyRegularFiles() throws {
        let fixture = try Fixture()
        let files = try fixture.load()
        #expect(
            files.paths == [
                "README", "app.js", "css/site.css", "css/sub/deep.css", "data/info.json", "download.bin",
                "favicon.ico", "fonts/a.woff2", "grüße.txt", "hello world.txt", "img/logo.svg", "img/photo.JPG",
                "img/photo.jpeg", "img/pic.png", "img/pic.webp", "index.html", "js/app.js.map", "robots.txt"
            ])
    }

    @Test("a served file has its body, content type, ETag, caching and nosniff headers")
    func servesFile() throws {
        let fixture = try Fixture()
        let files = try fixture.load()
        let response = try #require(get(files, "css/site.css"))
        #expect(response.status == .ok)
        #expect(response.body == Array("body { color: red }".utf8))
        #expect(response.headers["Content-Type"] == "text/css; charset=utf-8")
        #expect(response.headers["Cache-Control"] == "public, max-age=3600")
        #expect(response.headers["X-Content-Type-Options"] == "nosniff")
        let etag = try #require(response.headers["ETag"])
        #expect(etag.hasPrefix("\"") && etag.hasSuffix("\"") && etag.count > 18)
    }

    @Test("nested, percent-encoded and unicode names are served")
    func nestedAndEncoded() throws {
        let fixture = try Fixture()
        let files = try fixture.load()
        #expect(get(files, "css/sub/deep.css")?.body == Array("p { margin: 0 }".utf8))
        #expect(get(files, "hello%20world.txt")?.body == Array("spaces".utf8))
        #expect(get(files, "gr%C3%BC%C3%9Fe.txt")?.body == Array("unicode".utf8))
        #expect(get(files, "%61pp.js")?.body == Array("console.log(1)".utf8))
    }

    @Test("content types by extension, case-insensitively, with a binary default")
    func contentTypes() throws {
        let fixture = try Fixture()
        let files = try fixture.load()
        let expected: [String: String] = [
            "app.js": "text/javascript; charset=utf-8",
            "favicon.ico": "image/x-icon",
            "robots.txt": "text/plain; charset=utf-8",
            "index.html": "text/html; charset=utf-8",
            "img/logo.svg": "image/svg+xml; charset=utf-8",
            "img/photo.JPG": "image/jpeg",
            "img/photo.jpeg": "image/jpeg",
            "img/pic.png": "image/png",
            "img/pic.webp": "image/webp",
            "fonts/a.woff2": "font/woff2",
            "data/info.json": "application/json; charset=utf-8",
            "js/app.js.map": "application/json; charset=utf-8",
            "download.bin": "application/octet-stream",
            "README": "application/octet-stream"
        ]
        for (path, type) in expected {
            #expect(get(files, path)?.headers["Content-Type"] == type, "\(path)")
        }
    }

    @Test("the ETag depends on the content only")
    func etagFollowsContent() throws {
        let fixture = try Fixture()
        try Fixture.write("same", to: fixture.publicDirectory + "/one.txt")
        try Fixture.write("same", to: fixture.publicDirectory + "/two.txt")
        try Fixture.write("samf", to: fixture.publicDirectory + "/three.txt")
        let files = try fixture.load()
        let one = get(files, "one.txt")?.headers["ETag"]
        #expect(one != nil)
        #expect(one == get(files, "two.txt")?.headers["ETag"])
        #expect(one != get(files, "three.txt")?.headers["ETag"])
        // Reloading after a change gives a new tag.
        try Fixture.write("changed", to: fixture.publicDirectory + "/one.txt")
        #expect(try get(fixture.load(), "one.txt")?.headers["ETag"] != one)
    }

    @Test("If-None-Match with the ETag, in a list, weak, or * gives 304 without a body")
    func notModified() throws {
        let fixture = try Fixture()
        let files = try fixture.load()
        let etag = try #require(get(files, "app.js")?.headers["ETag"])
        let matching: [HTTPHeaders] = [
            ["If-None-Match": etag],
            ["If-None-Match": "\"nope\", \(etag) ,\"other\""],
            ["If-None-Match": "W/\(etag)"],
            ["If-None-Match": "*"],
            HTTPHeaders([(name: "If-None-Match", value: "\"a\""), (name: "if-none-match", value: etag)])
        ]
        for headers in matching {
            let response = try #require(get(files, "app.js", headers: headers))
            #expect(response.status == .notModified, "\(headers.fields)")
            #expect(response.body.isEmpty)
            #expect(response.headers["ETag"] == etag)
            #expect(response.headers["Content-Type"] == nil)
        }
        let stale = try #require(get(files, "app.js", headers: ["If-None-Match": "\"0000000000000000-0\", W/\"x\""]))
        #expect(stale.status == .ok)
        #expect(stale.body == Array("console.log(1)".utf8))
    }

    @Test("traversal, encoded dots and slashes, backslashes, NUL, links and odd paths are refused")
    func attacks() throws {
        let fixture = try Fixture()
        let files = try fixture.load()
        // Control: the targets the attacks aim at exist under their proper names.
        #expect(get(files, "app.js") != nil)
        #expect(get(files, "css/site.css") != nil)
        let attacks = [
            "../x", "../outside/secret.txt", "%2e%2e/x", "%2E%2E/outside/secret.txt", "..%2fx", "..%2Foutside%2Fsecret.txt",
            "a/../../x", "css/../app.js", "css/%2e%2e/app.js", "./app.js", "css/./site.css", "%2e/app.js",
            "css%2fsite.css", "css%2Fsite.css", "%00", "app.js%00", "app.js%00.png", "css\\site.css",
            "..\\app.js", "css%5csite.css", "/etc/passwd", "/app.js", "css//site.css", "css/", "",
            "passwd", "secret.txt", "outside-dir/secret.txt", "css/up/app.js", ".hidden", "%2ehidden",
            ".git/config", "pipe", "app.js%zz", "%", "nonexistent.js"
        ]
        for attack in attacks {
            #expect(get(files, attack) == nil, "\(attack) was served")
        }
        // The path check itself refuses them, before any lookup.
        for attack in attacks where !["passwd", "secret.txt", "outside-dir/secret.txt", "css/up/app.js", "pipe", "nonexistent.js"].contains(attack) {
            #expect(StaticFiles.decodedPath(attack) == nil, "\(attack) passed the path check")
        }
        #expect(StaticFiles.decodedPath("css/sub/deep.css") == "css/sub/deep.css")
        #expect(StaticFiles.decodedPath("a%20b/c%C3%A9.txt") == "a b/cé.txt")
    }

    @Test("the router hands {path*} over still encoded, and the attacks stay refused end to end")
    func throughRouter() throws {
        let fixture = try Fixture()
        let files = try fixture.load()
        var router = Router()
        router.add(.get, "/static/{path*}") { request, context in
            HTTPResponse(status: .ok)
        }
        func serve(_ path: String) -> HTTPResponse? {
            guard case .found(_, let parameters) = router.match(method: .get, path: path),
                let rest = parameters["path"]
            else { return nil }
            return files.response(for: rest, request: HTTPRequest(method: .get, target: path))
        }
        #expect(serve("/static/css/sub/deep.css")?.status == .ok)
        #expect(serve("/static/hello%20world.txt")?.body == Array("spaces".utf8))
        #expect(serve("/static/%2e%2e/outside/secret.txt") == nil)
        #expect(serve("/static/css/..%2fapp.js") == nil)
        #expect(serve("/static/%252e%252e/app.js") == nil)
        #expect(serve("/static/") == nil)
    }

    @Test("a file over the size limit, or a missing folder, fails at start-up")
    func startupErrors() throws {
        let fixture = try Fixture()
        let tooBig = #expect(throws: StaticFilesError.self) { try fixture.load(maxFileBytes: 10) }
        #expect(tooBig?.message.contains("limited to 10 bytes") == true)
        #expect(try fixture.load(maxFileBytes: 19).paths.count == 18)
        let missing = fixture.root + "/nope"
        let error = #expect(throws: StaticFilesError.self) { try StaticFiles(directory: missing) }
        #expect(error?.description == "\(missing): static files directory does not exist")
    }
}
