/// The fields of an ErrorResponse or NoticeResponse (protocol "Error and Notice Message Fields").
///
/// `detail` and `hint` may quote row values: they are kept here for callers to use on purpose,
/// and left out of `PostgresError.description` and of the module's logs.
public struct PostgresServerMessage: Sendable, Equatable {
    /// ERROR, FATAL or PANIC (errors); WARNING, NOTICE, DEBUG, INFO or LOG (notices). Never localized.
    public var severity: String
    /// The SQLSTATE code ("23505").
    public var code: String
    /// The primary message.
    public var message: String
    /// The optional secondary message (may quote values).
    public var detail: String?
    /// An optional suggestion.
    public var hint: String?
    /// The schema of the object concerned.
    public var schema: String?
    /// The table concerned.
    public var table: String?
    /// The column concerned.
    public var column: String?
    /// The constraint that was violated.
    public var constraint: String?

    /// A message with these fields.
    public init(
        severity: String, code: String, message: String, detail: String? = nil, hint: String? = nil,
        schema: String? = nil, table: String? = nil, column: String? = nil, constraint: String? = nil
    ) {
        self.severity = severity
        self.code = code
        self.message = message
        self.detail = detail
        self.hint = hint
        self.schema = schema
        self.table = table
        self.column = column
        self.constraint = constraint
    }

    /// Reads the `(type byte, cstring)` pairs of an ErrorResponse or NoticeResponse body.
    init(fields: [UInt8: String]) {
        // 'V' is the non-localized severity (9.6+); 'S' may be translated.
        severity = fields[UInt8(ascii: "V")] ?? fields[UInt8(ascii: "S")] ?? "ERROR"
        code = fields[UInt8(ascii: "C")] ?? "XX000"
        message = fields[UInt8(ascii: "M")] ?? "(no message)"
        detail = fields[UInt8(ascii: "D")]
        hint = fields[UInt8(ascii: "H")]
        schema = fields[UInt8(ascii: "s")]
        table = fields[UInt8(ascii: "t")]
        column = fields[UInt8(ascii: "c")]
        constraint = fields[UInt8(ascii: "n")]
    }

    /// FATAL and PANIC end the session: the server closes the connection after sending them.
    var endsSession: Bool { severity == "FATAL" || severity == "PANIC" }
}
