import Foundation

extension PostgresConfiguration {
    /// The query parameters a URL may carry (libpq's names).
    static let urlParameters = [
        "sslmode", "sslrootcert", "connect_timeout", "application_name", "host", "port", "user", "password", "dbname",
        "options"
    ]

    /// Parses `postgres://user:password@host:5432/db?sslmode=require&sslrootcert=/ca.pem&connect_timeout=10`
    /// (or `postgresql://`). User, password and database are percent-decoded; the port defaults
    /// to 5432, `sslmode` to `prefer`; `?host=/dir` connects to the Unix socket in `/dir`. An IPv6
    /// address goes in brackets.
    /// - Throws: `PostgresError` (`.configuration`) naming the bad part; the message never contains
    ///   the password or any fragment of it.
    public init(url: String) throws {
        guard let scheme = ["postgres://", "postgresql://"].first(where: { url.hasPrefix($0) }) else {
            throw Self.urlError("it must start with postgres:// or postgresql://")
        }
        var rest = Substring(url.dropFirst(scheme.count))
        var query: Substring = ""
        if let mark = rest.firstIndex(of: "?") {
            query = rest[rest.index(after: mark)...]
            rest = rest[..<mark]
        }
        // A reserved character left raw in a password would move the rest of it into the query or
        // a fragment, where an error could quote it: refuse without quoting anything.
        if query.contains("@") || rest.contains("#") || query.contains("#") || Self.hasAtAfterSlash(rest) {
            throw Self.urlError(
                "an '@' after '?' or '/', or a '#': percent-encode reserved characters in the password (? as %3F, # as %23, @ as %40, / as %2F)")
        }

        // As libpq: the user information ends at the first '@' that comes before any '/'.
        var user: String?
        var password: String?
        if let at = rest.firstIndex(where: { $0 == "@" || $0 == "/" }), rest[at] == "@" {
            let userInfo = rest[..<at]
            rest = rest[rest.index(after: at)...]
            if let colon = userInfo.firstIndex(of: ":") {
                user = try Self.percentDecoded(userInfo[..<colon], part: "the user name")
                password = try Self.percentDecoded(userInfo[userInfo.index(after: colon)...], part: "the password")
            } else {
                user = try Self.percentDecoded(userInfo, part: "the user name")
            }
        }
        var database: String?
        var hostPort = rest
        if let slash = rest.firstIndex(of: "/") {
            hostPort = rest[..<slash]
            let path = rest[rest.index(after: slash)...]
            if !path.isEmpty { database = try Self.percentDecoded(path, part: "the database name") }
        }
        var (host, port) = try Self.hostAndPort(hostPort)

        var sslMode = SSLMode.prefer
        var rootCertificate: String?
        var connectTimeout = Duration.seconds(10)
        var applicationName: String?
        var options: String?
        var socketDirectory: String?
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            guard let equals = pair.firstIndex(of: "=") else {
                throw Self.urlError("the query parameter \(Self.quotedName(pair[...])) has no '=value'")
            }
            let name = pair[..<equals]
            let value = try Self.percentDecoded(pair[pair.index(after: equals)...], part: "the value of \(Self.quotedName(name))")
            switch name {
            case "sslmode": sslMode = try Self.sslMode(value)
            case "sslrootcert": rootCertificate = value
            case "connect_timeout": connectTimeout = try Self.timeout(value)
            case "application_name": applicationName = value
            case "options": options = value
            case "user": user = value
            case "password": password = value
            case "dbname": database = value
            case "port": port = try Self.port(Substring(value))
            case "host":
                if value.hasPrefix("/") {
                    socketDirectory = value
                } else {
                    (host, _) = try Self.hostAndPort(Substring(value))
                }
            default:
                throw Self.urlError("unknown query parameter \(Self.quotedName(name)) (supported: \(Self.urlParameters.joined(separator: ", ")))")
            }
        }
        guard let user, !user.isEmpty else { throw Self.urlError("it names no user (postgres://user@host/db)") }
        if socketDirectory == nil, host == nil { throw Self.urlError("it names no host (postgres://user@host/db, or ?host=/socket/dir)") }
        self.init(
            host: host ?? "", port: port ?? 5432, user: user, password: password, database: database,
            sslMode: sslMode, sslRootCertificate: rootCertificate, connectTimeout: connectTimeout,
            applicationName: applicationName)
        self.options = options
        if let socketDirectory { endpoint = .unixSocket(directory: socketDirectory, port: port ?? 5432) }
    }

    /// An '@' after the first '/' (a raw '/' in a password would make its tail the database name).
    private static func hasAtAfterSlash(_ text: Substring) -> Bool {
        guard let slash = text.firstIndex(of: "/") else { return false }
        return text[slash...].contains("@")
    }

    /// `host`, `host:port`, `[v6]` or `[v6]:port`; empty means "not given".
    private static func hostAndPort(_ text: Substring) throws -> (String?, Int?) {
        if text.isEmpty { return (nil, nil) }
        if text.contains(",") { throw urlError("several hosts are not supported: name one") }
        var host: Substring
        var portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { throw urlError("the IPv6 address has no closing ']'") }
            host = text[text.index(after: text.startIndex)..<close]
            let after = text[text.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw urlError("unexpected characters after the IPv6 address") }
                portText = after.dropFirst()
            }
        } else if let colon = text.firstIndex(of: ":") {
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        } else {
            host = text
        }
        let decoded = try percentDecoded(host, part: "the host")
        if decoded.isEmpty, portText == nil { return (nil, nil) }
        guard !decoded.isEmpty else { throw urlError("the host is empty") }
        guard decoded.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == ":" || $0 == "_" || $0 == "%" }) else {
            throw urlError("the host contains characters a host name cannot (percent-encode reserved characters in the password)")
        }
        return (decoded, try portText.map(port))
    }

    private static func port(_ text: Substring) throws -> Int {
        guard !text.isEmpty, text.count <= 5, text.allSatisfy(\.isASCII), let value = Int(text), (1...65535).contains(value) else {
            throw urlError("the port is not a number in 1...65535")
        }
        return value
    }

    private static func sslMode(_ value: String) throws -> SSLMode {
        if let mode = SSLMode(rawValue: value) { return mode }
        let modes = SSLMode.allCases.map(\.rawValue).joined(separator: ", ")
        if value == "allow" || value == "verify-ca" {
            throw urlError("sslmode '\(value)' is not supported (use one of \(modes))")
        }
        throw urlError("sslmode must be one of \(modes)")
    }

    /// Whole seconds; 0 means no limit, as in libpq.
    private static func timeout(_ value: String) throws -> Duration {
        guard value.count <= 9, value.allSatisfy(\.isASCII), let seconds = Int(value), seconds >= 0 else {
            throw urlError("connect_timeout must be a whole number of seconds (0 for no limit)")
        }
        return seconds == 0 ? .seconds(Int(Int32.max / 1000)) : .seconds(seconds)
    }

    /// A parameter name quoted when it looks like one (lower-case letters and '_'), else a placeholder.
    private static func quotedName(_ name: Substring) -> String {
        let looksLikeName = (1...40).contains(name.count) && name.allSatisfy { ("a"..."z").contains($0) || $0 == "_" }
        return looksLikeName ? "'\(name)'" : "(a name that is not shown)"
    }

    /// `%XX` sequences decoded, the result valid UTF-8.
    private static func percentDecoded(_ text: Substring, part: String) throws -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                throw urlError("\(part) has a '%' not followed by two hex digits")
            }
            bytes.append(high << 4 | low)
        }
        guard let decoded = String(validating: bytes, as: UTF8.self) else {
            throw urlError("\(part) is not valid UTF-8 once percent-decoded")
        }
        return decoded
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static func urlError(_ problem: String) -> PostgresError {
        PostgresError(.configuration, "invalid PostgreSQL URL: \(problem)")
    }
}
