/// A libcurl call failed: which call, libcurl's `CURLcode` and its text, and what to do.
public struct HTTPClientError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The libcurl function that failed (`curl_easy_perform`, `curl_easy_setopt(CURLOPT_CAINFO)`, …).
    public var call: String
    /// libcurl's `CURLcode` (`CURLE_*`).
    public var code: Int32
    /// `curl_easy_strerror`, and the error buffer's details when libcurl filled it.
    public var reason: String

    public init(call: String, code: Int32, reason: String) {
        (self.call, self.code, self.reason) = (call, code, reason)
    }

    /// A name for the kind of failure, the same for each repetition (logged once per kind).
    public var kind: String { "\(call) \(code)" }

    /// Whether trying again later may succeed (the server or the network away, a timeout), as
    /// opposed to a setting to fix (a bad CA file, an unsupported scheme).
    public var isTransient: Bool {
        switch code {
        case 5, 6, 7, 28, 52, 55, 56, 35: return true  // proxy or host lookup, connect, timeout, nothing, send, receive, TLS handshake
        default: return false
        }
    }

    /// What to do about it.
    public var advice: String {
        switch code {
        case 6: return "check the host name in webhook.url (DNS lookup failed)"
        case 7: return "check that the receiver runs and listens on the host and port of webhook.url; codes wait and are sent again"
        case 28: return "the receiver did not answer within webhook.timeout_seconds; codes wait and are sent again"
        case 60, 77, 35, 58, 83: return "check webhook.ca_file and that the receiver's certificate matches the host name in webhook.url"
        case 1: return "webhook.url must be http:// or https://"
        default: return "check webhook.url and the receiver's log"
        }
    }

    public var description: String { "\(call) failed: \(reason) (CURLcode \(code)); \(advice)" }
}
