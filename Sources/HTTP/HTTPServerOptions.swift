/// How long a connection may go without a byte received or sent (libmicrohttpd's connection
/// timeout), before and after its response starts streaming.
public struct HTTPTimeouts: Sendable, Hashable {
    /// Before the response: a request sent slowly, half or not at all, and a kept-alive connection
    /// between requests (`MHD_OPTION_CONNECTION_TIMEOUT`). 0: none.
    public var requestSeconds: UInt32
    /// A streamed response's connection, from its start (`MHD_CONNECTION_OPTION_TIMEOUT`): reached
    /// only by a client that took no bytes for that long (or a stream that had none to send); the
    /// connection is closed, its stream slot freed, and the client's address logged. 0: none.
    public var streamSeconds: UInt32

    public init(requestSeconds: UInt32 = 5, streamSeconds: UInt32 = 30) {
        (self.requestSeconds, self.streamSeconds) = (requestSeconds, streamSeconds)
    }
}

/// A private key and its certificate chain, PEM text, for HTTPS.
public struct TLSCredentials: Sendable, Hashable {
    public var keyPEM: String
    public var certificatePEM: String
    public init(keyPEM: String, certificatePEM: String) { (self.keyPEM, self.certificatePEM) = (keyPEM, certificatePEM) }
}
