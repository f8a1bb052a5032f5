import HTTPClient

/// What a webhook answer means for the codes it carried, and when to try again.
///
/// A 2xx is delivery. A 5xx, 408, 429 and a failure to get an answer that may pass (refused,
/// timed out, reset: `HTTPClientError.isTransient`) are retried: after the server's
/// `Retry-After` when it gave one (capped), else after a backoff doubling from 0.5 s to 30 s
/// with jitter (a random 50–100 % of the step). Any other answer (a 4xx such as 400, 401, 404;
/// a 3xx) is a permanent failure: counted by status and not sent again. A failure that a
/// setting must fix (a wrong CA) is retried at the backoff's cap, so codes wait for the fix.
public enum WebhookRetryRules {
    public enum Outcome: Sendable, Hashable {
        case delivered
        /// Try again after `after` (the server's `Retry-After`), or the backoff's next step when `nil`.
        case retry(after: Duration?, reason: String)
        /// Not sent again: the receiver refused it for good.
        case permanentFailure(status: Int)
    }

    /// The longest wait between attempts.
    public static let maximumBackoff: Duration = .seconds(30)

    public static func outcome(of result: Result<HTTPPoster.Response, HTTPClientError>) -> Outcome {
        switch result {
        case .success(let response):
            switch response.status {
            case 200...299: return .delivered
            case 429, 408, 500...599:
                let after = response.retryAfterSeconds.map { Duration.seconds(min($0, 3600)) }
                return .retry(after: after, reason: "HTTP \(response.status)")
            default: return .permanentFailure(status: response.status)
            }
        case .failure(let error):
            return .retry(after: error.isTransient ? nil : maximumBackoff, reason: error.kind)
        }
    }

    /// The wait before attempt `failures + 1` after `failures` failed ones in a row (≥ 1): 0.5 s
    /// doubling, capped at `cap` (30 s), times `jitter` (0.5–1: spreads many senders' retries).
    public static func backoff(failures: Int, cap: Duration = maximumBackoff, jitter: Double = Double.random(in: 0.5...1)) -> Duration {
        let step = 0.5 * Double(1 << min(max(failures - 1, 0), 16))
        let capSeconds = Double(cap.components.seconds) + Double(cap.components.attoseconds) / 1e18
        return .milliseconds(Int(min(step, capSeconds) * jitter * 1000))
    }
}
