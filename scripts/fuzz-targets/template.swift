// libFuzzer target: the template parser and renderer. The input is a template source (and,
// split at the first NUL, a partial); parse errors must be TemplateErrors, and what parses
// must render with a context of every value kind. Sections over lists nest multiplicatively
// (k nested sections over two items render 2^k times, as in any Mustache engine; templates
// are the operator's files, not input), so only templates with at most `maxSections` section
// tags in all are rendered. Built by scripts/fuzz.
import Templating

private let context: TemplateValue = [
    "name": "<b>Zoë</b> & \"co\"", "empty": "", "yes": true, "no": false, "zero": 0, "count": 3, "none": nil,
    "items": [["name": "a", "items": [1, 2]], "plain"],
    "nested": ["deeper": ["name": "x"]]
]
private let maxSections = 10

/// Tags opening a section or an inverted section (`{{#`, `{{^`, spaces allowed after `{{`).
private func sectionCount(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
    var count = 0
    var index = 0
    while index + 1 < bytes.count {
        if bytes[index] == UInt8(ascii: "{") && bytes[index + 1] == UInt8(ascii: "{") {
            index += 2
            while index < bytes.count, bytes[index] == UInt8(ascii: "{") || bytes[index] == 0x20 || bytes[index] == 0x09 { index += 1 }
            if index < bytes.count, bytes[index] == UInt8(ascii: "#") || bytes[index] == UInt8(ascii: "^") { count += 1 }
        } else {
            index += 1
        }
    }
    return count
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTemplate(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let split = bytes.firstIndex(of: 0) ?? bytes.count
    let main = String(decoding: bytes[..<split], as: UTF8.self)
    let partial = split < bytes.count ? String(decoding: bytes[(split + 1)...], as: UTF8.self) : "{{name}}"
    do {
        let library = try TemplateLibrary(templates: ["main.html": main, "part": partial, "main.txt": main])
        guard sectionCount(bytes) <= maxSections else { return 0 }
        for name in ["main.html", "main.txt"] {
            let rendered = try library.render(name, context)
            _ = rendered.utf8.count
        }
    } catch is TemplateError {
        return 0
    } catch {
        fatalError("not a TemplateError: \(error)")
    }
    return 0
}
