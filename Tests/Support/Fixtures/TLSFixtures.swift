import Foundation

/// A self-signed certificate for 127.0.0.1 and its private key (P-256), made by `openssl req`
/// in a temporary directory deleted with the value.
public final class SelfSignedCertificate: @unchecked Sendable {
    public let directory: TemporaryDirectory
    public var keyPath: String { directory.path + "/key.pem" }
    public var certificatePath: String { directory.path + "/cert.pem" }

    public init() throws {
        directory = try TemporaryDirectory()
        let made = try ExternalTool.run("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                                                    "-keyout", directory.path + "/key.pem", "-out", directory.path + "/cert.pem",
                                                    "-days", "2", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"])
        guard made.status == 0 else { throw FixtureError.toolFailed(made.describe()) }
    }

    public var keyPEM: String { get throws { try String(contentsOfFile: keyPath, encoding: .utf8) } }
    public var certificatePEM: String { get throws { try String(contentsOfFile: certificatePath, encoding: .utf8) } }

    /// `curl` over HTTPS trusting only this certificate: the body, or the failure (exit status
    /// and curl's message) as `nil` body.
    public func fetch(_ url: String, extra: [String] = []) throws -> (body: String?, result: ExternalTool.Result) {
        let result = try ExternalTool.run("curl", ["-sS", "--max-time", "20", "--cacert", certificatePath] + extra + [url])
        return (result.status == 0 ? String(decoding: result.stdout, as: UTF8.self) : nil, result)
    }
}
