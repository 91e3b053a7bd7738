import Domain

/// What the CLI prints of stored or received text: every control and format character
/// (`ControlCharacters`) written as `\u{HEX}`, so a value stored before the edge refused them (an
/// app user id with an escape sequence, a remote server's error) cannot drive the operator's terminal.
enum TerminalText {
    /// One table row: each field escaped, joined by tabs.
    static func row(_ fields: [String]) -> String { fields.map(ControlCharacters.escaped).joined(separator: "\t") }

    /// One value escaped for a line of text.
    static func safe(_ text: String) -> String { ControlCharacters.escaped(text) }
}
