import Foundation

/// What each page must show in the DOM Chromium rendered, per device and with JavaScript on or
/// off; every rule answers with the problems it found (empty: the page is right).
enum PageExpectations {
    /// Hosts a page may link to (never load from): the configured base URL and the stores.
    static let linkHosts: Set<String> = ["pay.example.com", "apps.apple.com", "play.google.com"]
    /// The app's own schemes: the custom scheme and Android's intent links.
    static let appSchemes = ["exampleapp:", "intent:", "gonative:"]

    static func problems(in dom: DOMInspection, dom text: String, page: BrowserTests.Page, load: BrowserLoad, code: String) -> [String] {
        var problems = common(dom, text: text) + hostProblems(in: dom)
        let device = load.device
        switch page.kind {
        case .success, .redeem:
            problems += codePage(dom, text: text, device: device, javaScript: load.javaScript, code: code, redeem: page.kind == .redeem)
        case .unknown, .expired:
            let form = dom.all("form").first
            if form?.attributes["action"] != "/redeem/resend" || form?.attributes["method"] != "post" {
                problems.append("no POST form to /redeem/resend")
            }
            if dom.element(id: "email")?.attributes["type"] != "email" { problems.append("no email field") }
            let heading = page.kind == .expired ? "This code has expired" : "We could not find this code"
            if !text.contains(heading) { problems.append("heading \"\(heading)\" missing") }
        case .cancel:
            if dom.element(id: "back-to-app")?.attributes["href"] != "exampleapp://checkout/cancel" { problems.append("no way back into the app") }
        case .notFound:
            if !text.contains("Error 404") || !text.contains("We could not find this page") { problems.append("not the 404 page") }
        case .home:
            if !text.contains("Get back into Example") { problems.append("not the home page") }
        case .signIn:
            let actions = dom.all("form").map { "\($0.attributes["method"] ?? "get") \($0.attributes["action"] ?? "")" }
            if actions != ["post /account/sign-in", "post /account/sign-in"] { problems.append("sign-in forms are \(actions)") }
            if dom.element(id: "email")?.attributes["type"] != "email" || dom.element(id: "password")?.attributes["type"] != "password" {
                problems.append("no email and password fields")
            }
            problems += csrfProblems(dom)
        case .signInLink:
            if dom.all("form").map({ $0.attributes["action"] }) != ["/account/sign-in/link"] { problems.append("no sign-in button form") }
            problems += csrfProblems(dom)
        case .account:
            let actions = Set(dom.all("form").compactMap { $0.attributes["action"] })
            for action in ["/account/sign-out", "/account/resend", "/account/billing", "/account/delete"] where !actions.contains(action) {
                problems.append("no \(action) form")
            }
            if !text.contains("buyer@example.com") || !text.contains("Renews") { problems.append("the buyer's email or purchase is missing") }
            if !dom.all("a").contains(where: { $0.attributes["href"] == "/account/export" }) { problems.append("no download link") }
            problems += csrfProblems(dom)
        case .goNativeStore:
            let hrefs = Set(dom.all("a").compactMap { $0.attributes["href"] })
            if !hrefs.contains("gonative://purchase/com.example.monthly") || !hrefs.contains("gonative://iap/restorePurchases") {
                problems.append("no purchase or restore button: \(hrefs.sorted())")
            }
            if !text.contains("within a minute") { problems.append("no note that a restore shows up within a minute") }
        }
        if page.kind != .success && page.kind != .redeem && text.contains("<svg") { problems.append("an <svg> (QR code) outside the code pages") }
        return problems
    }

    /// The success and redeem pages: the code, the copy button, the way into the app and the
    /// store badges right for the device, the QR code on desktop only.
    static func codePage(_ dom: DOMInspection, text: String, device: BrowserDevice, javaScript: Bool, code: String, redeem: Bool) -> [String] {
        var problems: [String] = []
        let groups = code.split(separator: "-").map { "<span>\($0)</span>" }.joined()
        if !text.contains(groups) { problems.append("the code \(code) is not shown in groups") }
        let copy = dom.element(id: "copy-code")
        if copy?.attributes["data-copy"] != code { problems.append("no copy button for the code") }
        // The copy button needs JavaScript: shown with it, hidden (with the visible hint) without.
        if (copy?.attributes["hidden"] != nil) == javaScript {
            problems.append("copy button hidden=\(copy?.attributes["hidden"] != nil) with JavaScript \(javaScript)")
        }
        let fallbackHidden = dom.tags.first { $0.attributes["data-copy-fallback"] != nil }?.attributes["hidden"] != nil
        if fallbackHidden != javaScript { problems.append("the copy hint's visibility is wrong with JavaScript \(javaScript)") }
        let open = dom.element(id: "open-app")?.attributes["href"]
        let appStore = dom.element(id: "app-store") != nil
        let play = dom.element(id: "play-store") != nil
        let qr = text.contains("<svg")
        switch device.name {
        case "iphone", "small320":
            // The success page leads with the universal link (API.md), the landing it opens with the scheme.
            let expected = redeem ? "exampleapp://redeem?code=\(code)" : "https://pay.example.com/redeem/\(code)"
            if open != expected { problems.append("Open button is \(open ?? "missing"), not \(expected)") }
            if !appStore || play { problems.append("iPhone must see the App Store badge only (app store \(appStore), play \(play))") }
            if qr { problems.append("a QR code on a phone") }
        case "android":
            // Without the app, Chrome opens the fallback: Google Play with the code as install referrer.
            let fallback = "https%3A%2F%2Fplay.google.com%2Fstore%2Fapps%2Fdetails%3Fid%3Dcom.example.app%26referrer%3Dtollgate_code%253D\(code)"
            if open != "intent://redeem?code=\(code)#Intent;scheme=exampleapp;package=com.example.app;S.browser_fallback_url=\(fallback);end" {
                problems.append("Open button is \(open ?? "missing"), not the intent link with its Play Store fallback")
            }
            let playLink = dom.element(id: "play-store")?.attributes["href"]
            if playLink != "https://play.google.com/store/apps/details?id=com.example.app&referrer=tollgate_code%3D\(code)" {
                problems.append("the Google Play badge is \(playLink ?? "missing"), not the listing with the code as referrer")
            }
            if appStore || !play { problems.append("Android must see the Google Play badge only (app store \(appStore), play \(play))") }
            if qr { problems.append("a QR code on a phone") }
        default:
            if open != nil { problems.append("a phone's Open button on desktop") }
            if !appStore || !play { problems.append("desktop must see both store badges") }
            if !qr { problems.append("no QR code on desktop") }
            if dom.element(id: "universal-link")?.attributes["href"] != "https://pay.example.com/redeem/\(code)" {
                problems.append("no universal link under the QR code")
            }
        }
        // Phones try the app by themselves once: the landing with the scheme, the success page with
        // its Open button's target (app.js follows a web link only on the page's own origin, so
        // here, served from the loopback, the success page stays put with its code).
        let auto = dom.element(id: "open-app")?.attributes["data-auto-open"]
        if redeem && device.name != "desktop" && auto != "exampleapp://redeem?code=\(code)" {
            problems.append("the landing does not try the app on load")
        }
        if !redeem && device.name != "desktop" && auto != open { problems.append("the success page does not try its Open link on load") }
        if device.name == "desktop" && auto != nil { problems.append("a desktop page tries the app by itself") }
        if !redeem && !text.contains("b•••@e•••.com") { problems.append("no masked email") }
        return problems
    }

    /// Every POST form carries a non-empty CSRF token.
    static func csrfProblems(_ dom: DOMInspection) -> [String] {
        let tokens = dom.all("input").filter { $0.attributes["name"] == "csrf" && !($0.attributes["value"] ?? "").isEmpty }
        let forms = dom.all("form").filter { $0.attributes["method"] == "post" }
        return tokens.count >= forms.count ? [] : ["\(forms.count) POST forms but \(tokens.count) CSRF tokens"]
    }

    /// Every page: lang, a title, one h1, a main landmark, labelled fields, same-origin
    /// subresources only.
    static func common(_ dom: DOMInspection, text: String) -> [String] {
        var problems: [String] = []
        if (dom.all("html").first?.attributes["lang"] ?? "").isEmpty { problems.append("no lang on <html>") }
        if !text.contains("<title>") || text.contains("<title></title>") { problems.append("no title") }
        if dom.all("h1").count != 1 { problems.append("\(dom.all("h1").count) <h1> elements") }
        if dom.all("main").count != 1 { problems.append("no <main> landmark") }
        let labelled = Set(dom.all("label").compactMap { $0.attributes["for"] })
        for input in dom.all("input") where input.attributes["type"] != "hidden" {
            if !labelled.contains(input.attributes["id"] ?? "-") { problems.append("an input without a label: \(input.attributes)") }
        }
        for resource in dom.subresources where !resource.hasPrefix("/") || resource.hasPrefix("//") {
            problems.append("loads \(resource) from outside this origin")
        }
        if !dom.all("link").contains(where: { $0.attributes["rel"] == "stylesheet" && $0.attributes["href"] == "/static/style.css" }) {
            problems.append("not styled by /static/style.css")
        }
        return problems
    }

    /// URLs that point to another host than the service, the stores or the app.
    static func hostProblems(in dom: DOMInspection) -> [String] {
        dom.urls.compactMap { url in
            let value = url.value.trimmingCharacters(in: .whitespaces)
            if value.isEmpty || value.hasPrefix("#") || (value.hasPrefix("/") && !value.hasPrefix("//")) { return nil }
            if appSchemes.contains(where: { value.lowercased().hasPrefix($0) }) && url.tag == "a" { return nil }
            if url.tag == "a", let components = URLComponents(string: value), components.scheme == "https",
                let host = components.host, linkHosts.contains(host)
            {
                return nil
            }
            return "<\(url.tag) \(url.attribute)=\"\(value)\"> points to another host"
        }
    }
}
