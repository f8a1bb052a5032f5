import CMosquitto
import Glibc
import SystemCalls
import SystemPackage

/// One connection to an MQTT broker: owns a libmosquitto client (`struct mosquitto *`) from
/// `mosquitto_new` to `mosquitto_destroy` in `deinit`.
///
/// Not thread-safe: one thread makes it, publishes and drives its network I/O with `loop`
/// (no libmosquitto thread), which can also wake for the owner's own descriptor. The connect,
/// disconnect, publish-acknowledged, subscribe-acknowledged and message callbacks run inside
/// `loop` on that thread and come back from it as `Event`s; the pointers libmosquitto passes them
/// never leave this type. A subscription lasts as long as the connection (clean session):
/// subscribe again after every `.connected`. A lost connection is not reconnected: make a new one
/// (its unacknowledged messages are the caller's to publish again).
public final class MQTTConnection {
    /// Where and how to connect.
    public struct Options: Sendable, Hashable {
        public var host: String
        public var port: Int
        public var clientID: String?
        public var keepaliveSeconds = 30
        public var username: String?
        public var password: String?
        /// CA certificates (PEM) verifying the broker: TLS when set.
        public var caFile: String?
        /// The Last Will: published by the broker when the connection ends without a DISCONNECT.
        public var will: Message?

        public init(host: String, port: Int) { (self.host, self.port) = (host, port) }
    }

    /// A message to publish.
    public struct Message: Sendable, Hashable {
        public var topic: String
        public var payload: [UInt8]
        public var qos: Int
        public var retain: Bool

        public init(topic: String, payload: [UInt8], qos: Int, retain: Bool = false) {
            (self.topic, self.payload, self.qos, self.retain) = (topic, payload, qos, retain)
        }
    }

    /// What happened during a `loop`.
    public enum Event: Sendable, Hashable {
        /// The broker accepted the connection.
        case connected
        /// The broker refused the connection (CONNACK code: bad credentials, not authorized, …).
        case refused(MQTTError)
        /// The connection ended; `nil` after our own `disconnect()`.
        case disconnected(MQTTError?)
        /// The broker acknowledged message `mid` (PUBACK for QoS 1, PUBCOMP for 2; sent for QoS 0).
        case published(mid: Int32)
        /// The broker answered SUBSCRIBE `mid` (SUBACK): the QoS granted to each filter, 128 for a refused one.
        case subscribed(mid: Int32, grantedQoS: [Int])
        /// A message of a subscription arrived (its QoS flow done: PUBACK sent for QoS 1).
        case message(Received)
    }

    /// A message a subscription brought: its topic and its payload's first `Received.payloadLimit` bytes.
    public struct Received: Sendable, Hashable {
        /// Bytes of a payload kept; a longer one keeps its length in `length`.
        public static let payloadLimit = 256
        public var topic: String
        /// The payload's first bytes, at most `payloadLimit`.
        public var payload: [UInt8]
        /// The payload's whole length.
        public var length: Int
        /// Whether the broker delivered it as the topic's retained message (sent at subscribing).
        public var retained: Bool

        public init(topic: String, payload: [UInt8], length: Int? = nil, retained: Bool = false) {
            (self.topic, self.payload, self.length, self.retained) = (topic, payload, length ?? payload.count, retained)
        }
    }

    /// Collects the callbacks' events; libmosquitto holds it as `obj` (unretained: the connection keeps it alive).
    private final class EventInbox {
        var events: [Event] = []
    }

    private let handle: OpaquePointer

    /// `mosquitto_lib_init`, once per process.
    private static let libraryInitialized: Int32 = cmosq_lib_init()

    /// Makes a client with `options` and starts connecting (`mosquitto_connect_async`: the name
    /// lookup blocks, the TCP and TLS handshakes finish in `loop`).
    public static func connect(_ options: Options) -> Result<MQTTConnection, MQTTError> {
        _ = libraryInitialized
        let inbox = EventInbox()
        guard let handle = cmosq_new(options.clientID, true, Unmanaged.passUnretained(inbox).toOpaque()) else {
            return .failure(MQTTError(call: "mosquitto_new", code: 1, errno: cmosq_errno(), reason: String(cString: strerror(cmosq_errno()))))
        }
        let connection = MQTTConnection(handle: handle, inbox: inbox)
        if let will = options.will {
            let rc = will.payload.withUnsafeBytes { cmosq_will_set(handle, will.topic, Int32($0.count), $0.baseAddress, Int32(will.qos), will.retain) }
            if rc != 0 { return .failure(error("mosquitto_will_set", rc)) }
        }
        if let username = options.username {
            let rc = cmosq_username_pw_set(handle, username, options.password)
            if rc != 0 { return .failure(error("mosquitto_username_pw_set", rc)) }
        }
        if let caFile = options.caFile {
            let rc = cmosq_tls_set(handle, caFile)
            if rc != 0 { return .failure(error("mosquitto_tls_set", rc)) }
        }
        let rc = cmosq_connect_async(handle, options.host, Int32(options.port), Int32(options.keepaliveSeconds))
        if rc != 0 { return .failure(error("mosquitto_connect_async", rc)) }
        return .success(connection)
    }

    private init(handle: OpaquePointer, inbox: EventInbox) {
        self.handle = handle
        self.inboxStorage = inbox
        cmosq_set_callbacks(handle, { _, obj, rc in
            MQTTConnection.inbox(obj).events.append(rc == 0 ? .connected : .refused(MQTTError(
                call: "CONNACK", code: rc, reason: String(cString: cmosq_connack_string(rc)))))
        }, { _, obj, rc in
            MQTTConnection.inbox(obj).events.append(.disconnected(rc == 0 ? nil : MQTTConnection.error("connection", rc)))
        }, { _, obj, mid in
            MQTTConnection.inbox(obj).events.append(.published(mid: mid))
        })
        cmosq_set_subscription_callbacks(handle, { _, obj, message in
            guard let message = message?.pointee else { return }
            let length = Int(max(0, message.payloadlen))
            let kept = min(length, Received.payloadLimit)
            let payload = message.payload.map { Array(UnsafeRawBufferPointer(start: $0, count: kept)) } ?? []
            MQTTConnection.inbox(obj).events.append(.message(Received(
                topic: message.topic.map { String(cString: $0) } ?? "", payload: payload, length: length, retained: message.retain)))
        }, { _, obj, mid, count, granted in
            let qos = granted.map { Array(UnsafeBufferPointer(start: $0, count: Int(max(0, count)))).map(Int.init) } ?? []
            MQTTConnection.inbox(obj).events.append(.subscribed(mid: mid, grantedQoS: qos))
        })
    }

    private let inboxStorage: EventInbox
    /// The socket (index 0) and the owner's wake descriptor (index 1), set again on every `loop`.
    private let pollSet = PollSet(count: 2)

    private static func inbox(_ obj: UnsafeMutableRawPointer?) -> EventInbox {
        Unmanaged<EventInbox>.fromOpaque(obj!).takeUnretainedValue()
    }

    deinit { cmosq_destroy(handle) }

    /// Queues `message` for sending (`mosquitto_publish`); its message id, which a later
    /// `.published` event acknowledges.
    public func publish(_ message: Message) -> Result<Int32, MQTTError> {
        var mid: Int32 = 0
        let rc = message.payload.withUnsafeBytes {
            cmosq_publish(handle, &mid, message.topic, Int32($0.count), $0.baseAddress, Int32(message.qos), message.retain)
        }
        return rc == 0 ? .success(mid) : .failure(Self.error("mosquitto_publish", rc))
    }

    /// Subscribes to `topic` at `qos` (`mosquitto_subscribe`); its message id, which a later
    /// `.subscribed` event answers. Lasts until the connection ends.
    public func subscribe(_ topic: String, qos: Int) -> Result<Int32, MQTTError> {
        var mid: Int32 = 0
        let rc = cmosq_subscribe(handle, &mid, topic, Int32(qos))
        return rc == 0 ? .success(mid) : .failure(Self.error("mosquitto_subscribe", rc))
    }

    /// Waits until the socket can be read, or written while libmosquitto has bytes to send, or
    /// `wake` has input, at most `timeout` (`poll(2)` on `mosquitto_socket`, POLLOUT when
    /// `mosquitto_want_write`); then reads and writes what is ready and keeps the connection
    /// alive (`mosquitto_loop` with a zero timeout). The events of the callbacks that ran, or the
    /// failure that ended the connection (after the events before it). `wake` is not read: its
    /// owner drains it, or every later `loop` returns at once.
    public func loop(timeout: Duration, wake: FileDescriptor? = nil) -> (events: [Event], failure: MQTTError?) {
        let socket = cmosq_socket(handle)
        // Without a socket there is nothing to wait for: `mosquitto_loop` reports the lost connection.
        if socket >= 0 {
            pollSet.watch(FileDescriptor(rawValue: socket), for: cmosq_want_write(handle) ? [.input, .output] : .input, at: 0)
            pollSet.watch(wake, for: .input, at: 1)
            if case .failure(let errno) = pollSet.wait(timeout: timeout) {
                return ([], MQTTError(call: "poll", code: 14, errno: errno.rawValue, reason: String(cString: strerror(errno.rawValue))))
            }
        }
        let rc = cmosq_loop(handle, 0)
        let events = inboxStorage.events
        inboxStorage.events.removeAll()
        return (events, rc == 0 ? nil : Self.error("mosquitto_loop", rc))
    }

    /// Sends DISCONNECT (the broker then discards the Will); `loop` flushes it.
    public func disconnect() {
        _ = cmosq_disconnect(handle)
    }

    /// An `MQTTError` for `rc` from `call`, with errno's reason for `MOSQ_ERR_ERRNO`.
    static func error(_ call: String, _ rc: Int32) -> MQTTError {
        if rc == 14 {  // MOSQ_ERR_ERRNO
            let code = cmosq_errno()
            return MQTTError(call: call, code: rc, errno: code, reason: String(cString: strerror(code)))
        }
        return MQTTError(call: call, code: rc, reason: String(cString: cmosq_strerror(rc)))
    }
}
