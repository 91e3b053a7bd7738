/// What a route asks of a body sent as JSON, beyond the strict check every such body gets
/// (`Router.Route.jsonBody`; the application's strict-JSON middleware reads it).
public enum JSONBodyReading: Sendable, Equatable {
    /// Parsed once into `RequestContext.jsonBody`: the route decodes that value, never the bytes.
    case parsed
    /// Only validated, no value built: the route reads the raw bytes itself (a signed webhook,
    /// whose signature is over exactly those bytes and whose provider's reader parses them).
    case validatedOnly
}
