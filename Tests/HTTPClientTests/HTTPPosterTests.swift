import HTTPClient
import TestSupport
import Testing

@Suite(.offThePool) struct HTTPPosterTests {
    @Test func postSendsBodyAndHeadersAndReturnsTheStatus() throws {
        let receiver = try WebhookReceiver()
        let poster = try HTTPPoster.make(caFile: nil, timeoutSeconds: 10).get()
        let response = try poster.post(url: receiver.url, body: Array(#"{"data":"A"}"#.utf8),
                                       headers: ["Content-Type: application/json", "Idempotency-Key: k-1"]).get()
        #expect(response == HTTPPoster.Response(status: 200))
        let request = try #require(receiver.requests.first)
        #expect(request.body == #"{"data":"A"}"#)
        #expect(request.key == "k-1")
        #expect(request.content_type == "application/json")
    }

    @Test func retryAfterOfA429IsRead() throws {
        let receiver = try WebhookReceiver()
        try receiver.answer("429 7")
        let poster = try HTTPPoster.make(caFile: nil, timeoutSeconds: 10).get()
        #expect(try poster.post(url: receiver.url, body: [], headers: []).get() == HTTPPoster.Response(status: 429, retryAfterSeconds: 7))
        try receiver.answer("503")
        #expect(try poster.post(url: receiver.url, body: [], headers: []).get() == HTTPPoster.Response(status: 503))
    }

    @Test func aRefusedConnectionIsATransientErrorNamingTheCall() throws {
        let receiver = try WebhookReceiver()
        receiver.stop()
        let poster = try HTTPPoster.make(caFile: nil, timeoutSeconds: 10).get()
        let result = poster.post(url: receiver.url, body: [], headers: [])
        guard case .failure(let error) = result else { Issue.record("a stopped receiver answered: \(result)"); return }
        #expect(error.call == "curl_easy_perform" && error.code == 7 && error.isTransient)
        #expect(error.description.contains("webhook.url"))
    }

    @Test func httpsIsVerifiedAgainstTheCAFileAndAWrongCAIsRefused() throws {
        let certificate = try SelfSignedCertificate()
        let other = try SelfSignedCertificate()
        let receiver = try WebhookReceiver(tls: certificate)
        let trusted = try HTTPPoster.make(caFile: certificate.certificatePath, timeoutSeconds: 10).get()
        #expect(try trusted.post(url: receiver.url, body: Array("x".utf8), headers: []).get().status == 200)
        let wrong = try HTTPPoster.make(caFile: other.certificatePath, timeoutSeconds: 10).get()
        let refused = wrong.post(url: receiver.url, body: Array("y".utf8), headers: [])
        guard case .failure(let error) = refused else { Issue.record("a wrong CA was accepted: \(refused)"); return }
        #expect(error.code == 60, "CURLE_PEER_FAILED_VERIFICATION expected: \(error)")
        #expect(!error.isTransient)
        #expect(receiver.requests.map(\.body) == ["x"])
    }

    @Test func versionIsLibcurlsNumber() throws {
        let output = try ExternalTool.run("curl", ["--version"])
        // curl(1)'s first line: `curl 7.88.1 (x86_64-pc-linux-gnu) libcurl/7.88.1 OpenSSL/3.0.15 …`, the same library.
        let words = String(decoding: output.stdout, as: UTF8.self).split(separator: "\n")[0].split(separator: " ")
        let library = try #require(words.firstIndex { $0.hasPrefix("libcurl/") })
        #expect(CurlLibrary.version == String(words[library].dropFirst("libcurl/".count)))
    }
}
