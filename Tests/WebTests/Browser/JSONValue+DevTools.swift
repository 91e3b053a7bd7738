import JSON

/// Reading the DevTools protocol's answers and events (`DevToolsPipe`, `BrowserSession`).
extension JSONValue {
    /// The text of a `.string`, else nil.
    var stringValue: String? { if case .string(let value) = self { value } else { nil } }

    /// The value of an `.integer` (or of a whole `.number`), else nil.
    var intValue: Int? {
        switch self {
        case .integer(let value): Int(value)
        case .number(let value) where value.rounded() == value: Int(value)
        default: nil
        }
    }

    /// The value of a number, else nil.
    var doubleValue: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .number(let value): value
        default: nil
        }
    }

    /// The elements of an `.array`, else empty.
    var arrayValue: [JSONValue] { if case .array(let values) = self { values } else { [] } }
}
