import HTTPCore
/// Maps method + path to a handler. Patterns are literal segments and `{name}` parameters
/// (`/redeem/{code}`); a final `{name*}` takes the rest of the path. Literal routes win over
/// parameter routes. A GET route also answers HEAD.
public struct Router: Sendable {
    /// One registered route.
    public struct Route: Sendable {
        public let method: HTTPMethod
        public let pattern: String
        public let handler: any HTTPHandler
        /// Body limit for this route, or nil for the server default.
        public let maxBodyBytes: Int?
        /// What the route needs of a JSON body: its value parsed (most) or the bytes only validated.
        public let jsonBody: JSONBodyReading
        /// Its position in `routes` (what a `RoutePlan` carries).
        public let index: Int
        fileprivate let segments: [Segment]
    }

    /// The outcome of a lookup.
    public enum Match: Sendable {
        case found(Route, parameters: [String: String])
        /// The path exists but not for this method; `allowed` is for the `Allow` header.
        case methodNotAllowed(allowed: [HTTPMethod])
        case notFound
    }

    fileprivate enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
        case rest(String)
    }

    public private(set) var routes: [Route] = []
    /// Literal paths (no parameters) for a single dictionary lookup on the hot path.
    private var literalRoutes: [String: [Route]] = [:]
    private var parameterRoutes: [Route] = []

    public init() {}

    /// Registers `handler` for `method` on `pattern`.
    /// - Precondition: the same method and pattern are not registered twice.
    public mutating func add(
        _ method: HTTPMethod, _ pattern: String, maxBodyBytes: Int? = nil, jsonBody: JSONBodyReading = .parsed, _ handler: any HTTPHandler
    ) {
        precondition(pattern.hasPrefix("/"), "route pattern must start with /: \(pattern)")
        precondition(!routes.contains { $0.method == method && $0.pattern == pattern }, "duplicate route \(method) \(pattern)")
        let segments = Router.parse(pattern)
        let route = Route(
            method: method, pattern: pattern, handler: handler, maxBodyBytes: maxBodyBytes, jsonBody: jsonBody, index: routes.count,
            segments: segments)
        routes.append(route)
        if segments.allSatisfy({ if case .literal = $0 { true } else { false } }) {
            literalRoutes[pattern, default: []].append(route)
        } else {
            parameterRoutes.append(route)
        }
    }

    /// Registers a closure for `method` on `pattern`.
    public mutating func add(
        _ method: HTTPMethod, _ pattern: String, maxBodyBytes: Int? = nil, jsonBody: JSONBodyReading = .parsed,
        _ body: @escaping @Sendable (HTTPRequest, RequestContext) async throws -> HTTPResponse
    ) {
        add(method, pattern, maxBodyBytes: maxBodyBytes, jsonBody: jsonBody, ClosureHandler(body))
    }

    /// Finds the route for `method` and the still percent-encoded `path`.
    public func match(method: HTTPMethod, path: String) -> Match {
        // A literal path is chosen among its routes as they are: no copies, no bindings.
        if let literal = literalRoutes[path] { return Self.choose(method, among: literal) { _ in [:] } }
        let parts = Router.split(path)
        var routes: [Route] = []
        var bindings: [[String: String]] = []
        for route in parameterRoutes {
            if let parameters = Router.bind(route.segments, to: parts) {
                routes.append(route)
                bindings.append(parameters)
            }
        }
        return Self.choose(method, among: routes) { bindings[$0] }
    }

    /// The route of `candidates` (all matching the path) for `method`, a GET's for HEAD, else
    /// the methods the path allows; `parameters` gives the bindings of the candidate at an index.
    private static func choose(_ method: HTTPMethod, among candidates: [Route], parameters: (Int) -> [String: String]) -> Match {
        if candidates.isEmpty { return .notFound }
        if let exact = candidates.firstIndex(where: { $0.method == method }) {
            return .found(candidates[exact], parameters: parameters(exact))
        }
        if method == .head, let get = candidates.firstIndex(where: { $0.method == .get }) {
            return .found(candidates[get], parameters: parameters(get))
        }
        var allowed: [HTTPMethod] = []
        for route in candidates where !allowed.contains(route.method) {
            allowed.append(route.method)
            if route.method == .get && !allowed.contains(.head) { allowed.append(.head) }
        }
        return .methodNotAllowed(allowed: allowed)
    }

    private static func parse(_ pattern: String) -> [Segment] {
        split(pattern).map { part in
            if part.hasPrefix("{") && part.hasSuffix("*}") {
                return .rest(String(part.dropFirst().dropLast(2)))
            }
            if part.hasPrefix("{") && part.hasSuffix("}") {
                return .parameter(String(part.dropFirst().dropLast()))
            }
            return .literal(part)
        }
    }

    private static func split(_ path: String) -> [String] {
        path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
    }

    private static func bind(_ segments: [Segment], to parts: [String]) -> [String: String]? {
        var parameters: [String: String] = [:]
        for (index, segment) in segments.enumerated() {
            switch segment {
            case .rest(let name):
                guard index < parts.count else { return nil }
                parameters[name] = parts[index...].joined(separator: "/")
                return parameters
            case .literal(let text):
                guard index < parts.count, parts[index] == text else { return nil }
            case .parameter(let name):
                guard index < parts.count, !parts[index].isEmpty,
                    let decoded = FormURLEncoding.percentDecode(parts[index])
                else { return nil }
                parameters[name] = decoded
            }
        }
        return segments.count == parts.count ? parameters : nil
    }
}
