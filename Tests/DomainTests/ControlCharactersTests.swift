import Domain
import Testing

@Suite("ControlCharacters: the one rule for controls, format characters and separators")
struct ControlCharactersTests {
    @Test("Cc, Cf, Zl and Zp are controls; letters, marks, symbols and spaces of any script are not")
    func classes() {
        for scalar: Unicode.Scalar in [
            "\u{0}", "\u{7}", "\u{9}", "\u{A}", "\u{D}", "\u{1B}", "\u{7F}", "\u{85}", "\u{9B}", "\u{AD}", "\u{200B}", "\u{200E}", "\u{202E}",
            "\u{2028}", "\u{2029}", "\u{2066}", "\u{FEFF}", "\u{E0001}"
        ] {
            #expect(ControlCharacters.isControl(scalar), "U+\(String(scalar.value, radix: 16))")
        }
        for scalar: Unicode.Scalar in ["a", " ", "é", "\u{301}", "学", "\u{1F600}", "\\", "\u{A0}"] {
            #expect(!ControlCharacters.isControl(scalar), "U+\(String(scalar.value, radix: 16))")
        }
    }

    @Test("escaped writes each as \\u{HEX} and leaves everything else as it was")
    func escaping() {
        #expect(ControlCharacters.escaped("plain é 学") == "plain é 学")
        #expect(ControlCharacters.escaped("a\u{1B}[31mb\u{0}\u{202E}") == #"a\u{1B}[31mb\u{0}\u{202E}"#)
        #expect(ControlCharacters.name("\u{1B}") == "U+001B")
        #expect(ControlCharacters.name("\u{E0001}") == "U+E0001")
    }

    @Test("every ASCII control is found in a text, on the printable-ASCII path and beside other scripts")
    func asciiControlsInTexts() {
        for value in Array(0..<0x20) + [0x7F] {
            let control = String(Character(Unicode.Scalar(UInt8(value))))
            #expect(ControlCharacters.contains("user-" + control + "-1"), "U+\(String(value, radix: 16))")
            #expect(ControlCharacters.contains("é" + control), "U+\(String(value, radix: 16))")
            #expect(!ControlCharacters.isPrintableASCII("user" + control))
        }
        #expect(ControlCharacters.isPrintableASCII("bench-user-1 ~!{}"))
        #expect(!ControlCharacters.contains("bench-user-1 ~!{}"))
        #expect(!ControlCharacters.isPrintableASCII("é"))
        #expect(ControlCharacters.contains("é\u{202E}"))
    }
}
