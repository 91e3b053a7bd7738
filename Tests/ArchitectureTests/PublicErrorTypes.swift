import Foundation

/// The public `Error` types declared in a module's Swift sources, read from the text: every
/// `public`/`open` struct, enum, class or actor whose inheritance clause names `Error`
/// (nested ones too, e.g. `public struct Missing: Error` inside another type).
enum PublicErrorTypes {
    /// `File.swift: Name` for each public error type under `directory`, sorted.
    static func declared(in directory: String) throws -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: directory) else { return [] }
        var found: [String] = []
        for case let relative as String in walker where relative.hasSuffix(".swift") {
            let text = try String(contentsOfFile: directory + "/" + relative, encoding: .utf8)
            found += names(in: text).map { "\(relative): \($0)" }
        }
        return found.sorted()
    }

    /// The names of the public error types one Swift source declares.
    static func names(in source: String) -> [String] {
        let pattern = try! NSRegularExpression(
            pattern: #"^[ \t]*(?:@\w+(?:\([^)]*\))?\s+)*(?:public|open)\s+(?:(?:final|indirect)\s+)?(?:struct|enum|class|actor)\s+(\w+)[^{:\n]*:[^{\n]*\bError\b"#,
            options: [.anchorsMatchLines])
        return pattern.matches(in: source, range: NSRange(source.startIndex..., in: source)).map {
            String(source[Range($0.range(at: 1), in: source)!])
        }
    }
}
