import Foundation

/// Just enough reading of a DOM that Chromium serialized (`--dump-dom`) for the browser tests:
/// start tags by id, their attributes, and every URL the page refers to. Chromium's serializer
/// writes attributes in double quotes with `&`, `"` and non-breaking spaces escaped, so a
/// regular expression over start tags is exact here.
struct DOMInspection {
    /// One start tag: its name and attributes (names lowercased, values entity-decoded).
    struct Tag {
        let name: String
        let attributes: [String: String]
    }

    let tags: [Tag]

    init(_ dom: String) {
        var tags: [Tag] = []
        let tagPattern = /<([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[^\s"'>\/=]+(?:="[^"]*")?)*)\s*\/?>/
        let attributePattern = /([^\s"'>\/=]+)(?:="([^"]*)")?/
        for match in dom.matches(of: tagPattern) {
            var attributes: [String: String] = [:]
            for attribute in String(match.output.2).matches(of: attributePattern) {
                let value = attribute.output.2.map { Self.decode(String($0)) } ?? ""
                attributes[String(attribute.output.1).lowercased()] = value
            }
            tags.append(Tag(name: String(match.output.1).lowercased(), attributes: attributes))
        }
        self.tags = tags
    }

    /// The start tag with this id, if any.
    func element(id: String) -> Tag? { tags.first { $0.attributes["id"] == id } }

    /// Every tag named `name`.
    func all(_ name: String) -> [Tag] { tags.filter { $0.name == name } }

    /// Every URL the page refers to: (tag, attribute, value) for href, src, action and srcset.
    var urls: [(tag: String, attribute: String, value: String)] {
        tags.flatMap { tag in
            ["href", "src", "action", "srcset", "poster", "data"].compactMap { attribute in
                tag.attributes[attribute].map { (tag.name, attribute, $0) }
            }
        }
    }

    /// URLs the browser loads by itself while rendering (stylesheets, icons, scripts, images…),
    /// as opposed to links the visitor may follow.
    var subresources: [String] {
        tags.compactMap { tag in
            switch tag.name {
            case "link": tag.attributes["href"]
            case "script", "img", "iframe", "source", "video", "audio", "embed", "input": tag.attributes["src"]
            case "object": tag.attributes["data"]
            default: nil
            }
        }
    }

    private static func decode(_ value: String) -> String {
        value.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&nbsp;", with: "\u{A0}")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&#61;", with: "=").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}
