import Foundation
import Testing

/// `tollgate operator ...` on the host: invitations (the link printed with the file transport),
/// the list, roles, removal, and the usage errors.
@Suite("tollgate operator")
struct OperatorCommandTests {
    @Test("add prints the invitation link; list shows the operator invited; role changes it; remove ends it; a bad role is a usage error")
    func lifecycle() async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.writeConfig()
        let added = try await ChildProcess.run("tollgate", ["operator", "add", "Ann@Example.com", "--role", "support", "--config", file])
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout.contains("Invited ann@example.com as support") && added.stdout.contains("/console/invite/"))
        let listed = try await ChildProcess.run("tollgate", ["operator", "list", "--config", file])
        #expect(listed.stdout.contains("ann@example.com\tsupport\tinvited") && listed.stdout.contains("1 operator(s)"), "\(listed.stdout)")
        let role = try await ChildProcess.run("tollgate", ["operator", "role", "ann@example.com", "admin", "--config", file])
        #expect(role.status == 0 && role.stdout.contains("now admin"))
        let twice = try await ChildProcess.run("tollgate", ["operator", "add", "ann@example.com", "--role", "viewer", "--config", file])
        #expect(twice.status == 1 && twice.stderr.contains("is an operator already"))
        let bad = try await ChildProcess.run("tollgate", ["operator", "add", "bob@example.com", "--role", "root", "--config", file])
        #expect(bad.status == 64 && bad.stderr.contains("--role must be one of"))
        let missing = try await ChildProcess.run("tollgate", ["operator", "add", "bob@example.com", "--config", file])
        #expect(missing.status == 64)
        let removed = try await ChildProcess.run("tollgate", ["operator", "remove", "ann@example.com", "--config", file])
        #expect(removed.status == 0)
        #expect(try await ChildProcess.run("tollgate", ["operator", "list", "--config", file]).stdout.contains("0 operator(s)"))
    }
}
