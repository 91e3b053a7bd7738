import Foundation
import Testing
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Every example README.md and docs/*.md show is checked, so none can rot (issue 46, item 4):
/// JSON against `Public/openapi.json` or `tollgate config check`, every `tollgate` command line
/// against `tollgate --help`, and the shell blocks tagged `run` or `status=` run against a live
/// demo server. Blocks that cannot run say why (`not-run: ...`) and are listed; an untagged one
/// fails. The convention: docs/DEVELOPING.md, "Examples in the docs".
@Suite("Every example in the docs", .serialized)
struct DocumentedExamplesTests {
    static func allBlocks() throws -> [DocumentedBlock] {
        try DocumentedExamples.files().flatMap { DocumentedExamples.blocks(in: try DocumentedExamples.text(of: $0), file: $0) }
    }

    @Test("Every shell block runs, claims statuses, or says why not; every JSON block names its schema or is configuration; the rest are listed")
    func everyBlockIsTagged() throws {
        let blocks = try Self.allBlocks()
        #expect(blocks.filter { $0.language == "sh" }.count >= 10, "found only \(blocks.count) blocks")
        var notRun: [String] = [], unchecked: [String] = []
        for block in blocks {
            switch block.language {
            case "sh":
                if let reason = block.notRunReason {
                    #expect(!reason.isEmpty, "\(block): `not-run:` without a reason")
                    notRun.append("\(block): \(reason)")
                } else if let claims = block.claims {
                    #expect(
                        !claims.isEmpty && claims.allSatisfy { (100..<600).contains($0.status) }, "\(block): `\(block.tag)` is not a list of statuses"
                    )
                } else {
                    #expect(block.tag == "run", "\(block): a shell block is tagged `run`, `status=...` or `not-run: why`, not `\(block.tag)`")
                }
            case "json":
                #expect(!block.tag.isEmpty, "\(block): a JSON block names the openapi.json schema it shows, or `config`")
            case "python" where block.tag == "events-receiver":
                continue  // run by eventsReceiverVerifiesTollgate
            default:
                unchecked.append("\(block): \(block.language.isEmpty ? "no language" : block.language)")
            }
        }
        print(
            "DocumentedExamplesTests: shell blocks not run (their `tollgate` lines are still checked against --help):\n  "
                + notRun.joined(separator: "\n  "))
        print("DocumentedExamplesTests: blocks in other languages, not checked:\n  " + unchecked.joined(separator: "\n  "))
    }

    @Test("A JSON block tagged with a schema parses and conforms to that component of Public/openapi.json")
    func jsonConformsToTheContract() throws {
        let contract = try OpenAPIResponseValidator(
            documentData: try Data(contentsOf: URL(fileURLWithPath: ChildProcess.packageRoot + "/Public/openapi.json")))
        let tagged = try Self.allBlocks().filter { $0.language == "json" && $0.tag != "config" }
        #expect(tagged.count >= 3)
        for block in tagged {
            let problems = contract.problems(ofJSON: Data(block.text.utf8), againstSchemaNamed: block.tag)
            #expect(problems.isEmpty, "\(block) is not a \(block.tag): \(problems.joined(separator: "; "))")
        }
        #expect(
            !contract.problems(ofJSON: Data(#"{"status": "invalid_code"}"#.utf8), againstSchemaNamed: "RedeemInvalidCode").isEmpty,
            "a block without a required member is found wrong")
        #expect(contract.problems(ofJSON: Data("{}".utf8), againstSchemaNamed: "NoSuchSchema") == ["the document has no schema NoSuchSchema"])
    }

    @Test("A JSON configuration block passes `tollgate config check`", .timeLimit(.minutes(3)))
    func configurationPassesTheCheck() async throws {
        let blocks = try Self.allBlocks().filter { $0.language == "json" && $0.tag == "config" }
        #expect(blocks.count >= 3)
        for block in blocks {
            let result = try await Self.configCheck(block.text)
            #expect(result.status == 0, "\(block): tollgate config check exited \(result.status): \(result.stderr)")
        }
        let wrong = try await Self.configCheck(
            #""link_out": {"rules": [{"platform": "ios", "storefronts": ["USA"], "program": "no_such_programme"}]}"#)
        #expect(wrong.status == 78, "a wrong piece of configuration is refused: \(wrong.stdout)")
    }

    @Test(
        "Every `tollgate` command line of the docs, in blocks and inline, names a command and flags `tollgate --help` lists",
        .timeLimit(.minutes(2)))
    func commandLinesExist() async throws {
        let usage = try await ChildProcess.run("tollgate", ["--help"])
        #expect(usage.status == 0)
        let help = CommandLineHelp(usage.stdout)
        #expect(help.commands["admin"]?.contains("funnel") == true && help.flags.contains("--config"), "the help was read: \(help)")
        var checked = 0
        for file in try DocumentedExamples.files() {
            let markdown = try DocumentedExamples.text(of: file)
            let fromBlocks = DocumentedExamples.blocks(in: markdown, file: file).filter { $0.language == "sh" }
                .flatMap { block in DocumentedExamples.commands(in: block.text).map { ("\(block)", $0) } }
            let inline = DocumentedExamples.inlineInvocations(in: DocumentedExamples.prose(of: markdown)).map { (file, $0) }
            for (place, command) in fromBlocks + inline {
                guard let arguments = DocumentedExamples.tollgateArguments(command) else { continue }
                checked += 1
                let problems = help.problems(arguments)
                #expect(problems.isEmpty, "\(place): `\(command)`: \(problems.joined(separator: "; "))")
            }
        }
        #expect(checked > 40, "only \(checked) command lines found")
        #expect(
            help.problems(["admin", "frobnicate", "--email", "e"]) == [
                "`admin` takes one of \(help.commands["admin"]!.sorted().joined(separator: ", ")), not `frobnicate`"
            ])
        #expect(help.problems(["admin", "codes", "--mail", "e"]) == ["unknown flag --mail"])
        #expect(help.problems(["serve", "--config", "FILE"]).isEmpty)
    }

    @Test("Relative links of README.md and docs/*.md lead to files, and headings, that exist")
    func linksResolve() throws {
        let link = try NSRegularExpression(pattern: #"\]\(([^)\s]+)\)"#)
        var followed = 0
        for file in try DocumentedExamples.files() {
            let prose = DocumentedExamples.prose(of: try DocumentedExamples.text(of: file))
            for match in link.matches(in: prose, range: NSRange(prose.startIndex..., in: prose)) {
                let target = String(prose[Range(match.range(at: 1), in: prose)!])
                guard !target.hasPrefix("http://"), !target.hasPrefix("https://"), !target.hasPrefix("mailto:") else { continue }
                followed += 1
                let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                let folder = (file as NSString).deletingLastPathComponent
                let path = parts[0].isEmpty ? file : ((folder as NSString).appendingPathComponent(parts[0]) as NSString).standardizingPath
                guard FileManager.default.fileExists(atPath: ChildProcess.packageRoot + "/" + path) else {
                    Issue.record("\(file): the link \(target) leads to \(path), which the checkout lacks")
                    continue
                }
                if parts.count == 2, path.hasSuffix(".md") {
                    let anchors = try DocumentedExamples.text(of: path).components(separatedBy: "\n").filter { $0.hasPrefix("#") }.map(Self.anchor)
                    #expect(anchors.contains(parts[1]), "\(file): the link \(target) names no heading of \(path)")
                }
            }
        }
        #expect(followed > 30)
        #expect(Self.anchor("## What a paywall may send to `/checkout/start`") == "what-a-paywall-may-send-to-checkoutstart")
    }

    @Test(
        "The shell blocks tagged run or status= run against a live demo server: exit 0, and curl answers the statuses claimed",
        .timeLimit(.minutes(5)))
    func runnableBlocksRun() async throws {
        let directory = try TemporaryDirectory()
        let port = try DemoLoopTests.freePort()
        let child = ChildProcess("tollgate", [], environment: ["TOLLGATE_LISTEN_PORT": String(port)], directory: directory.path)
        try child.start()
        defer { kill(child.pid, SIGTERM) }
        _ = try #require(await child.waitForStdoutLine { $0.hasPrefix("Tollgate is running at") }, "the demo server did not start")
        let browser = Browser(base: "http://localhost:\(port)")
        let shell = Shell(port: port, directory: directory.path)
        let contract = try OpenAPIResponseValidator(
            documentData: try Data(contentsOf: URL(fileURLWithPath: ChildProcess.packageRoot + "/Public/openapi.json")))

        var purchases = 0, ran = 0
        for block in try Self.allBlocks() where block.language == "sh" && block.notRunReason == nil {
            var script = block.text
            if Self.codePlaceholders.contains(where: script.contains) {
                // The first purchase is the README's, paid as you@example.com (`tollgate demo refund` names it).
                let email = purchases == 0 ? "you@example.com" : "docs-\(purchases)@example.com"
                let code = try await Self.buy(browser, email: email)
                purchases += 1
                for placeholder in Self.codePlaceholders { script = script.replacingOccurrences(of: placeholder, with: code) }
            }
            let commands = DocumentedExamples.commands(in: script)
            #expect(!commands.isEmpty, "\(block) has no command")
            if let claims = block.claims {
                #expect(commands.count == claims.count, "\(block): \(commands.count) commands, \(claims.count) statuses claimed")
                for (command, claim) in zip(commands, claims) {
                    #expect(command.hasPrefix("curl "), "\(block): a `status=` block holds curl commands, not `\(command)`")
                    let answer = try await shell.curl(command)
                    #expect(
                        answer.status == claim.status,
                        "\(block): `\(command)` answered \(answer.status), the docs claim \(claim.status); \(answer.body)")
                    var problems = contract.problems(
                        method: Shell.method(of: command), path: shell.path(of: command), status: answer.status,
                        contentType: answer.contentType, body: Array(answer.body.utf8))
                    if problems.count == 1, problems[0].hasPrefix("no operation for"), answer.status == 404 {
                        // A route the contract lacks answers the one error shape.
                        problems = contract.problems(ofJSON: Data(answer.body.utf8), againstSchemaNamed: "Error")
                    }
                    #expect(problems.isEmpty, "\(block): `\(command)`'s answer is not what openapi.json says: \(problems)")
                    if let outcome = claim.outcome {
                        let object = try? JSONSerialization.jsonObject(with: Data(answer.body.utf8)) as? [String: Any]
                        #expect(object?["status"] as? String == outcome, "\(block): `\(command)` answered \(answer.body), the docs claim \(outcome)")
                    }
                }
            } else {
                for command in commands {
                    let result = try await shell.run(command)
                    #expect(result.status == 0, "\(block): `\(command)` exited \(result.status): \(result.stdout) \(result.stderr)")
                }
            }
            ran += 1
        }
        #expect(ran >= 4 && purchases >= 1, "ran \(ran) blocks, \(purchases) purchases")
        let refused = try await shell.curl("curl -s localhost:8080/api/v1/redeem -H 'Content-Type: application/json' -d '{'")
        #expect(refused.status == 400, "the server under test refuses what it should: \(refused.body)")
        kill(child.pid, SIGTERM)
        #expect(try await child.finish().status == 0)
    }

    @Test(
        "The Python receiver of docs/EVENTS.md accepts what `tollgate events test` signs with its secret, and refuses another secret",
        .timeLimit(.minutes(2)))
    func eventsReceiverVerifiesTollgate() async throws {
        let receivers = try Self.allBlocks().filter { $0.language == "python" && $0.tag == "events-receiver" }
        #expect(receivers.count == 1)
        let python = try #require(ChildProcessRunner.locate("python3"), "python3 (scripts/install-test-tools installs it)")
        for block in receivers {
            let key = try #require(block.text.firstMatch(of: /b64decode\("([A-Za-z0-9+\/=]+)"\)/)?.1, "\(block): no key")
            let directory = try TemporaryDirectory()
            let port = try DemoLoopTests.freePort()
            let script = directory.path + "/receiver.py"
            try block.text.replacingOccurrences(of: "9000", with: String(port)).write(toFile: script, atomically: true, encoding: .utf8)
            let receiver = try SpawnedProcess(python, [script], standardOutput: .null, standardError: .null)
            defer { receiver.terminate() }
            let listening = try await ChildProcessRunner.run(
                "/bin/sh", ["-c", "for i in $(seq 100); do curl -s -o /dev/null localhost:\(port) && exit 0; sleep 0.1; done; exit 1"])
            #expect(listening.status == 0, "\(block): the receiver never listened on \(port)")
            for (secret, status) in [("whsec_" + key, 0), ("whsec_" + Data(repeating: 7, count: 24).base64EncodedString(), 1)] {
                let endpoint = #""events": {"endpoints": [{"url": "http://127.0.0.1:\#(port)/tollgate", "secret": "\#(secret)", "types": ["*"]}]}"#
                let sent = try await Self.tollgate(["events", "test"], configuration: endpoint)
                #expect(
                    sent.status == Int32(status),
                    "\(block): with \(secret == "whsec_" + key ? "its" : "another") secret, events test exited \(sent.status): \(sent.stdout) \(sent.stderr)"
                )
            }
        }
    }

    @Test("The reader: fences with their tags, commands across lines and quotes, tollgate's arguments")
    func reader() {
        let markdown =
            "a\n\n  ```sh status=200,404\n  curl -s localhost:8080/x \\\n    -d '{\"a\": 1,\n         \"b\": 2}'\n  # note\n  curl localhost:8080/y\n  ```\n\n```json Error\n{}\n```\n"
        let blocks = DocumentedExamples.blocks(in: markdown, file: "x.md")
        #expect(blocks.map(\.description) == ["x.md:3", "x.md:11"])
        #expect(blocks[0].claims == [.init(status: 200, outcome: nil), .init(status: 404, outcome: nil)] && blocks[1].tag == "Error")
        #expect(
            DocumentedBlock(file: "", line: 1, language: "sh", tag: "status=200:success", text: "").claims == [.init(status: 200, outcome: "success")]
        )
        #expect(Shell.method(of: "curl -s x -H 'A: b' \\\n  -d '{}'") == "POST" && Shell.method(of: "curl -s 'localhost:8080/a?b=1'") == "GET")
        #expect(Shell(port: 1, directory: "").path(of: "curl -s 'localhost:8080/api/v1/entitlements?app_user_id=me'") == "/api/v1/entitlements")
        #expect(
            DocumentedExamples.commands(in: blocks[0].text) == [
                "curl -s localhost:8080/x \\\n  -d '{\"a\": 1,\n       \"b\": 2}'", "curl localhost:8080/y"
            ])
        #expect(
            DocumentedExamples.tollgateArguments("TOLLGATE_X=1 swift run tollgate admin codes --email e # hi") == ["admin", "codes", "--email", "e"])
        #expect(DocumentedExamples.tollgateArguments("tollgate check --config f && systemctl start tollgate") == ["check", "--config", "f"])
        #expect(DocumentedExamples.tollgateArguments("tollgate demo renew\\|cancel [--config FILE]") == ["demo", "renew|cancel", "--config", "FILE"])
        #expect(DocumentedExamples.tollgateArguments("systemctl stop tollgate") == nil)
        #expect(DocumentedExamples.tollgateArguments("X='{\"a\": 1}' \\\n  swift run tollgate") == [])
        #expect(DocumentedExamples.inlineInvocations(in: "`tollgate_x`, `tollgate keys status`, `tollgate`") == ["tollgate keys status", "tollgate"])
    }

    /// The codes the examples show; a run replaces them with the code of a fresh demo purchase.
    static let codePlaceholders = ["XXXX-XXXX-XXXX-XXXX", "K7P2-9QXM-4D8R-2WTF"]

    /// GitHub's anchor of a heading line: lower case, punctuation but `-` dropped, spaces as `-`.
    static func anchor(_ heading: String) -> String {
        let text = heading.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces).lowercased()
        return String(
            text.unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == " " || $0 == "_" }
                .map(Character.init)
        ).replacingOccurrences(of: " ", with: "-")
    }

    /// `tollgate config check` on a configuration file that is `piece` (wrapped in braces when
    /// it is a member, not an object) merged over the smallest file outside demo mode; each
    /// `secret_file` it names is replaced by a file holding a fresh `whsec_` secret.
    static func configCheck(_ piece: String) async throws -> ChildProcess.Result {
        try await tollgate(["config", "check"], configuration: piece)
    }

    /// Runs `tollgate <arguments> --config FILE` on such a file.
    static func tollgate(_ arguments: [String], configuration piece: String) async throws -> ChildProcess.Result {
        let directory = try TemporaryDirectory()
        var text = piece.trimmingCharacters(in: .whitespacesAndNewlines)
        if !text.hasPrefix("{") { text = "{" + text + "}" }
        let secretFile = directory.path + "/events-secret"
        try ("whsec_" + Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString())
            .write(toFile: secretFile, atomically: true, encoding: .utf8)
        text = text.replacingOccurrences(of: #""secret_file":\s*"[^"]*""#, with: "\"secret_file\": \"\(secretFile)\"", options: .regularExpression)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "not a JSON object: \(text)")
        let base: [String: Any] = [
            "base_url": "https://pay.example.com", "secret_key": "docs-example-secret-key-0123456789abcdef",
            "app": ["scheme": "exampleapp"], "api_keys": ["public": ["pk_docs_example"]],
            "database": ["path": directory.path + "/tollgate.sqlite"], "mail": ["transport": "log"]
        ]
        let file = directory.path + "/config.json"
        try JSONSerialization.data(withJSONObject: merged(base, object)).write(to: URL(fileURLWithPath: file))
        return try await ChildProcess.run("tollgate", arguments + ["--config", file], directory: directory.path)
    }

    /// `top` over `base`, objects merged member by member.
    static func merged(_ base: [String: Any], _ top: [String: Any]) -> [String: Any] {
        base.merging(top) { old, new in
            if let old = old as? [String: Any], let new = new as? [String: Any] { return merged(old, new) }
            return new
        }
    }

    /// A demo purchase as a buyer makes it (home → demo checkout → pay as `email`), and its code.
    static func buy(_ browser: Browser, email: String) async throws -> String {
        let home = try await browser.get("/")
        let buy = try #require(Browser.attribute("href", ofTagWith: #"id="demo-buy""#, in: home.body), "no a#demo-buy")
        let start = try await browser.get(buy.replacingOccurrences(of: "&amp;", with: "&"))
        let checkout = try await browser.get(try #require(start.location, "no checkout page"))
        let action = try #require(Browser.attribute("action", ofTagWith: #"id="demo-pay""#, in: checkout.body))
        let token = try #require(Browser.attribute("value", ofTagWith: #"name="token""#, in: checkout.body))
        let paid = try await browser.post(action, form: ["token": token, "email": email, "choice": "pay"])
        let success = try await browser.get(try #require(paid.location, "paying led nowhere"))
        return try #require(Browser.code(in: success.body), "no code on the success page")
    }
}

/// Runs a documented command with `/bin/sh` in the demo server's folder: `swift run tollgate` and
/// `tollgate` are the built binary (its folder first in `PATH`), `localhost:8080` is the server.
struct Shell {
    let port: Int
    let directory: String

    func run(_ command: String) async throws -> ChildProcess.Result {
        let products = ChildProcess.productsDirectory.path
        let path = products + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let script = command.replacingOccurrences(of: "swift run tollgate", with: "tollgate")
            .replacingOccurrences(of: "localhost:8080", with: "localhost:\(port)")
        return ChildProcess.Result(
            try await ChildProcessRunner.run(
                "/bin/sh", ["-c", script], directory: directory,
                environment: ChildProcess.environment(adding: ["PATH": path, "TOLLGATE_LISTEN_PORT": String(port)])))
    }

    /// What a documented `curl` command answered: its status, `Content-Type` and body.
    func curl(_ command: String) async throws -> (status: Int, contentType: String?, body: String) {
        let result = try await run("curl --max-time 30 -w '\\n%{http_code} %{content_type}' " + command.dropFirst("curl ".count))
        var lines = result.stdout.components(separatedBy: "\n")
        let last = lines.removeLast().split(separator: " ", maxSplits: 1).map(String.init)
        return (Int(last.first ?? "") ?? -1, last.count == 2 ? last[1] : nil, lines.joined(separator: "\n"))
    }

    /// The method a `curl` command uses: POST with a body, else GET.
    static func method(of command: String) -> String {
        command.range(of: #"(^|\s)(-d|--data\S*|-X POST)\s"#, options: .regularExpression) != nil ? "POST" : "GET"
    }

    /// The path (without the query) of the `localhost:8080` URL a `curl` command names.
    func path(of command: String) -> String {
        guard let start = command.range(of: "localhost:8080") else { return "" }
        return String(command[start.upperBound...].prefix { !["'", "\"", " ", "?", "\n"].contains($0) })
    }
}
