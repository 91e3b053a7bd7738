import Foundation
import HTTPCore
import HTTPRouting

/// The files of the `Public/` folder, loaded into memory once at start-up and served under
/// `/static/` with a content type, a strong ETag and one hour of public caching.
///
/// Only regular files are loaded: symbolic links (to files or folders), hidden files and
/// folders (names starting with `.`), devices, sockets and FIFOs are skipped, so nothing
/// outside the folder can ever be served. Requests can only name a loaded file; there is no
/// file-system access after start-up.
public struct StaticFiles: Sendable {
    /// One loaded file.
    struct Asset: Sendable {
        let contentType: String
        let etag: String
        let body: [UInt8]
    }

    /// Loaded files by relative path (`css/site.css`), decoded, `/`-separated.
    let assets: [String: Asset]

    /// Loads every regular file under `directory`, recursively.
    /// - Parameter maxFileBytes: a larger file is a start-up error rather than silently missing.
    /// - Throws: `StaticFilesError` when the directory or a file cannot be read, or a file is
    ///   larger than `maxFileBytes`.
    public init(directory: String, maxFileBytes: Int = 5 << 20) throws {
        let base = directory.count > 1 && directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        guard StaticFiles.fileType(atPath: base) == .directory else {
            throw StaticFilesError(path: base, message: "static files directory does not exist")
        }
        var assets: [String: Asset] = [:]
        for relative in try StaticFiles.regularFiles(in: base, relative: "") {
            let body = try StaticFiles.readRegularFile(atPath: base + "/" + relative, maxBytes: maxFileBytes)
            assets[relative] = Asset(
                contentType: StaticFiles.contentType(forPath: relative),
                etag: StaticFiles.entityTag(for: body),
                body: body
            )
        }
        self.assets = assets
    }

    /// The relative paths of every loaded file, sorted (for start-up logs and tests).
    public var paths: [String] { assets.keys.sorted() }

    /// The response for `relativePath`, the still percent-encoded rest of the path after
    /// `/static/` (the router's `{path*}` parameter), or nil for anything that is not a loaded
    /// file: the caller answers 404. `..` and `.` segments, encoded slashes, backslashes, NUL,
    /// empty segments and absolute paths are refused before the lookup.
    ///
    /// Answers `304 Not Modified` when `If-None-Match` lists the file's ETag (weak comparison)
    /// or `*`. Meant for GET and HEAD routes; the router decides the methods.
    public func response(for relativePath: String, request: HTTPRequest) -> HTTPResponse? {
        guard let key = StaticFiles.decodedPath(relativePath), let asset = assets[key] else { return nil }
        var headers = HTTPHeaders()
        headers.add("ETag", asset.etag)
        headers.add("Cache-Control", "public, max-age=3600")
        headers.add("X-Content-Type-Options", "nosniff")
        if StaticFiles.ifNoneMatch(request.headers.values(for: "If-None-Match"), matches: asset.etag) {
            return HTTPResponse(status: .notModified, headers: headers)
        }
        headers.add("Content-Type", asset.contentType)
        return HTTPResponse(status: .ok, headers: headers, body: asset.body)
    }

    /// Percent-decodes each `/`-separated segment once and rejects every segment that could
    /// step outside the folder or alias another path; nil when the path is refused.
    static func decodedPath(_ raw: String) -> String? {
        guard !raw.isEmpty else { return nil }
        var segments: [String] = []
        for part in raw.split(separator: "/", omittingEmptySubsequences: false) {
            // Empty parts: a leading `/` (absolute), `//`, or a trailing `/`.
            guard !part.isEmpty, let segment = FormURLEncoding.percentDecode(part) else { return nil }
            guard segment != ".", segment != "..", !segment.hasPrefix(".") else { return nil }
            for byte in segment.utf8 where byte == UInt8(ascii: "/") || byte == UInt8(ascii: "\\") || byte == 0 {
                return nil
            }
            segments.append(segment)
        }
        return segments.joined(separator: "/")
    }

    /// Whether the `If-None-Match` field values name `etag`: `*`, or any listed tag equal to it
    /// under weak comparison (a `W/` prefix on either side is ignored).
    static func ifNoneMatch(_ values: [String], matches etag: String) -> Bool {
        let opaque = etag.hasPrefix("W/") ? etag.dropFirst(2) : Substring(etag)
        for value in values {
            for candidate in value.split(separator: ",") {
                let tag = candidate.trimmingCharacters(in: .whitespaces)
                if tag == "*" { return true }
                let candidateOpaque = tag.hasPrefix("W/") ? tag.dropFirst(2) : Substring(tag)
                if candidateOpaque == opaque { return true }
            }
        }
        return false
    }

    /// The `Content-Type` for a file name's extension (case-insensitive); text types carry
    /// `charset=utf-8`, unknown extensions are `application/octet-stream`.
    static func contentType(forPath path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "application/octet-stream" }
        switch name[name.index(after: dot)...].lowercased() {
        case "css": return "text/css; charset=utf-8"
        case "js", "mjs": return "text/javascript; charset=utf-8"
        case "html", "htm": return "text/html; charset=utf-8"
        case "txt": return "text/plain; charset=utf-8"
        case "json", "map": return "application/json; charset=utf-8"
        case "svg": return "image/svg+xml; charset=utf-8"
        case "png": return "image/png"
        case "jpg", "jpeg": return "image/jpeg"
        case "webp": return "image/webp"
        case "ico": return "image/x-icon"
        case "woff2": return "font/woff2"
        default: return "application/octet-stream"
        }
    }

    /// A strong ETag: quoted hex of the 64-bit FNV-1a hash of the body and its length. Not a
    /// cryptographic hash; it only has to change when the content does.
    static func entityTag(for body: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        body.withUnsafeBufferPointer { bytes in
            for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        }
        return "\"" + hex(hash) + "-" + String(body.count, radix: 16) + "\""
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
