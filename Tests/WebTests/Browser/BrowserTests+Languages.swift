import Foundation
import HTTPCore
import TestSupport
import Testing

@testable import Web

/// The buyer's pages in each shipped language and the Arabic test catalog (right to left), in a
/// real headless Chromium on a phone and a desktop: the language and direction set, no English
/// phrase of the page's own left (shipped languages), no console error, and no overflow (measured
/// in the browser, English included, at 320, 390 and 1280 px: `OverflowCheck`). Screenshots of
/// three pages in four languages (German, French, Japanese, Arabic) are taken, and written to
/// `docs/screenshots/` for people to look at with `TOLLGATE_SCREENSHOTS=1`.
/// Part of `BrowserTests` (its suite runs one test at a time, so the two share the browser's
/// load slots in turn instead of racing for them).
extension BrowserTests {
    static let languages = ["de", "fr", "es", "ja", "ar"]
    static let languageScreenshots = PackagePaths.root + "/docs/screenshots"
    /// The languages whose pages are photographed for docs/: German, French, Japanese (a CJK
    /// font, Debian's fonts-noto-cjk) and Arabic (right to left).
    static let screenshotLanguages = ["de", "fr", "ja", "ar"]

    // 62 page loads plus two overflow frame pages: one Chromium process per load took 526–754 s;
    // one browser driven over DevTools takes about a minute. The limit guards against a hang.
    @Test(
        "Every buyer page in every language, phone and desktop: lang and dir, no English left, no console errors",
        .timeLimit(.minutes(10)))
    func everyLanguageInChromium() async throws {
        try #require(HeadlessChromium.executable != nil, "chromium is not installed: run scripts/install-test-tools")
        // Without a CJK font Chromium draws the Japanese pages as empty boxes (and measures them so).
        let japaneseFonts = try await ChildProcessRunner.run("fc-list", [":lang=ja", "family"])
        try #require(!japaneseFonts.stdoutText.isEmpty, "no font covers Japanese: run scripts/install-test-tools (fonts-noto-cjk)")
        let harness = try CheckoutHarness(extra: ["locales": ["dir": PackagePaths.testLocales]])
        var sessions: [String: String] = [:]
        var codes: [String: String] = [:]
        for language in ["en"] + Self.languages {
            let id = try await harness.startCheckout("plan=monthly&app_user_id=user-\(language)&email=\(language)%40example.com&locale=\(language)")
            try harness.pay(id, email: "\(language)@example.com")
            let page = await harness.successPage(id)
            sessions[language] = id
            let copyButton = try #require(page.text.firstMatch(of: /data-copy="([0-9A-Z-]{19})"/))
            codes[language] = String(copyButton.1)
        }
        try harness.app.app.start()
        let base = "http://127.0.0.1:\(harness.app.app.server.port)"
        let scratch = try TemporaryDirectory()
        if HeadlessChromium.screenshotsWanted {
            try FileManager.default.createDirectory(atPath: Self.languageScreenshots, withIntermediateDirectories: true)
        }

        func paths(_ language: String) -> [(String, String)] {
            [
                ("home", "/?locale=\(language)"),
                ("success", "/checkout/success?session_id=\(sessions[language] ?? "")"),
                ("redeem", "/redeem/\(codes[language] ?? "")?locale=\(language)"),
                ("unknown-code", "/redeem/ZZZZ-ZZZZ-ZZZZ-ZZZZ?locale=\(language)"),
                ("error-404", "/no/such/page?locale=\(language)")
            ]
        }
        var jobs: [(language: String, page: String, load: BrowserLoad)] = []
        for language in Self.languages {
            for (page, path) in paths(language) {
                for device in [BrowserDevice.iPhone, .desktop] {
                    jobs.append((language, page, BrowserLoad(url: base + path, device: device, javaScript: true, dark: false, output: .dom)))
                }
                if Self.screenshotLanguages.contains(language) && ["success", "redeem", "unknown-code"].contains(page) {
                    let file = "\(Self.languageScreenshots)/\(page)-\(language)-iphone.png"
                    jobs.append(
                        (
                            language, page,
                            BrowserLoad(url: base + path, device: .iPhone, javaScript: true, dark: false, output: .screenshot(path: file))
                        ))
                }
            }
        }
        let results = try await Self.run(
            jobs.map { Job(page: Page(name: "\($0.language)/\($0.page)", path: "", kind: .home), load: $0.load) },
            scratch: scratch.path)
        // No overflow: every page in every language (English too) measured in two Chromium runs,
        // one as a phone (320 and 390 px wide frames) and one as a desktop (1280 px).
        var phone: [OverflowCheck.Frame] = []
        var desktop: [OverflowCheck.Frame] = []
        for language in ["en"] + Self.languages {
            for (page, path) in paths(language) {
                for width in [BrowserDevice.small.width, BrowserDevice.iPhone.width] {
                    phone.append(.init(label: "\(language)/\(page) at \(width) px", path: path, width: width, height: BrowserDevice.iPhone.height))
                }
                desktop.append(
                    .init(
                        label: "\(language)/\(page) at \(BrowserDevice.desktop.width) px", path: path, width: BrowserDevice.desktop.width,
                        height: BrowserDevice.desktop.height))
            }
        }
        let overflow = try await Self.measureOverflow(["phone": phone, "desktop": desktop], upstream: base, scratch: scratch.path)
        await harness.app.app.shutdown()
        #expect(overflow.count == phone.count + desktop.count, "measured \(overflow.count) of \(phone.count + desktop.count) frames")
        for measurement in overflow {
            // The page itself in its language was measured, not an error answer in its place.
            let language = String(measurement.label.prefix { $0 != "/" })
            #expect(measurement.lang == language && measurement.elements >= 5, "not the page: \(measurement)")
            if measurement.overflows { Issue.record("overflow: \(measurement)") }
        }

        var phrases: [String: [String]] = [:]
        for language in Self.languages where language != "ar" { phrases[language] = try ShippedLanguagesTests.englishPhrases(unlike: language) }
        #expect(results.count == jobs.count)
        for (job, result) in results {
            let label = "\(job.page.name) on \(job.load.device)"
            let language = String(job.page.name.prefix { $0 != "/" })
            #expect(result.status == 0, "\(label): the page did not load: \(result.stderr)")
            #expect(result.consoleMessages.isEmpty, "\(label): \(result.consoleMessages)")
            switch job.load.output {
            case .screenshot(let path):
                #expect(result.screenshot.count > 1000, "\(label): no screenshot for \(path)")
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
