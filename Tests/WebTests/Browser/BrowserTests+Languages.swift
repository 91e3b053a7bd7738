import Foundation
import HTTPCore
import Testing

@testable import Web

/// The buyer's pages in each shipped language and the Arabic test catalog (right to left), in a
/// real headless Chromium on a phone and a desktop: the language and direction set, no English
/// phrase of the page's own left (shipped languages), no console error. Screenshots of three pages
/// in three languages (German, French, Arabic; Japanese needs a CJK font on the machine, which
/// Debian's Chromium does not bring) are written to `docs/screenshots/` for people to look at.
/// Part of `BrowserTests` (its suite runs one test at a time, so the two share Chromium's two
/// slots in turn instead of racing for them).
extension BrowserTests {
    static let languages = ["de", "fr", "es", "ja", "ar"]
    static let languageScreenshots = PackagePaths.root + "/docs/screenshots"

    // 50 Chromium page loads: 526 s in a quiet clean-clone run, so the limit (a guard against a
    // hang, not a benchmark) leaves room for a slower machine.
    @Test("Every buyer page in every language, phone and desktop: lang and dir, no English left, no console errors",
          .timeLimit(.minutes(15)))
    func everyLanguageInChromium() async throws {
        try #require(HeadlessChromium.executable != nil, "chromium is not installed: run scripts/install-test-tools")
        let harness = try CheckoutHarness(extra: ["locales": ["dir": PackagePaths.testLocales]])
        var sessions: [String: String] = [:]
        var codes: [String: String] = [:]
        for language in Self.languages {
            let id = try await harness.startCheckout("plan=monthly&app_user_id=user-\(language)&email=\(language)%40example.com&locale=\(language)")
            try harness.pay(id, email: "\(language)@example.com")
            let page = await harness.successPage(id)
            sessions[language] = id
            codes[language] = try #require(page.text.firstMatch(of: /data-copy="([0-9A-Z-]{19})"/).map { String($0.1) })
        }
        try harness.app.app.start()
        let base = "http://127.0.0.1:\(harness.app.app.server.port)"
        let scratch = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: Self.languageScreenshots, withIntermediateDirectories: true)

        var jobs: [(language: String, page: String, load: BrowserLoad)] = []
        for language in Self.languages {
            let paths = [
                ("home", "/?locale=\(language)"),
                ("success", "/checkout/success?session_id=\(sessions[language] ?? "")"),
                ("redeem", "/redeem/\(codes[language] ?? "")?locale=\(language)"),
                ("unknown-code", "/redeem/ZZZZ-ZZZZ-ZZZZ-ZZZZ?locale=\(language)"),
                ("error-404", "/no/such/page?locale=\(language)"),
            ]
            for (page, path) in paths {
                for device in [BrowserDevice.iPhone, .desktop] {
                    jobs.append((language, page, BrowserLoad(url: base + path, device: device, javaScript: true, dark: false, output: .dom)))
                }
                if ["de", "fr", "ar"].contains(language) && ["success", "redeem", "unknown-code"].contains(page) {
                    let file = "\(Self.languageScreenshots)/\(page)-\(language)-iphone.png"
                    jobs.append((language, page, BrowserLoad(url: base + path, device: .iPhone, javaScript: true, dark: false, output: .screenshot(path: file))))
                }
            }
        }
        let results = try await Self.run(
            jobs.map { Job(page: Page(name: "\($0.language)/\($0.page)", path: "", kind: .home), load: $0.load) },
            scratch: scratch.path)
        await harness.app.app.shutdown()

        var phrases: [String: [String]] = [:]
        for language in Self.languages where language != "ar" { phrases[language] = try ShippedLanguagesTests.englishPhrases(unlike: language) }
        #expect(results.count == jobs.count)
        for (job, result) in results {
            let label = "\(job.page.name) on \(job.load.device)"
            let language = String(job.page.name.prefix { $0 != "/" })
            #expect(result.status == 0, "\(label): chromium exited with \(result.status)")
            #expect(result.consoleMessages.isEmpty, "\(label): \(result.consoleMessages)")
            switch job.load.output {
            case .screenshot(let path):
                let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
                #expect(size > 1000, "\(label): no screenshot at \(path)")
            case .dom:
                let direction = language == "ar" ? "rtl" : "ltr"
                #expect(result.dom.contains(#"<html lang="\#(language)" dir="\#(direction)">"#), "\(label)")
                let left = (phrases[language] ?? []).filter { result.dom.contains($0) }
                #expect(left.isEmpty, "\(label) still says \(left)")
                let problems = PageExpectations.common(DOMInspection(result.dom), text: result.dom)
                #expect(problems.isEmpty, "\(label): \(problems)")
            }
        }
    }
}
