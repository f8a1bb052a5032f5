import CCurl

/// The libcurl calls of `HTTPPoster` with their failures as values (`HTTPClientError`).
enum CurlCalls {
    static func error(_ call: String, _ code: CURLcode, details: String) -> HTTPClientError {
        let text = String(cString: ccurl_strerror(code))
        return HTTPClientError(call: call, code: Int32(code.rawValue), reason: details.isEmpty || details == text ? text : "\(text): \(details)")
    }

    /// `code` as a result: `.success` for `CURLE_OK`, else the named call's error.
    static func check(_ call: String, _ code: CURLcode, errorBuffer: UnsafeMutablePointer<CChar>? = nil) -> Result<Void, HTTPClientError> {
        guard code != CURLE_OK else { return .success(()) }
        return .failure(error(call, code, details: errorBuffer.map { String(cString: $0) } ?? ""))
    }

    /// `curl_slist_append` for each line; `nil` for none. The caller frees the list (`curl_slist_free_all`).
    static func headerList(_ lines: [String]) -> Result<UnsafeMutablePointer<curl_slist>?, HTTPClientError> {
        var list: UnsafeMutablePointer<curl_slist>?
        for line in lines {
            guard let appended = ccurl_slist_append(list, line) else {
                ccurl_slist_free_all(list)
                return .failure(error("curl_slist_append", CURLE_OUT_OF_MEMORY, details: ""))
            }
            list = appended
        }
        return .success(list)
    }
}
