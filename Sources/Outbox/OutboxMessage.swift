/// One message on its way through a `DurableOutbox`: what the receiver knows it by, its bytes,
/// and its kind, which says how the outbox keeps, spools and counts it.
///
/// A spool record holds the key, the payload and `qos` and `retain` (its flags byte); a message
/// read back from a spool is a code.
public struct OutboxMessage: Sendable, Hashable {
    /// How the outbox treats a message.
    public enum Kind: Sendable, Hashable {
        /// A code: counted (delivered, dropped) and spooled.
        case code
        /// A status or stats message: in memory only, up to twice the bound, never counted (a newer one follows).
        case status
        /// An item's message: in memory only, up to twice the bound, counted when dropped (`itemsDropped`).
        case item
    }

    /// What the receiver knows it by: a topic, or a code's id (a request's idempotency key).
    public var key: String
    public var payload: [UInt8]
    public var kind: Kind
    /// The delivery guarantee asked of the receiver (0 at most once, 1 at least once, 2 exactly
    /// once), kept in the spool record; 1 for a receiver that has no such choice.
    public var qos: Int
    /// Whether the receiver keeps the message for later subscribers (kept in the spool record).
    public var retain: Bool

    public init(key: String, payload: [UInt8], kind: Kind = .code, qos: Int = 1, retain: Bool = false) {
        (self.key, self.payload, self.kind, self.qos, self.retain) = (key, payload, kind, qos, retain)
    }

    public var isCode: Bool { kind == .code }
    public var isItem: Bool { kind == .item }
}
