import CCurl

/// The libcurl library syncscan runs with.
public enum CurlLibrary {
    /// The running library's version, from `curl_version`'s line (`libcurl/7.88.1 OpenSSL/3.0.15
    /// zlib/… …`): `7.88.1`.
    public static var version: String {
        let own = String(cString: ccurl_version()).split(separator: " ").first ?? ""
        return String(own.hasPrefix("libcurl/") ? own.dropFirst("libcurl/".count) : own)
    }

    /// Where `version` comes from, for `syncscan --version`.
    public static let versionOrigin = "curl_version"

    /// `curl_global_init`, once per process, before the first handle (it is not thread-safe in
    /// itself; a `static let` runs it once).
    static let initialized: Result<Void, HTTPClientError> = {
        let code = ccurl_global_init()
        guard code == CURLE_OK else { return .failure(CurlCalls.error("curl_global_init", code, details: "")) }
        return .success(())
    }()
}
