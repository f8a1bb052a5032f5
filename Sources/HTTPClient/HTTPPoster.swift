import CCurl

/// POSTs request bodies to HTTP(S) URLs through one libcurl easy handle (`curl_easy_init` …
/// `curl_easy_cleanup` in `deinit`), which keeps the connection alive between requests.
///
/// Not thread-safe, and blocking: `post` runs the whole request (`curl_easy_perform`) on the
/// calling thread, which should be its owner's own thread, never Swift's concurrency pool.
/// `https://` is verified (peer and host name) against the system's CA store or `caFile`.
public final class HTTPPoster {
    /// What the server answered.
    public struct Response: Sendable, Hashable {
        /// The HTTP status code (`CURLINFO_RESPONSE_CODE`).
        public var status: Int
        /// The `Retry-After` header in seconds (`CURLINFO_RETRY_AFTER`); `nil` when absent.
        public var retryAfterSeconds: Int?

        public init(status: Int, retryAfterSeconds: Int? = nil) { (self.status, self.retryAfterSeconds) = (status, retryAfterSeconds) }
    }

    private let handle: UnsafeMutableRawPointer
    /// libcurl writes a failure's details here (`CURLOPT_ERRORBUFFER`); freed in `deinit`.
    private let errorBuffer: UnsafeMutablePointer<CChar>

    /// A new easy handle with `caFile` (PEM CA certificates; `nil`: the system's store) and the
    /// request's and the connection's time limits.
    public static func make(caFile: String?, timeoutSeconds: Double) -> Result<HTTPPoster, HTTPClientError> {
        if case .failure(let error) = CurlLibrary.initialized { return .failure(error) }
        guard let handle = ccurl_easy_init() else {
            return .failure(CurlCalls.error("curl_easy_init", CURLE_FAILED_INIT, details: ""))
        }
        let poster = HTTPPoster(handle: handle)
        let totalMS = max(1, Int(timeoutSeconds * 1000))
        return CurlCalls.check("curl_easy_setopt(setup)", ccurl_setup(handle, poster.errorBuffer))
            .flatMap { CurlCalls.check("curl_easy_setopt(CURLOPT_TIMEOUT_MS)", ccurl_set_timeouts(handle, totalMS, min(totalMS, 10_000))) }
            .flatMap {
                guard let caFile else { return .success(()) }
                return CurlCalls.check("curl_easy_setopt(CURLOPT_CAINFO)", ccurl_set_ca_file(handle, caFile))
            }
            .map { poster }
    }

    private init(handle: UnsafeMutableRawPointer) {
        self.handle = handle
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
    }

    deinit {
        ccurl_easy_cleanup(handle)
        errorBuffer.deallocate()
    }

    /// POSTs `body` to `url` with `headers` (`Name: value` lines) and waits for the answer
    /// (`curl_easy_perform`). Any status is a `Response`; a failure to get one (refused,
    /// timed out, TLS not verified) is the error.
    public func post(url: String, body: [UInt8], headers: [String]) -> Result<Response, HTTPClientError> {
        let list: UnsafeMutablePointer<curl_slist>?
        switch CurlCalls.headerList(headers) {
        case .success(let l): list = l
        case .failure(let error): return .failure(error)
        }
        defer {
            _ = ccurl_set_headers(handle, nil)
            ccurl_slist_free_all(list)
        }
        errorBuffer[0] = 0
        let prepared = CurlCalls.check("curl_easy_setopt(CURLOPT_URL)", ccurl_set_url(handle, url))
            .flatMap { CurlCalls.check("curl_easy_setopt(CURLOPT_HTTPHEADER)", ccurl_set_headers(handle, list)) }
            .flatMap {
                CurlCalls.check("curl_easy_setopt(CURLOPT_COPYPOSTFIELDS)", body.withUnsafeBytes { bytes in
                    // An empty body still needs a valid pointer.
                    ccurl_set_post_body(handle, bytes.baseAddress ?? UnsafeRawPointer(errorBuffer), bytes.count)
                })
            }
        if case .failure(let error) = prepared { return .failure(error) }
        if case .failure(let error) = CurlCalls.check("curl_easy_perform", ccurl_easy_perform(handle), errorBuffer: errorBuffer) {
            return .failure(error)
        }
        var status = 0
        var retryAfter: curl_off_t = 0
        if case .failure(let error) = CurlCalls.check("curl_easy_getinfo(CURLINFO_RESPONSE_CODE)", ccurl_response_code(handle, &status)) {
            return .failure(error)
        }
        _ = ccurl_retry_after(handle, &retryAfter)
        return .success(Response(status: status, retryAfterSeconds: retryAfter > 0 ? Int(retryAfter) : nil))
    }
}
