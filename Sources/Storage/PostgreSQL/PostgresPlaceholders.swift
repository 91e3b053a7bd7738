import Synchronization

/// Rewrites the `?` placeholders of portable SQL into PostgreSQL's numbered `$1`, `$2`...
///
/// A `?` inside a string literal, a quoted identifier or a comment is left alone. The SQL of
/// this application is a fixed set of texts, so each rewrite is cached (bounded, in case a caller
/// builds SQL with a varying number of placeholders).
final class PostgresPlaceholders: Sendable {
    private let cache = Mutex<[String: String]>([:])
    /// The most rewrites kept; beyond it the cache starts over.
    static let capacity = 1024

    /// `sql` with every placeholder numbered.
    func numbered(_ sql: String) -> String {
        if let cached = cache.withLock({ $0[sql] }) { return cached }
        let rewritten = Self.rewrite(sql)
        cache.withLock { entries in
            if entries.count >= Self.capacity { entries.removeAll(keepingCapacity: true) }
            entries[sql] = rewritten
        }
        return rewritten
    }

    private enum State {
        case code, singleQuoted, doubleQuoted, lineComment, blockComment
    }

    static func rewrite(_ sql: String) -> String {
        var output = ""
        output.reserveCapacity(sql.utf8.count + 16)
        var state = State.code
        var number = 0
        var previous: Character = " "
        for character in sql {
            switch state {
            case .code:
                switch character {
                case "?":
                    number += 1
                    output += "$\(number)"
                    previous = character
                    continue
                case "'": state = .singleQuoted
                case "\"": state = .doubleQuoted
                case "-" where previous == "-": state = .lineComment
                case "*" where previous == "/": state = .blockComment
                default: break
                }
            case .singleQuoted where character == "'": state = .code  // '' re-enters at once
            case .doubleQuoted where character == "\"": state = .code
            case .lineComment where character == "\n": state = .code
            case .blockComment where character == "/" && previous == "*": state = .code
            default: break
            }
            output.append(character)
            previous = character
        }
        return output
    }
}
