/// An email to enqueue: which template to render for whom, with which parameters.
///
/// `idempotencyKey` identifies the cause (for example `redemption_code:<purchase id>`): enqueuing
/// the same key again does nothing. `parameters` are the template's values (code, link, expiry
/// text …), stored as JSON text; `app_name` and `subject` are supplied at rendering.
public struct OutboxMessage: Sendable, Equatable {
    /// Unique per email cause; a repeat is a no-op.
    public var idempotencyKey: String
    /// The template under `templates/email/`, without extension (`redemption_code`).
    public var template: String
    /// The recipient's address.
    public var recipient: String
    /// The recipient's name, if known.
    public var recipientName: String?
    /// The template's parameters.
    public var parameters: [String: String]

    /// Creates a message to enqueue.
    public init(idempotencyKey: String, template: String, recipient: String, recipientName: String? = nil, parameters: [String: String] = [:]) {
        self.idempotencyKey = idempotencyKey
        self.template = template
        self.recipient = recipient
        self.recipientName = recipientName
        self.parameters = parameters
    }
}

/// What `Outbox.enqueue` did.
public enum EnqueueResult: Sendable, Equatable {
    /// A new outbox row with this id.
    case enqueued(id: String)
    /// A row with the same idempotency key already existed (its id); nothing was added.
    case duplicate(id: String)

    /// The outbox row's id either way.
    public var id: String {
        switch self {
        case .enqueued(let id), .duplicate(let id): id
        }
    }
}
