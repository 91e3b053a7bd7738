import Foundation
import Testing

/// CONVENTIONS.md's errors rule: one public error type per module, and in Integrations one per
/// outside service (Stripe, App Store, Google Play) beside the module's own. Private and internal
/// errors used for control flow inside a module are not counted. Modules still above their
/// allowance are listed in `debts` with today's count: the count may only go down, and an entry
/// must go once its module is within the rule.
@Suite("Error types per module")
struct ErrorTypeAllowanceTests {
    /// Public error types a module may declare.
    static let allowance: [String: Int] = ["Integrations": 4]

    /// Modules not yet within the rule, at most this many public error types each (issue 34).
    static let debts: [String: Int] = [:]

    static func allowed(_ module: String) -> Int { allowance[module] ?? 1 }

    @Test("No module declares more public error types than it is allowed")
    func withinAllowance() throws {
        let graph = try ModuleGraphTests.graph()
        let refiners = try PublicErrorTypes.errorProtocols(under: ModuleGraphTests.root + "/Sources")
        #expect(refiners.contains("HTTPResponseError"), "the reader found no protocol refining Error: \(refiners)")
        var over: [String] = []
        var checked = 0
        for target in graph.targets.values.sorted(by: { $0.name < $1.name })
        where target.path.hasPrefix("Sources/") && target.kind != .systemLibrary {
            checked += 1
            let declared = try PublicErrorTypes.declared(in: ModuleGraphTests.root + "/" + target.path, refiners: refiners)
            let limit = Self.debts[target.name] ?? Self.allowed(target.name)
            if declared.count > limit {
                over.append("\(target.name) declares \(declared.count) public error types, allowed \(limit): \(declared.joined(separator: ", "))")
            }
        }
        #expect(checked > 15, "no targets found under \(ModuleGraphTests.root)")
        #expect(over.isEmpty, "\n\(over.joined(separator: "\n"))")
    }

    @Test("A module within the rule is not listed as a debt")
    func debtsAreStillOwed() throws {
        let graph = try ModuleGraphTests.graph()
        let refiners = try PublicErrorTypes.errorProtocols(under: ModuleGraphTests.root + "/Sources")
        var settled: [String] = []
        for (module, _) in Self.debts.sorted(by: { $0.key < $1.key }) {
            let target = try #require(graph.targets[module], "\(module) is no target")
            let count = try PublicErrorTypes.declared(in: ModuleGraphTests.root + "/" + target.path, refiners: refiners).count
            if count <= Self.allowed(module) {
                settled.append("\(module) declares \(count): remove its debt")
            } else if count < Self.debts[module]! {
                settled.append("\(module) declares \(count): lower its debt to \(count)")
            }
        }
        #expect(settled.isEmpty, "\n\(settled.joined(separator: "\n"))")
    }

    @Test("The reader finds public error types, nested ones included, and ignores the rest")
    func reader() {
        let source = [
            "public struct AError: Error, Sendable {", "    public enum Kind: Sendable { case a }",
            "    public struct Nested: Sendable, Error {}", "}", "struct Internal: Error {}",
            "    private struct Hidden: Error {}", "public final class Boxed: Error {}",
            "public enum Outcome: Sendable, Equatable {}", "// public struct Commented: Error {}",
            "public struct ErrorLike: Sendable { let e: Error }"
        ].joined(separator: "\n")
        #expect(PublicErrorTypes.names(in: source) == ["AError", "Nested", "Boxed"])
    }

    @Test("A type that conforms through a protocol refining Error counts, however deep the refinement")
    func refinedProtocols() {
        let protocols = [
            "public protocol HTTPResponseError: Error {", "protocol Coded: HTTPResponseError, Sendable {}",
            "public protocol Shown: CustomStringConvertible {}"
        ].joined(separator: "\n")
        let refiners = PublicErrorTypes.errorProtocols(in: [protocols])
        #expect(refiners == ["HTTPResponseError", "Coded"])
        let source = [
            "public struct APIError: HTTPResponseError, Equatable {", "public enum Deep: Sendable, Coded {}",
            "public struct Plain: Shown {}", "struct Hidden: HTTPResponseError {}"
        ].joined(separator: "\n")
        #expect(PublicErrorTypes.names(in: source, refiners: refiners) == ["APIError", "Deep"])
        #expect(PublicErrorTypes.names(in: source).isEmpty)
    }
}
