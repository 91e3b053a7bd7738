extension QRCode {
    /// Modules of light margin around the symbol that scanners need.
    public static let quietZone = 4

    /// An inline SVG of the symbol: a background square, a four-module quiet zone and one
    /// `<path>` of the dark modules (horizontal runs merged), one user unit per module,
    /// scalable through CSS. No scripts or external references.
    /// - Parameters:
    ///   - label: the accessible name (`aria-label`); HTML-escaped here.
    ///   - foreground: the dark module colour; HTML-escaped here.
    ///   - background: the light colour; HTML-escaped here.
    public func svg(label: String, foreground: String = "#000", background: String = "#fff") -> String {
        let size = size
        let side = String(size + 2 * QRCode.quietZone)
        var out = ""
        out.reserveCapacity(256 + size * size)
        out += #"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 "#
        out += side + " " + side
        out += #"" role="img" aria-label=""#
        out += QRCode.escapeHTML(label)
        out += #"" shape-rendering="crispEdges"><rect width=""#
        out += side + #"" height=""# + side + #"" fill=""#
        out += QRCode.escapeHTML(background)
        out += #""/><path fill=""#
        out += QRCode.escapeHTML(foreground)
        out += #"" d=""#
        for y in 0..<size {
            var x = 0
            while x < size {
                guard modules[y * size + x] else { x += 1; continue }
                let start = x
                while x < size && modules[y * size + x] { x += 1 }
                let run = String(x - start)
                out += "M" + String(start + QRCode.quietZone) + " " + String(y + QRCode.quietZone)
                out += "h" + run + "v1h-" + run + "z"
            }
        }
        out += #""/></svg>"#
        return out
    }

    /// `text` with `& < > " '` replaced by character references, safe in element content
    /// and in quoted attribute values.
    static func escapeHTML(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
